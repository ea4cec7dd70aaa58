// GET /admin/v1/organizations/{org_id}/usage?month=YYYY-MM: what the operator invoices from.
// The ledger rows are written as metering writes them (one per billed slice), so the figures
// are exact: per-day figures add up to the month, per-site figures too, pro allowances are
// per site and pooled plans share one, and the overage is priced per plan.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { admin, createSite } from "../helpers/api";

let jobIds = 1;

/** Ledger rows as `recordUsage` writes them: month key and full timestamp. */
async function bill(orgId: number, siteId: number, rows: [at: string, characters: number][]) {
  await env.DB.batch(
    rows.map(([at, characters], i) =>
      env.DB.prepare("INSERT INTO usage_ledger (organization_id, site_id, job_id, slice, characters, month, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)").bind(
        orgId,
        siteId,
        jobIds++,
        i,
        characters,
        `${at.slice(0, 7)}-01`,
        at,
      ),
    ),
  );
}

const usage = async (orgId: number, month: string) => admin("GET", `/admin/v1/organizations/${orgId}/usage?month=${month}`);
const sum = (list: { used_characters: number }[]) => list.reduce((a, d) => a + d.used_characters, 0);

describe("organization usage", () => {
  it("a pooled plan (agency): days and sites add up to the month, other months and organizations stay out, overage priced at 1,500 cents per million", async () => {
    const a = await createSite({ plan: "agency", name: "alpha" });
    const b = await createSite({ orgId: a.orgId, name: "beta" });
    const idle = await createSite({ orgId: a.orgId, name: "idle" });
    const stranger = await createSite();
    await bill(a.orgId, a.siteId, [
      ["2026-03-01T00:00:00.000Z", 1_000_000],
      ["2026-03-15T08:00:00.000Z", 400_000],
      ["2026-03-15T21:30:00.000Z", 300_000],
      ["2026-03-31T23:59:59.999Z", 123_457],
      ["2026-04-01T00:00:00.000Z", 9_999_999],
      ["2026-02-28T23:59:59.999Z", 7_777_777],
    ]);
    await bill(a.orgId, b.siteId, [["2026-03-15T12:00:00.000Z", 500_000]]);
    await bill(stranger.orgId, stranger.siteId, [["2026-03-15T12:00:00.000Z", 8_888_888]]);

    const res = await usage(a.orgId, "2026-03");
    expect(res.status).toBe(200);
    const used = 1_000_000 + 400_000 + 300_000 + 123_457 + 500_000;
    expect(res.body).toMatchObject({
      month: "2026-03",
      plan: "agency",
      included_characters: 2_000_000,
      used_characters: used,
      overage_characters: used - 2_000_000,
      overage_cents: Math.ceil(((used - 2_000_000) * 1_500) / 1_000_000),
      currency: "usd",
    });
    expect(res.body.overage_cents).toBe(486); // 323,457 characters × 1,500 / 1,000,000 = 485.19, rounded up
    expect(res.body.sites).toEqual([
      { site_id: a.siteId, name: "alpha", used_characters: 1_823_457 },
      { site_id: b.siteId, name: "beta", used_characters: 500_000 },
      { site_id: idle.siteId, name: "idle", used_characters: 0 },
    ]);
    expect(res.body.days).toHaveLength(31);
    expect(res.body.days[0]).toEqual({ date: "2026-03-01", used_characters: 1_000_000 });
    expect(res.body.days[14]).toEqual({ date: "2026-03-15", used_characters: 1_200_000 });
    expect(res.body.days[30]).toEqual({ date: "2026-03-31", used_characters: 123_457 });
    expect(sum(res.body.days)).toBe(res.body.used_characters);
    expect(sum(res.body.sites)).toBe(res.body.used_characters);

    // February 2026 has 28 days; the row of its last millisecond is there
    const feb = (await usage(a.orgId, "2026-02")).body;
    expect(feb.days.map((d: any) => d.date).at(-1)).toBe("2026-02-28");
    expect(feb).toMatchObject({ used_characters: 7_777_777, overage_characters: 5_777_777 });
    expect(sum(feb.days)).toBe(7_777_777);
    // a leap year's February has 29
    expect((await usage(a.orgId, "2028-02")).body.days).toHaveLength(29);
  });

  it("pro: an allowance of 250,000 per covered site, and one site's overage is not offset by another's spare", async () => {
    const a = await createSite({ plan: "pro" });
    const b = await createSite({ orgId: a.orgId });
    expect((await admin("PUT", `/admin/v1/organizations/${a.orgId}/subscription`, { plan: "pro", status: "active", site_ids: [a.siteId, b.siteId] })).status).toBe(200);
    await bill(a.orgId, a.siteId, [
      ["2026-05-02T10:00:00.000Z", 200_000],
      ["2026-05-20T10:00:00.000Z", 100_000],
    ]);
    await bill(a.orgId, b.siteId, [["2026-05-03T10:00:00.000Z", 100_000]]);
    const body = (await usage(a.orgId, "2026-05")).body;
    expect(body).toMatchObject({ plan: "pro", included_characters: 500_000, used_characters: 400_000, overage_characters: 50_000, overage_cents: 100 });
    expect(sum(body.days)).toBe(400_000);
  });

  it("a custom included volume overrides the plan's; scale is not metered; no subscription has no plan", async () => {
    const growth = await createSite({ plan: "growth", included_characters: 1_000 });
    await bill(growth.orgId, growth.siteId, [["2026-06-10T10:00:00.000Z", 1_001]]);
    expect((await usage(growth.orgId, "2026-06")).body).toMatchObject({ plan: "growth", included_characters: 1_000, overage_characters: 1, overage_cents: 1 });

    const scale = await createSite({ plan: "scale" });
    await bill(scale.orgId, scale.siteId, [["2026-06-10T10:00:00.000Z", 50_000_000]]);
    expect((await usage(scale.orgId, "2026-06")).body).toMatchObject({
      plan: "scale",
      included_characters: null,
      used_characters: 50_000_000,
      overage_characters: 0,
      overage_cents: 0,
    });

    const none = await createSite({ plan: null });
    const body = (await usage(none.orgId, "2026-06")).body;
    expect(body).toMatchObject({ plan: null, included_characters: null, used_characters: 0, overage_characters: 0, overage_cents: 0 });
    expect(body.days).toHaveLength(30);
  });

  it("an erased site's figures stay in its organization's month, without its name", async () => {
    const a = await createSite({ plan: "agency", name: "gone" });
    const b = await createSite({ orgId: a.orgId, name: "kept" });
    await bill(a.orgId, a.siteId, [["2026-07-04T10:00:00.000Z", 1_234]]);
    await bill(a.orgId, b.siteId, [["2026-07-05T10:00:00.000Z", 10]]);
    const before = (await usage(a.orgId, "2026-07")).body;
    expect((await admin("DELETE", `/admin/v1/sites/${a.siteId}`)).status).toBe(204);
    const after = (await usage(a.orgId, "2026-07")).body;
    expect(after.sites).toEqual([
      { site_id: a.siteId, name: null, used_characters: 1_234 },
      { site_id: b.siteId, name: "kept", used_characters: 10 },
    ]);
    expect({ ...after, sites: undefined }).toEqual({ ...before, sites: undefined });
  });

  it("unknown organization 404, malformed month 422 naming the field", async () => {
    expect((await usage(99_999_999, "2026-01")).status).toBe(404);
    const site = await createSite();
    for (const month of ["2026-13", "2026-1", "26-01", "2026-01-01", ""]) {
      const res = await usage(site.orgId, month);
      expect(res.status, month).toBe(422);
      expect(res.body.detail, month).toMatch(/^month /);
    }
    const missing = await admin("GET", `/admin/v1/organizations/${site.orgId}/usage`);
    expect(missing.status).toBe(422);
    expect(missing.body.detail).toMatch(/month/);
  });
});
