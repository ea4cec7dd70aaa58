/**
 * GET /v1/units stays a keyset walk of an index whatever its filters (docs/decisions.md,
 * "The OpenAPI document, the client and the connector kit"): every query `unitsWithWork` runs is read back with EXPLAIN QUERY PLAN, and none
 * may scan a table whole or sort in a temporary B-tree.
 */
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { WORK_STATES } from "../../src/api/schemas";
import type { SiteSettings } from "../../src/control/sites.control";
import type { SiteObject } from "../../src/site/object";
import { unitsWithWork } from "../../src/site/sync/status";
import { client, createSite, unit } from "../helpers/api";
import { stubOf } from "../helpers/site";

/** The plan of every query one `unitsWithWork` call makes. */
async function plans(siteId: number, query: Parameters<typeof unitsWithWork>[3]) {
  return runInDurableObject(stubOf(siteId), (o: SiteObject) => {
    const settings = o.store.getMeta<SiteSettings>("settings")!;
    const seen: { sql: string; args: unknown[] }[] = [];
    const all = o.store.all.bind(o.store);
    o.store.all = ((sql: string, ...args: unknown[]) => {
      seen.push({ sql, args });
      return all(sql, ...args);
    }) as typeof o.store.all;
    try {
      unitsWithWork(o.store, settings, { dashboardUrl: "", siteId }, query);
    } finally {
      o.store.all = all;
    }
    return seen.map(({ sql, args }) => ({ sql, plan: all<{ detail: string }>(`EXPLAIN QUERY PLAN ${sql}`, ...args).map((r) => r.detail) }));
  });
}

describe("GET /v1/units query plans", () => {
  it("walk an index for every combination of state and language, without a full scan or a sort", async () => {
    const site = await createSite();
    const c = client(site.key);
    await c.put("/v1/units/batch", { units: Array.from({ length: 30 }, (_, i) => unit(`post:${i}`, [{ key: "t", text: `Text ${i}` }])) });
    const fullScan = /^SCAN (units|u|c|unit_counts|segments|translations)\b/;
    for (const state of [undefined, ...WORK_STATES])
      for (const language of [undefined, "de"]) {
        const queries = await plans(site.siteId, { prefix: "", state, language, limit: 10 });
        expect(queries.length).toBeGreaterThan(0);
        for (const { sql, plan } of queries) {
          const where = `state=${state} language=${language}: ${sql.replace(/\s+/g, " ").slice(0, 80)}… → ${plan.join(" | ")}`;
          expect(
            plan.some((line) => fullScan.test(line)),
            where,
          ).toBe(false);
          expect(
            plan.some((line) => line.includes("TEMP B-TREE")),
            where,
          ).toBe(false);
        }
      }
  });
});
