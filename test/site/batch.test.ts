// A batch is applied in one transaction; only when a unit fails is it applied again unit by
// unit, each in its own transaction. The answer and the stored state must be what unit-by-unit
// pushes give: the failing unit reported and absent, the others applied once, counts exact.
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import { UnitSnapshotIn } from "../../src/api/schemas";
import type { SiteSettings } from "../../src/control/sites.control";
import type { SiteObject } from "../../src/site/object";
import { client, createSite, unit } from "../helpers/api";
import { recounted, stubOf } from "../helpers/site";

const counts = (o: SiteObject) => ({
  site: o.store.all("SELECT * FROM site_counts ORDER BY language"),
  prefix: o.store.all("SELECT * FROM prefix_counts ORDER BY prefix, language"),
  units: o.store.all("SELECT * FROM unit_counts ORDER BY unit_id, language"),
  rows: o.store.all("SELECT external_key, segment_count, needs_work, counted FROM units ORDER BY id"),
});

describe("a batch with a unit that fails while it is written", () => {
  it("reports that unit, stores nothing of it, and applies the others once with exact counts", async () => {
    const site = await createSite({ target_languages: [{ code: "de" }, { code: "fr" }] });
    const c = client(site.key);
    await c.put("/v1/units", unit("post:0", [{ key: "a", text: "Zero" }]));
    const batch = [
      unit("post:1", [
        { key: "a", text: "One" },
        { key: "b", text: "Two", field: "title" },
      ]),
      // Its segments fail to insert (the statement that carries the segment "boom"), after its unit row was written.
      unit("post:2", [
        { key: "a", text: "Three" },
        { key: "boom", text: "Four" },
      ]),
      unit("post:0", [
        { key: "a", text: "Zero, changed" },
        { key: "b", text: "Five" },
      ]),
      unit("page:3", [{ key: "a", text: "Six" }]),
    ].map((u) => UnitSnapshotIn.parse(u));

    const { results, logged } = await runInDurableObject(stubOf(site.siteId), async (o: SiteObject) => {
      const settings = o.store.getMeta<SiteSettings>("settings")!;
      const run = o.store.run.bind(o.store);
      const spy = vi.spyOn(o.store, "run").mockImplementation((query: string, ...args: unknown[]) => {
        // New segments are written in bulk (src/site/sync/push-writes.ts): the row travels inside a JSON parameter.
        if (query.startsWith("INSERT INTO segments") && args.some((a) => typeof a === "string" && a.includes('"boom"'))) throw new Error("disk full (simulated)");
        return run(query, ...args);
      });
      const lines: string[] = [];
      const warn = vi.spyOn(console, "warn").mockImplementation((line) => void lines.push(String(line)));
      const error = vi.spyOn(console, "error").mockImplementation((line) => void lines.push(String(line)));
      try {
        const results = await o.pushBatch(settings, { units: batch, digests: batch.map((_, i) => `digest-${i}`) });
        return { results, logged: lines.map((line) => JSON.parse(line).event) };
      } finally {
        spy.mockRestore();
        warn.mockRestore();
        error.mockRestore();
      }
    });

    expect(results.map((r) => [r.external_key, r.ok])).toEqual([
      ["post:1", true],
      ["post:2", false],
      ["post:0", true],
      ["page:3", true],
    ]);
    expect(results[1].error).toMatch(/could not be stored/);
    expect(results[0].result).toMatchObject({ unit_created: true, added: 2 });
    expect(results[2].result).toMatchObject({ unit_created: false, added: 1, changed: 1 });
    expect(logged).toEqual(["push.batch_failed", "push.unit_failed"]);

    expect((await c.get("/v1/units/post:2/status")).status).toBe(404);
    expect((await c.get("/v1/units/post:1/status")).body.segments.map((s: { key: string }) => s.key)).toEqual(["a", "b"]);
    expect((await c.get("/v1/status")).body).toMatchObject({ units_total: 3, segments_total: 5 });

    // The maintained counts are exactly what a rebuild from the rows gives.
    const { maintained, recount } = await recounted(site.siteId, counts);
    expect(recount).toEqual(maintained);
  });
});
