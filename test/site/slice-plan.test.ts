/**
 * A slice's load stays index look-ups whatever the job's size (src/site/slice.ts, loadItems):
 * the statement is read back with EXPLAIN QUERY PLAN while a real job runs. The reuse look-up
 * (a text translated earlier in the job) must seek `results_job_text`, keyed by the
 * fingerprint's first 8 digits (migration 0007): SQLite uses an index on an expression only
 * where the query names the same expression, and without it each item would walk every result
 * of the job.
 */
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { SiteSettings } from "../../src/control/sites";
import type { SiteObject } from "../../src/site/object";
import { runJobs } from "../../src/site/runner";
import { client, createSite, unit } from "../helpers/api";
import { fakeEngine } from "../helpers/fake-engine";
import { stubOf } from "../helpers/faults";

describe("a slice's load", () => {
  it("seeks results_job_text for texts translated earlier in the job, and neither scans a table whole nor sorts", async () => {
    const site = await createSite({ target_languages: [{ code: "de" }, { code: "fr" }] });
    const c = client(site.key);
    // Repeats across units, so later slices reuse texts of earlier ones.
    const units = Array.from({ length: 12 }, (_, i) =>
      unit(`post:${i}`, [
        { key: "t", text: `Title ${i % 4}` },
        { key: "b", text: `Body ${i}` },
      ]),
    );
    expect((await c.put("/v1/units/batch", { units })).status).toBe(200);
    expect((await c.post("/v1/jobs", { type: "delta", confirm: true })).status).toBe(202);

    const { plan, reused } = await runInDurableObject(stubOf(site.siteId), async (o: SiteObject) => {
      const self = o as unknown as { env: Env };
      const all = o.store.all.bind(o.store);
      let load: { sql: string; args: unknown[] } | undefined;
      o.store.all = ((sql: string, ...args: unknown[]) => {
        if (/FROM job_items ji JOIN segments s/.test(sql)) load ??= { sql, args };
        return all(sql, ...args);
      }) as typeof o.store.all;
      try {
        await runJobs({ store: o.store, env: self.env, settings: o.store.getMeta<SiteSettings>("settings")!, engineFor: () => fakeEngine() }, { budgetMs: 60_000, sliceItems: 5 });
      } finally {
        o.store.all = all;
      }
      if (!load) throw new Error("no slice was loaded");
      return {
        plan: all<{ detail: string }>(`EXPLAIN QUERY PLAN ${load.sql}`, ...load.args).map((r) => r.detail),
        reused: all<{ n: number }>("SELECT reused_segments AS n FROM jobs ORDER BY id DESC LIMIT 1")[0].n,
      };
    });
    // The job's repeats were found (in stored results or in commits still landing).
    expect(reused).toBeGreaterThan(0);
    expect(
      plan.some((d) => /^SEARCH r USING INDEX results_job_text \(job_id=\? AND language=\? AND <expr>=\?\)/.test(d)),
      plan.join("\n"),
    ).toBe(true);
    // No table scanned whole, and the latest result of a text read off the index, not sorted.
    expect(
      plan.filter((d) => (/^SCAN /.test(d) && !/^SCAN (j|l)\b/.test(d)) || /TEMP B-TREE/.test(d)),
      plan.join("\n"),
    ).toEqual([]);
  });
});
