/**
 * A slice's load stays index look-ups whatever the job's size (src/site/jobs/slice.ts, loadItems):
 * the statement is read back with EXPLAIN QUERY PLAN while a real job runs. The reuse look-up
 * (a text translated earlier in the job) must seek `results_job_text`, keyed by the
 * fingerprint's first 8 digits (migration 0007): SQLite uses an index on an expression only
 * where the query names the same expression (and `repeated = 1`, the index's condition since
 * migration 0008), and without it each item would walk every result of the job. Only results of
 * texts that another segment shares are entered in it.
 */
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import siteMigrations from "../../migrations/site/migrations.js";
import { runJobs } from "../../src/site/jobs/runner";
import type { SiteObject } from "../../src/site/object";
import { client, createSite, unit } from "../helpers/api";
import { fakeEngine } from "../helpers/fake-engine";
import { runnerDeps, stubOf } from "../helpers/site";

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
      const all = o.store.all.bind(o.store);
      const rows = o.store.rows.bind(o.store);
      let load: { sql: string; args: unknown[] } | undefined;
      // The load reads its rows as arrays (Store.rows).
      o.store.rows = ((sql: string, ...args: unknown[]) => {
        if (/FROM job_items ji JOIN segments s/.test(sql)) load ??= { sql, args };
        return rows(sql, ...args);
      }) as typeof o.store.rows;
      try {
        await runJobs(runnerDeps(o, { engineFor: () => fakeEngine() }), { budgetMs: 60_000, sliceItems: 5 });
      } finally {
        o.store.rows = rows;
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

  it("enters only results of repeated texts in results_job_text; migration 0008 marks those of jobs still running", async () => {
    const site = await createSite({ target_languages: [{ code: "de" }] });
    const c = client(site.key);
    const units = Array.from({ length: 8 }, (_, i) =>
      unit(`post:${i}`, [
        { key: "t", text: `Heading ${i % 2}` },
        { key: "b", text: `Paragraph ${i}` },
      ]),
    );
    expect((await c.put("/v1/units/batch", { units })).status).toBe(200);
    expect((await c.post("/v1/jobs", { type: "delta", confirm: true })).status).toBe(202);
    const rows = await runInDurableObject(stubOf(site.siteId), async (o: SiteObject) => {
      await runJobs(runnerDeps(o, { engineFor: () => fakeEngine() }), { budgetMs: 60_000, sliceItems: 3 });
      const read = () =>
        o.store.all<{ kind: string; repeated: number; n: number }>(
          "SELECT substr(s.text, 1, 7) AS kind, r.repeated, count(*) AS n FROM results r JOIN segments s ON s.id = r.segment_id GROUP BY 1, 2 ORDER BY 1, 2",
        );
      const after = read();
      // As a site was before 0008, with the job still running: the migration's UPDATE marks all of its results.
      o.store.run("UPDATE results SET repeated = 0");
      o.store.run("UPDATE jobs SET status = 'running'");
      const update = (siteMigrations.migrations as Record<string, string>).m0008
        .split("--> statement-breakpoint")
        .map((statement) => statement.replace(/^(\s*--.*\n)+/, "").trim())
        .find((statement) => statement.startsWith("UPDATE"))!;
      o.store.run(update);
      return { after, migrated: read() };
    });
    // Each heading's text is on four segments; each paragraph's on one, so no later item of the job can reuse it.
    expect(rows.after).toEqual([
      { kind: "Heading", repeated: 1, n: 8 },
      { kind: "Paragra", repeated: 0, n: 8 },
    ]);
    expect(rows.migrated).toEqual([
      { kind: "Heading", repeated: 1, n: 8 },
      { kind: "Paragra", repeated: 1, n: 8 },
    ]);
  });
});
