/**
 * Billing with the embedded default provider, `manual` (no Stripe secrets, as `npm run dev`):
 * the Billing page shows the operator's subscription and who to contact, offers no Stripe
 * action, and month close still records each organization's overage. Nothing reaches the
 * network (an unmocked request fails the test).
 */
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import { admin, createSite } from "../helpers/api";
import { dash, person } from "../helpers/dashboard";
import { mockFetch } from "../helpers/http";
import { setClock } from "../helpers/seams";

afterEach(() => setClock(undefined));

describe("billing without Stripe", () => {
  it("the Billing page shows plan, covered sites and usage, and says the operator manages it", async () => {
    const net = mockFetch([]);
    const site = await createSite({ plan: "agency", name: "Manual blog" });
    const owner = await person(site.orgId, "owner");
    const page = await dash("GET", `/dashboard/organizations/${site.orgId}/billing`, { cookie: owner.cookie });
    expect(page.status).toBe(200);
    expect(page.html).toMatch(/id="plan">agency</);
    expect(page.html).toContain("operator manages this subscription");
    expect(page.html).toContain("Manual blog");
    expect(page.html).toContain("2,000,000");
    expect(page.html).not.toContain("Choose a plan");
    const refused = await dash("POST", `/dashboard/organizations/${site.orgId}/billing/checkout`, { cookie: owner.cookie, form: { plan: "pro" } });
    expect(refused.status).toBe(409);
    expect(net.requests).toHaveLength(0);
  });

  it("the Stripe webhook endpoint does not exist (404) and changes nothing", async () => {
    const res = await (await import("cloudflare:workers")).exports.default.fetch(
      new Request("https://api.test/billing/stripe/webhook", { method: "POST", headers: { "stripe-signature": "t=1,v1=00" }, body: "{}" }),
    );
    expect(res.status).toBe(404);
  });

  it("month close records the operator's figures, once", async () => {
    const net = mockFetch([]);
    const site = await createSite({ plan: "pro" });
    await env.DB.prepare(
      "INSERT INTO usage_ledger (organization_id, site_id, job_id, slice, characters, month, created_at) VALUES (?, ?, 1, 1, 400000, '2026-07-01', '2026-07-10T00:00:00Z')",
    )
      .bind(site.orgId, site.siteId)
      .run();
    setClock(new Date("2026-08-03T00:00:00Z"));
    const first = await admin("POST", "/admin/v1/billing/close?month=2026-07");
    expect(first.status).toBe(200);
    const mine = first.body.closes.filter((c: { organization_id: number }) => c.organization_id === site.orgId);
    expect(mine).toEqual([
      expect.objectContaining({ provider: "manual", plan: "pro", used_characters: 400_000, overage_characters: 150_000, overage_cents: 300, invoice_item_id: null }),
    ]);
    await admin("POST", "/admin/v1/billing/close?month=2026-07");
    const listed = (await admin("GET", "/admin/v1/billing/closes?month=2026-07")).body.closes.filter((c: { organization_id: number }) => c.organization_id === site.orgId);
    expect(listed).toEqual(mine);
    expect(net.requests).toHaveLength(0);
  });
});
