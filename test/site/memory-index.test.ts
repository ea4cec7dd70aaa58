/**
 * The memory keeps each entry's source text and the fuzzy index (`memory_fts`, migration 0006)
 * follows it: new entries, edits, deletions, erasure; entries written before 0006 are back-filled
 * in steps by the alarm need `memory_index`, with requests answered between the steps.
 */
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { fuzzyMatches } from "../../src/site/fuzzy";
import { MEMORY_INDEX_ROWS_PER_RUN } from "../../src/site/memory";
import type { SiteObject } from "../../src/site/object";
import { admin, client, createSite, unit } from "../helpers/api";

const stubOf = (siteId: number) => env.SITE.getByName(String(siteId));

/** The index's rows as (source text, memory target language). */
function indexed(siteId: number) {
  return runInDurableObject(stubOf(siteId), async (o: SiteObject) =>
    o.store.all<{ source_text: string; target_language: string; text: string }>(
      "SELECT f.source_text, m.target_language, m.text FROM memory_fts f JOIN memory m ON m.rowid = f.rowid ORDER BY f.source_text, m.target_language",
    ),
  );
}

describe("memory source text and the fuzzy index", () => {
  it("imported translations enter the memory with their source text and the index with them", async () => {
    const site = await createSite({ target_languages: [{ code: "de" }] });
    const c = client(site.key);
    const res = await c.put("/v1/units", unit("page:1", [{ key: "a", text: "Free shipping on all orders", translations: { de: "Kostenloser Versand" } }]));
    expect(res.status).toBe(200);
    expect(await indexed(site.siteId)).toEqual([{ source_text: "Free shipping on all orders", target_language: "de", text: "Kostenloser Versand" }]);
  });

  it("edits, deletions and erasure keep the index in step", async () => {
    const site = await createSite({ target_languages: [{ code: "de" }, { code: "fr" }] });
    const c = client(site.key);
    await c.put("/v1/units", unit("page:1", [{ key: "a", text: "Free shipping on all orders", translations: { de: "Kostenloser Versand", fr: "Livraison gratuite" } }]));
    await runInDurableObject(stubOf(site.siteId), async (o: SiteObject) => {
      o.store.run("UPDATE memory SET text = 'Versand frei', origin = 'human' WHERE target_language = 'de'");
      o.store.run("DELETE FROM memory WHERE target_language = 'fr'");
    });
    expect(await indexed(site.siteId)).toEqual([{ source_text: "Free shipping on all orders", target_language: "de", text: "Versand frei" }]);
    await runInDurableObject(stubOf(site.siteId), async (o: SiteObject) => {
      o.store.run("UPDATE memory SET source_text = 'Free shipping on every order'");
      expect(o.store.all("SELECT rowid FROM memory_fts WHERE memory_fts MATCH '\"all orders\"'")).toEqual([]);
      expect(o.store.all("SELECT rowid FROM memory_fts WHERE memory_fts MATCH '\"every order\"'")).toHaveLength(1);
    });
    expect((await admin("DELETE", `/admin/v1/sites/${site.siteId}`)).status).toBeLessThan(300);
    await runInDurableObject(stubOf(site.siteId), async (o: SiteObject) => {
      const storage = (o as unknown as { ctx: DurableObjectState }).ctx.storage;
      expect(storage.sql.exec("SELECT name FROM sqlite_master WHERE name LIKE 'memory%'").toArray()).toEqual([]);
    });
  });

  it("a memory written before 0006 is back-filled in steps by the alarm, with requests answered between the runs", async () => {
    const site = await createSite({ target_languages: [{ code: "de" }] });
    const c = client(site.key);
    const n = Math.floor(MEMORY_INDEX_ROWS_PER_RUN * 2.5);
    const segments = Array.from({ length: n }, (_, i) => ({ key: `s${i}`, text: `Product number ${i} ships within two days`, translations: { de: `Produkt ${i}` } }));
    expect((await c.put("/v1/units", unit("page:1", segments))).status).toBe(200);
    // Back to the state a site had before migration 0006: no source texts, nothing indexed, plus an entry whose text
    // is no longer among the segments; the migration's registration of the need.
    await runInDurableObject(stubOf(site.siteId), async (o: SiteObject) => {
      o.store.run(
        "INSERT INTO memory (source_fingerprint, source_language, target_language, text, origin, updated_at) VALUES ('gone', 'en', 'de', 'Weg', 'approved', '2026-01-01')",
      );
      o.store.run("UPDATE memory SET source_text = NULL");
      expect(o.store.one("SELECT count(*) AS n FROM memory_fts")).toEqual({ n: 0 });
      o.store.run("INSERT INTO alarms (need, due_at, version) VALUES ('memory_index', ?1, 1) ON CONFLICT (need) DO UPDATE SET due_at = ?1", Date.now() + 3_600_000);
      await o.alarms.arm();
    });
    const progress: number[] = [];
    // Other needs (the organization memory's copy) may share the alarm: runs go on until this need is done.
    for (let run = 0; run < 10; run++) {
      if (!(await runDurableObjectAlarm(stubOf(site.siteId)))) break;
      const [indexed, due] = await runInDurableObject(stubOf(site.siteId), (o: SiteObject) => [
        o.store.one<{ n: number }>("SELECT count(*) AS n FROM memory_fts")!.n,
        o.alarms.dueAt("memory_index"),
      ]);
      progress.push(indexed);
      // A request between two runs is answered.
      expect((await c.get("/v1/status")).status).toBe(200);
      if (due === null) break;
    }
    expect(progress).toEqual([MEMORY_INDEX_ROWS_PER_RUN, 2 * MEMORY_INDEX_ROWS_PER_RUN, n]);
    await runInDurableObject(stubOf(site.siteId), (o: SiteObject) => {
      expect(o.store.one("SELECT source_text FROM memory WHERE source_fingerprint = 'gone'")).toEqual({ source_text: null });
      expect(o.alarms.dueAt("memory_index")).toBeNull();
      expect(fuzzyMatches(o.store, "en", "de", ["Product number 17 ships within three days"])[0].map((m) => m.target)).toContain("Produkt 17");
    });
  });
});
