/**
 * Month close: by hand (POST /admin/v1/billing/close) and by the Cron Trigger (the Worker's
 * `scheduled`). Each organization's overage is the usage endpoint's figure, recorded once;
 * Stripe organizations get one invoice item with the key overage:<org>:<YYYY-MM>.
 */
import { createExecutionContext, createScheduledController, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import worker from "../../src/index";
import { admin } from "../helpers/api";
import { deliver, meter, organization } from "../helpers/billing";
import { setClock } from "../helpers/seams";
import { fakeStripe, form, PRICES, signedEvent, subscription } from "../helpers/stripe";

afterEach(() => setClock(undefined));

async function stripeOrganization(stripe: ReturnType<typeof fakeStripe>, plan: keyof typeof PRICES = "agency") {
  const org = await organization(1);
  const sub = subscription({ organizationId: org.orgId, customer: `cus_close_${org.orgId}`, price: PRICES[plan] });
  stripe.subscriptions.set(sub.id, sub);
  const e = await signedEvent("customer.subscription.created", sub);
  expect((await deliver(e.payload, e.signature)).status).toBe(200);
  return { ...org, customer: sub.customer as string };
}

const closeRow = async (orgId: number, month: string) =>
  env.DB.prepare("SELECT * FROM billing_closes WHERE organization_id = ? AND month = ?").bind(orgId, month).first<Record<string, unknown>>();

async function runCron(at: string) {
  const ctx = createExecutionContext();
  await worker.scheduled!(createScheduledController({ scheduledTime: new Date(at), cron: "20 0 * * *" }), env, ctx);
  await waitOnExecutionContext(ctx);
}

describe("month close by hand", () => {
  it("bills a Stripe organization's overage once, with the usage endpoint's figures and the (org, month) idempotency key", async () => {
    const stripe = fakeStripe();
    const org = await stripeOrganization(stripe, "agency");
    await meter(org.orgId, org.sites[0].siteId, "2026-09", 2_750_000); // 750,000 beyond agency's 2,000,000
    setClock(new Date("2026-10-02T08:00:00Z"));

    const usage = (await admin("GET", `/admin/v1/organizations/${org.orgId}/usage?month=2026-09`)).body;
    expect(usage).toMatchObject({ overage_characters: 750_000, overage_cents: 1125 });

    const first = await admin("POST", "/admin/v1/billing/close?month=2026-09");
    expect(first.status).toBe(200);
    const mine = first.body.closes.find((c: { organization_id: number }) => c.organization_id === org.orgId);
    expect(mine).toMatchObject({
      month: "2026-09",
      plan: "agency",
      used_characters: usage.used_characters,
      overage_characters: usage.overage_characters,
      overage_cents: usage.overage_cents,
      provider: "stripe",
      invoice_item_id: expect.stringMatching(/^ii_/),
    });
    const posts = stripe.calls("POST", "/v1/invoiceitems");
    expect(posts).toHaveLength(1);
    expect(posts[0].headers.get("idempotency-key")).toBe(`overage:${org.orgId}:2026-09`);
    expect(form(posts[0])).toMatchObject({ customer: org.customer, amount: "1125", currency: "usd", "metadata[organization_id]": String(org.orgId), "metadata[month]": "2026-09" });

    // Twice: nothing more is billed, the same close is answered.
    const second = await admin("POST", "/admin/v1/billing/close?month=2026-09");
    expect(second.body.closes.find((c: { organization_id: number }) => c.organization_id === org.orgId)).toEqual(mine);
    expect(stripe.calls("POST", "/v1/invoiceitems")).toHaveLength(1);
    const listed = await admin("GET", "/admin/v1/billing/closes?month=2026-09");
    expect(listed.body.closes).toContainEqual(mine);
  });

  it("records a manual organization's overage for the operator without calling Stripe; no overage, no invoice item", async () => {
    const stripe = fakeStripe();
    const manual = await organization(1);
    await admin("PUT", `/admin/v1/organizations/${manual.orgId}/subscription`, { plan: "pro", status: "active", site_ids: [manual.sites[0].siteId] });
    await meter(manual.orgId, manual.sites[0].siteId, "2026-08", 300_000);
    const under = await stripeOrganization(stripe, "growth");
    await meter(under.orgId, under.sites[0].siteId, "2026-08", 1_000);
    setClock(new Date("2026-09-05T00:00:00Z"));

    const res = await admin("POST", "/admin/v1/billing/close?month=2026-08");
    expect(res.body.closes).toContainEqual(
      expect.objectContaining({ organization_id: manual.orgId, provider: "manual", overage_characters: 50_000, overage_cents: 100, invoice_item_id: null }),
    );
    expect(res.body.closes).toContainEqual(expect.objectContaining({ organization_id: under.orgId, provider: "stripe", overage_cents: 0, invoice_item_id: null }));
    expect(stripe.calls("POST", "/v1/invoiceitems")).toHaveLength(0);
  });

  it("refuses a month that has not ended", async () => {
    setClock(new Date("2026-11-20T00:00:00Z"));
    const res = await admin("POST", "/admin/v1/billing/close?month=2026-11");
    expect(res.status).toBe(422);
    expect(res.body.detail).toMatch(/not ended/);
    expect((await admin("POST", "/admin/v1/billing/close?month=2026-13")).status).toBe(422);
  });
});

describe("month close by the Cron Trigger", () => {
  it("closes every ended month not closed yet, and is harmless when run again", async () => {
    const stripe = fakeStripe();
    const org = await stripeOrganization(stripe, "agency");
    await meter(org.orgId, org.sites[0].siteId, "2026-05", 2_100_000);
    await meter(org.orgId, org.sites[0].siteId, "2026-06", 2_200_000);
    await runCron("2026-07-01T00:20:00Z");
    expect(await closeRow(org.orgId, "2026-05")).toMatchObject({ overage_characters: 100_000, overage_cents: 150, provider: "stripe" });
    expect(await closeRow(org.orgId, "2026-06")).toMatchObject({ overage_characters: 200_000, overage_cents: 300, provider: "stripe" });
    const keys = stripe.calls("POST", "/v1/invoiceitems").map((r) => r.headers.get("idempotency-key"));
    expect(keys).toEqual(expect.arrayContaining([`overage:${org.orgId}:2026-05`, `overage:${org.orgId}:2026-06`]));

    await runCron("2026-07-02T00:20:00Z");
    expect(stripe.calls("POST", "/v1/invoiceitems").filter((r) => r.headers.get("idempotency-key")?.startsWith(`overage:${org.orgId}:`))).toHaveLength(2);
  });

  it("a Stripe outage leaves the organization open; the next run bills it, once", async () => {
    const stripe = fakeStripe();
    const org = await stripeOrganization(stripe, "agency");
    await meter(org.orgId, org.sites[0].siteId, "2026-03", 3_000_000);
    stripe.outage = true;
    await runCron("2026-04-01T00:20:00Z");
    expect(await closeRow(org.orgId, "2026-03")).toBeNull();
    expect(stripe.invoiceItems.size).toBe(0);
    const byHand = await admin("POST", "/admin/v1/billing/close?month=2026-03");
    expect(byHand.body.pending).toContainEqual({ organization_id: org.orgId, detail: expect.stringMatching(/Stripe/) });

    stripe.outage = false;
    await runCron("2026-04-02T00:20:00Z");
    expect(await closeRow(org.orgId, "2026-03")).toMatchObject({ overage_characters: 1_000_000, overage_cents: 1500, invoice_item_id: expect.stringMatching(/^ii_/) });
    const attempts = stripe.calls("POST", "/v1/invoiceitems").filter((r) => r.headers.get("idempotency-key") === `overage:${org.orgId}:2026-03`);
    expect(attempts.length).toBeGreaterThanOrEqual(3); // two failed runs, then the one that landed
    expect([...stripe.invoiceItems.keys()].filter((k) => k === `overage:${org.orgId}:2026-03`)).toHaveLength(1);
  });

  it("an item Stripe created whose answer was lost is found by its metadata on a later run (past Stripe's 24-hour idempotency window)", async () => {
    const stripe = fakeStripe();
    const org = await stripeOrganization(stripe, "agency");
    await meter(org.orgId, org.sites[0].siteId, "2026-01", 2_500_000);
    stripe.loseAnswer = true;
    await runCron("2026-02-01T00:20:00Z");
    expect(await closeRow(org.orgId, "2026-01")).toBeNull();
    expect(stripe.invoiceItems.size).toBe(1); // Stripe has it; the service does not know
    // Days later Stripe no longer remembers the key: a second create would make a second item.
    stripe.loseAnswer = false;
    const [[key, item]] = [...stripe.invoiceItems];
    stripe.invoiceItems.delete(key);
    stripe.invoiceItems.set("forgotten-key", item);
    await runCron("2026-02-03T00:20:00Z");
    expect(await closeRow(org.orgId, "2026-01")).toMatchObject({ invoice_item_id: item.id, overage_cents: 750 });
    expect(stripe.invoiceItems.size).toBe(1);
  });
});
