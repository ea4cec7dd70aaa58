/**
 * Credits (docs/runbook.md "A hot site or a runaway job"): `POST /admin/v1/organizations/{org_id}/credits`
 * {month, characters, reason}, audited with the operator's name; shown in the organization's usage
 * (the admin endpoint and the dashboard's Usage page); taken off the month's overage at the close,
 * the Stripe invoice item included (the Stripe HTTP fake); a closed month refused with 409.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { admin } from "../helpers/api";
import { deliver, meter, organization } from "../helpers/billing";
import { dash, person } from "../helpers/dashboard";
import { operator } from "../helpers/operator";
import { setClock } from "../helpers/seams";
import { fakeStripe, form, PRICES, signedEvent, subscription } from "../helpers/stripe";

const REASON = "The job cancelled on 22 September retranslated the whole site by mistake: its characters are credited.";

async function stripeOrganization(stripe: ReturnType<typeof fakeStripe>) {
  const org = await organization(1);
  const sub = subscription({ organizationId: org.orgId, customer: `cus_credit_${org.orgId}`, price: PRICES.agency });
  stripe.subscriptions.set(sub.id, sub);
  const e = await signedEvent("customer.subscription.created", sub);
  expect((await deliver(e.payload, e.signature)).status).toBe(200);
  return { ...org, customer: sub.customer as string };
}

describe("credits", () => {
  it("come off the month's overage: in the usage, at the close and on the Stripe invoice item; audited with the operator's name", async () => {
    const stripe = fakeStripe();
    const org = await stripeOrganization(stripe);
    // agency includes 2,000,000: 2,750,000 used is 750,000 over; a runaway job did 500,000 of them.
    await meter(org.orgId, org.sites[0].siteId, "2026-09", 2_750_000);
    setClock(new Date("2026-09-28T10:00:00Z"));
    try {
      const alice = operator("alice");
      const granted = await alice("POST", `/admin/v1/organizations/${org.orgId}/credits`, { month: "2026-09", characters: 500_000, reason: ` ${REASON} ` });
      expect(granted.status).toBe(201);
      expect(granted.body).toEqual({
        id: expect.any(Number),
        organization_id: org.orgId,
        month: "2026-09",
        characters: 500_000,
        reason: REASON,
        created_by: "admin:alice",
        created_at: "2026-09-28T10:00:00.000Z",
      });
      const audit = (await admin("GET", `/admin/v1/audit?organization_id=${org.orgId}`)).body.items;
      expect(audit[0]).toMatchObject({
        actor: "admin:alice",
        action: "organization.credit",
        target: `organization:${org.orgId}`,
        detail: { month: "2026-09", characters: 500_000, reason: REASON },
      });

      const usage = (await admin("GET", `/admin/v1/organizations/${org.orgId}/usage?month=2026-09`)).body;
      expect(usage).toMatchObject({
        used_characters: 2_750_000,
        credited_characters: 500_000,
        overage_characters: 250_000,
        overage_cents: 375,
        credits: [{ id: granted.body.id, characters: 500_000, reason: REASON, created_at: "2026-09-28T10:00:00.000Z" }],
      });
      // Another month is not touched.
      expect((await admin("GET", `/admin/v1/organizations/${org.orgId}/usage?month=2026-08`)).body).toMatchObject({ credited_characters: 0, credits: [] });

      // The Usage page shows the credit and the overage after it.
      const { cookie } = await person(org.orgId, "owner");
      const page = await dash("GET", `/dashboard/organizations/${org.orgId}/usage?month=2026-09`, { cookie });
      expect(page.status).toBe(200);
      expect(page.html).toContain("after 500,000 credited");
      expect(page.html).toContain(REASON);

      // The close bills what is left, and records the credit it took off.
      setClock(new Date("2026-10-01T00:20:00Z"));
      const closed = await admin("POST", "/admin/v1/billing/close?month=2026-09");
      expect(closed.status).toBe(200);
      expect(closed.body.closes.find((c: { organization_id: number }) => c.organization_id === org.orgId)).toMatchObject({
        used_characters: 2_750_000,
        overage_characters: 250_000,
        overage_cents: 375,
        credited_characters: 500_000,
        provider: "stripe",
        invoice_item_id: expect.stringMatching(/^ii_/),
      });
      const [item] = stripe.calls("POST", "/v1/invoiceitems");
      expect(form(item)).toMatchObject({
        customer: org.customer,
        amount: "375",
        "metadata[overage_characters]": "250000",
        "metadata[credited_characters]": "500000",
        description: "Translation overage 2026-09: 250,000 characters beyond the included volume (after 500,000 characters credited)",
      });
      expect(
        (await admin("GET", "/admin/v1/billing/discrepancies?month=2026-09")).body.discrepancies.filter((d: { organization_id: number }) => d.organization_id === org.orgId),
      ).toEqual([]);

      // The month is closed now: a credit for it is refused with where to refund instead; nothing is recorded.
      const late = await admin("POST", `/admin/v1/organizations/${org.orgId}/credits`, { month: "2026-09", characters: 1_000, reason: "late" });
      expect(late.status).toBe(409);
      expect(late.body.detail).toContain(`2026-09 is closed for organization ${org.orgId}`);
      expect(late.body.detail).toMatch(/its overage went to Stripe as invoice item ii_\w+: refund it there/);
      expect(late.body.detail).toContain("or credit the current month (2026-10) instead");
      expect((await admin("GET", `/admin/v1/organizations/${org.orgId}/usage?month=2026-09`)).body.credits).toHaveLength(1);
    } finally {
      setClock(undefined);
    }
  });

  it("never takes the overage below zero, and no overage left means no invoice item", async () => {
    const stripe = fakeStripe();
    const org = await stripeOrganization(stripe);
    await meter(org.orgId, org.sites[0].siteId, "2026-07", 2_100_000); // 100,000 over
    setClock(new Date("2026-07-30T12:00:00Z"));
    try {
      expect((await admin("POST", `/admin/v1/organizations/${org.orgId}/credits`, { month: "2026-07", characters: 1_800_000, reason: REASON })).status).toBe(201);
      expect((await admin("GET", `/admin/v1/organizations/${org.orgId}/usage?month=2026-07`)).body).toMatchObject({
        credited_characters: 1_800_000,
        overage_characters: 0,
        overage_cents: 0,
      });
      setClock(new Date("2026-08-02T00:00:00Z"));
      const before = stripe.calls("POST", "/v1/invoiceitems").length;
      const closed = await admin("POST", "/admin/v1/billing/close?month=2026-07");
      expect(closed.body.closes.find((c: { organization_id: number }) => c.organization_id === org.orgId)).toMatchObject({
        overage_characters: 0,
        credited_characters: 1_800_000,
        invoice_item_id: null,
      });
      expect(stripe.calls("POST", "/v1/invoiceitems")).toHaveLength(before);
      const refused = await admin("POST", `/admin/v1/organizations/${org.orgId}/credits`, { month: "2026-07", characters: 5, reason: "again" });
      expect(refused.status).toBe(409);
      expect(refused.body.detail).toContain("it had no overage to reduce");
    } finally {
      setClock(undefined);
    }
  });

  it("422 for a month after the current one and for each field's bounds; 404 for an unknown organization", async () => {
    const org = await organization(1);
    setClock(new Date("2026-11-10T00:00:00Z"));
    try {
      const credit = (body: unknown, id = org.orgId) => admin("POST", `/admin/v1/organizations/${id}/credits`, body);
      const future = await credit({ month: "2026-12", characters: 10, reason: "x" });
      expect(future.status).toBe(422);
      expect(future.body.detail).toBe("month: must not be after the current month (2026-11); a credit reduces a month's overage when that month is closed");
      for (const [body, field] of [
        [{ month: "2026-13", characters: 10, reason: "x" }, "month"],
        [{ month: "2026-11", characters: 0, reason: "x" }, "characters"],
        [{ month: "2026-11", characters: 1.5, reason: "x" }, "characters"],
        [{ month: "2026-11", characters: 2_000_000_000, reason: "x" }, "characters"],
        [{ month: "2026-11", characters: 10, reason: "   " }, "reason"],
        [{ month: "2026-11", characters: 10, reason: "r".repeat(301) }, "reason"],
        [{ month: "2026-11", characters: 10 }, "reason"],
      ] as const) {
        const res = await credit(body);
        expect(res.status, JSON.stringify(body)).toBe(422);
        expect(res.body.detail, JSON.stringify(body)).toMatch(new RegExp(`^${field} `));
      }
      expect((await credit({ month: "2026-11", characters: 10, reason: "x" }, 987654321)).status).toBe(404);
      // The current month is fine (its close is still to come).
      expect((await credit({ month: "2026-11", characters: 10, reason: "an incident" })).status).toBe(201);
    } finally {
      setClock(undefined);
    }
  });

  it("an erased organization's credits stay as billing records without their reason", async () => {
    const org = await organization(1);
    const granted = await admin("POST", `/admin/v1/organizations/${org.orgId}/credits`, {
      month: new Date().toISOString().slice(0, 7),
      characters: 42,
      reason: "Acme's incident of today",
    });
    expect(granted.status).toBe(201);
    expect((await admin("DELETE", `/admin/v1/organizations/${org.orgId}`)).status).toBe(204);
    const row = await env.DB.prepare("SELECT organization_id, month, characters, reason FROM credits WHERE id = ?").bind(granted.body.id).first();
    expect(row).toEqual({ organization_id: org.orgId, month: granted.body.month, characters: 42, reason: "" });
  });
});
