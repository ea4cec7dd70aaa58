/**
 * The memory keeps each entry's source text and the fuzzy index (`memory_fts`, migration 0006)
 * follows it: new entries, edits, deletions, erasure; entries written before 0006 are back-filled
 * in steps by the alarm need `memory_index`, with requests answered between the steps.
 */
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { fingerprint } from "../../src/site/fingerprint";
import { indexNeedsMerge, MEMORY_INDEX_ROWS_PER_RUN, MERGE_GROWTH, mergeMemoryIndex, rememberTranslation } from "../../src/site/memory/entries";
import { fuzzyMatches } from "../../src/site/memory/fuzzy";
import type { SiteObject } from "../../src/site/object";
import { admin, client, createSite, unit } from "../helpers/api";
import { stubOf } from "../helpers/site";

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
    expect((await admin("DELETE", `/admin/v1/sites/${site.siteId}`)).status).toBe(204);
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
      // (The merge the push registered did not exist before 0006 either.)
      o.store.run("DELETE FROM alarms WHERE need = 'memory_merge'");
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
      // Once back-filled, the index is merged (memory_merge, registered by the back-fill's last run).
      expect(o.alarms.dueAt("memory_merge")).not.toBeNull();
      expect(fuzzyMatches(o.store, "en", "de", ["Product number 17 ships within three days"], undefined, UNBOUNDED)[0].map((m) => m.target)).toContain("Produkt 17");
    });
  });

  it("a grown index is merged in bounded steps (FTS5 'merge'), each answering whether work is left, and answers the same after", async () => {
    const site = await createSite({ target_languages: [{ code: "de" }] });
    await runInDurableObject(stubOf(site.siteId), (o: SiteObject) => {
      fillInTransactions(o, 12, 100);
      expect(segments(o)).toBeGreaterThan(1);
      const before = fuzzyMatches(o.store, "en", "de", ASKED, undefined, UNBOUNDED);
      expect(before.filter((m) => m.length > 0)).toHaveLength(ASKED.length);
      let steps = 0;
      while (mergeMemoryIndex(o.store, 4).more) if (++steps > 10_000) throw new Error("the merge never ends");
      // A few pages per step: several steps, then one that finds nothing left.
      expect(steps).toBeGreaterThan(3);
      expect(segments(o)).toBe(1);
      expect(fuzzyMatches(o.store, "en", "de", ASKED, undefined, UNBOUNDED)).toEqual(before);
      expect(mergeMemoryIndex(o.store, 4).more).toBe(false);
    });
  });

  it("a write that grows the memory by enough registers the merge (memory_merge), which the alarm runs to its end with requests answered between", async () => {
    const site = await createSite({ target_languages: [{ code: "de" }] });
    const c = client(site.key);
    const before = await runInDurableObject(stubOf(site.siteId), (o: SiteObject) => {
      fillInTransactions(o, Math.ceil(MERGE_GROWTH / 100), 100);
      expect(indexNeedsMerge(o.store)).toBe(true);
      expect(o.alarms.dueAt("memory_merge")).toBeNull();
      return fuzzyMatches(o.store, "en", "de", ASKED, undefined, UNBOUNDED);
    });
    // Any call that writes to the memory (here an imported translation) registers the merge, off the request's path.
    expect((await c.put("/v1/units", unit("page:1", [{ key: "a", text: "Free shipping on all orders", translations: { de: "Versandkostenfrei" } }]))).status).toBe(200);
    expect(await runInDurableObject(stubOf(site.siteId), (o: SiteObject) => [segments(o) > 1, o.alarms.dueAt("memory_merge") !== null])).toEqual([true, true]);
    for (let run = 0; run < 20; run++) {
      if (!(await runDurableObjectAlarm(stubOf(site.siteId)))) break;
      expect((await c.get("/v1/status")).status).toBe(200);
      if ((await runInDurableObject(stubOf(site.siteId), (o: SiteObject) => o.alarms.dueAt("memory_merge"))) === null) break;
    }
    await runInDurableObject(stubOf(site.siteId), (o: SiteObject) => {
      expect(o.alarms.dueAt("memory_merge")).toBeNull();
      expect(segments(o)).toBe(1);
      expect(indexNeedsMerge(o.store)).toBe(false);
      expect(fuzzyMatches(o.store, "en", "de", ASKED, undefined, UNBOUNDED)).toEqual(before);
    });
  });
});

/** Look-ups here are about what the index finds, not the slice's time budget (FUZZY_BUDGET_MS on the wall clock, which a loaded machine can spend). */
const UNBOUNDED = { ms: Number.POSITIVE_INFINITY };

/** Texts asked of the filled memory: each is one entry with a word changed. */
const ASKED = ["Product number 17 ships within three days to Berlin", "Product number 905 ships within two days to Lyon"];

/** Fills the memory (en → de) with `tx` × `per` entries, one transaction each (so the index is left in several segments). */
function fillInTransactions(o: SiteObject, tx: number, per: number) {
  const cities = ["Berlin", "Paris", "Lyon", "Oslo", "Rome"];
  for (let t = 0; t < tx; t++)
    o.store.tx(() => {
      for (let i = t * per; i < (t + 1) * per; i++) {
        const text = `Product number ${i} ships within two days to ${cities[i % cities.length]}`;
        rememberTranslation(o.store, fingerprint(text), text, "en", "de", `Produkt ${i}`, "approved");
      }
    });
}

/** The index's segments (b-trees): FTS5 numbers them in its data rows' rowids (segment id << 37). */
const segments = (o: SiteObject) => o.store.one<{ n: number }>("SELECT count(DISTINCT rowid >> 37) AS n FROM memory_fts_data WHERE rowid > 10")!.n;
