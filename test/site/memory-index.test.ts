/**
 * The memory keeps each entry's source text and the fuzzy index (`memory_fts`, migration 0006)
 * follows it: new entries, edits, deletions, erasure; entries written before 0006 are back-filled
 * in steps by the alarm need `memory_index`, with requests answered between the steps.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
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
      expect(o.store.all("SELECT name FROM sqlite_master WHERE name LIKE 'memory%'")).toEqual([]);
    });
  });
});
