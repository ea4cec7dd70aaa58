/**
 * Stripe webhooks at POST /billing/stripe/webhook: verified on the raw body with the SDK,
 * applied once, in any order ending in Stripe's current state; the API's 402 codes follow at once.
 */
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import { admin, client, unit } from "../helpers/api";
import { auditActions, contract, covered, deliver, organization } from "../helpers/billing";
import { setClock } from "../helpers/seams";
import { fakeStripe, PRICES, signedEvent, subscription } from "../helpers/stripe";

afterEach(() => setClock(undefined));

const eventsStored = async () => (await env.DB.prepare("SELECT count(*) AS n FROM stripe_events").first<{ n: number }>())!.n;

/** A checkout completed for the organization: the subscription exists in (fake) Stripe, the event names it. */
async function subscribeThroughCheckout(stripe: ReturnType<typeof fakeStripe>, orgId: number, opts: Parameters<typeof subscription>[0] = {}) {
  const sub = subscription({ organizationId: orgId, customer: `cus_${orgId}`, ...opts });
  stripe.subscriptions.set(sub.id, sub);
  const { payload, signature, event } = await signedEvent("checkout.session.completed", {
    id: `cs_test_${orgId}`,
    object: "checkout.session",
    mode: "subscription",
    client_reference_id: String(orgId),
    customer: sub.customer,
    subscription: sub.id,
    status: "complete",
  });
  const res = await deliver(payload, signature);
  expect(res).toEqual({ status: 200, body: { received: true, id: event.id, type: "checkout.session.completed", outcome: "applied" } });
  return sub;
}

describe("signatures", () => {
  it("refuses unsigned, wrongly signed and stale deliveries with 400, and changes nothing", async () => {
    const stripe = fakeStripe();
    const { orgId } = await organization(1);
    const sub = subscription({ organizationId: orgId });
    stripe.subscriptions.set(sub.id, sub);
    const good = await signedEvent("customer.subscription.created", sub);
    const before = await eventsStored();

    const unsigned = await deliver(good.payload);
    expect(unsigned.status).toBe(400);
    expect(unsigned.body.detail).toMatch(/signature/i);

    const wrongSecret = await signedEvent("customer.subscription.created", sub, { secret: "whsec_someone_else" });
    expect((await deliver(wrongSecret.payload, wrongSecret.signature)).status).toBe(400);

    // A body changed after signing.
    expect((await deliver(good.payload.replace('"active"', '"canceled"'), good.signature)).status).toBe(400);

    // Signed ten minutes ago: beyond the SDK's five-minute tolerance (a replay of a captured delivery).
    const stale = await signedEvent("customer.subscription.created", sub, { timestamp: Math.floor(Date.now() / 1000) - 600 });
    const staleRes = await deliver(stale.payload, stale.signature);
    expect(staleRes.status).toBe(400);
    expect(staleRes.body.detail).toMatch(/tolerance|timestamp/i);

    expect(await contract(orgId)).toBeNull();
    expect(await eventsStored()).toBe(before);
    expect(stripe.requests).toHaveLength(0);
  });
});

describe("applying events", () => {
  it("checkout.session.completed subscribes the organization: plan, status, sites oldest first, audited as stripe", async () => {
    const stripe = fakeStripe();
    const { orgId, sites } = await organization(3);
    await subscribeThroughCheckout(stripe, orgId, { price: PRICES.agency });
    expect(await contract(orgId)).toEqual({ plan: "agency", status: "active", provider: "stripe", site_limit: null, past_due_since: null });
    expect(await covered(orgId)).toEqual(sites.map((s) => s.siteId));
    expect(await auditActions(orgId)).toContainEqual(expect.objectContaining({ actor: "stripe", action: "subscription.sync" }));
    // The subscription was read from Stripe, not from the event.
    expect(stripe.calls("GET", /^\/v1\/subscriptions\/sub_/)).toHaveLength(1);
    const job = await client(sites[0].key).put("/v1/units", unit("post:1", [{ key: "a", text: "Hello" }]));
    expect(job.status).toBe(200);
    expect((await client(sites[0].key).post("/v1/jobs", {})).status).toBe(202);
  });

  it("a pro subscription covers as many sites as its quantity, oldest first", async () => {
    const stripe = fakeStripe();
    const { orgId, sites } = await organization(3);
    await subscribeThroughCheckout(stripe, orgId, { price: PRICES.pro, quantity: 2 });
    expect(await contract(orgId)).toMatchObject({ plan: "pro", site_limit: 2 });
    expect(await covered(orgId)).toEqual([sites[0].siteId, sites[1].siteId]);
    await client(sites[2].key).put("/v1/units", unit("post:1", [{ key: "a", text: "Hello" }]));
    const refused = await client(sites[2].key).post("/v1/jobs", {});
    expect(refused.status).toBe(402);
    expect(refused.body.code).toBe("site_not_covered");
  });

  it("a replayed event is applied once: the second delivery reads nothing from Stripe and changes nothing", async () => {
    const stripe = fakeStripe();
    const { orgId } = await organization(1);
    const sub = subscription({ organizationId: orgId });
    stripe.subscriptions.set(sub.id, sub);
    const delivery = await signedEvent("customer.subscription.updated", sub);
    expect((await deliver(delivery.payload, delivery.signature)).body.outcome).toBe("applied");
    // Meanwhile the subscription was canceled in Stripe; a replay of the old event must not re-read and re-apply.
    stripe.subscriptions.set(sub.id, { ...sub, status: "canceled" });
    const replay = await deliver(delivery.payload, delivery.signature);
    expect(replay).toEqual({ status: 200, body: expect.objectContaining({ outcome: "duplicate" }) });
    expect(stripe.calls("GET", `/v1/subscriptions/${sub.id}`)).toHaveLength(1);
    expect(await contract(orgId)).toMatchObject({ status: "active" });
  });

  it("out of order: an older 'active' event delivered after the cancellation leaves the subscription canceled", async () => {
    const stripe = fakeStripe();
    const { orgId, sites } = await organization(1);
    const sub = await subscribeThroughCheckout(stripe, orgId);
    const older = await signedEvent("customer.subscription.updated", { ...sub, status: "active" }, { created: 1_793_500_000 });
    // Stripe's current state: canceled. The deletion event arrives first, the older update after it.
    const canceled = { ...sub, status: "canceled" as const };
    stripe.subscriptions.set(sub.id, canceled);
    const deleted = await signedEvent("customer.subscription.deleted", canceled, { created: 1_793_600_000 });
    expect((await deliver(deleted.payload, deleted.signature)).status).toBe(200);
    expect((await deliver(older.payload, older.signature)).status).toBe(200);
    expect(await contract(orgId)).toMatchObject({ plan: "agency", status: "canceled", provider: "stripe" });
    await client(sites[0].key).put("/v1/units", unit("post:1", [{ key: "a", text: "Hello" }]));
    expect((await client(sites[0].key).post("/v1/jobs", {})).body.code).toBe("subscription_inactive");
  });

  it("a subscription canceled by webhook answers 402 subscription_inactive on the very next POST /v1/jobs", async () => {
    const stripe = fakeStripe();
    const { orgId, sites } = await organization(1);
    const sub = await subscribeThroughCheckout(stripe, orgId);
    const c = client(sites[0].key);
    await c.put("/v1/units", unit("post:1", [{ key: "a", text: "Hello" }]));
    expect((await c.post("/v1/jobs", { estimate_only: true })).status).toBe(200);

    stripe.subscriptions.set(sub.id, { ...sub, status: "canceled" });
    const { payload, signature } = await signedEvent("customer.subscription.deleted", { ...sub, status: "canceled" });
    expect((await deliver(payload, signature)).status).toBe(200);

    const refused = await c.post("/v1/jobs", {});
    expect(refused.status).toBe(402);
    expect(refused.body).toEqual({ detail: expect.stringMatching(/canceled/), code: "subscription_inactive", estimate: null });
    expect((await c.get("/v1/usage")).body).toMatchObject({ entitled: false, plan: "agency" });
  });

  it("past_due stays active for 7 days, then answers subscription_inactive; invoice.paid makes it active again", async () => {
    const stripe = fakeStripe();
    const { orgId, sites } = await organization(1);
    const sub = await subscribeThroughCheckout(stripe, orgId);
    const c = client(sites[0].key);
    await c.put("/v1/units", unit("post:1", [{ key: "a", text: "Hello" }]));

    setClock(new Date("2026-11-10T12:00:00Z"));
    stripe.subscriptions.set(sub.id, { ...sub, status: "past_due" });
    const failed = await signedEvent("invoice.payment_failed", {
      id: "in_failed",
      object: "invoice",
      customer: sub.customer,
      status: "open",
      parent: { type: "subscription_details", quote_details: null, subscription_details: { subscription: sub.id, metadata: {} } },
    });
    expect((await deliver(failed.payload, failed.signature)).body.outcome).toBe("applied");
    expect(await contract(orgId)).toMatchObject({ status: "active", past_due_since: "2026-11-10T12:00:00.000Z" });

    setClock(new Date("2026-11-17T11:59:00Z"));
    expect((await c.post("/v1/jobs", { estimate_only: true })).status).toBe(200);
    // A later past_due update keeps the grace's start.
    const again = await signedEvent("customer.subscription.updated", { ...sub, status: "past_due" });
    await deliver(again.payload, again.signature);
    setClock(new Date("2026-11-17T12:00:00Z"));
    const refused = await c.post("/v1/jobs", { estimate_only: true });
    expect(refused.status).toBe(402);
    expect(refused.body).toMatchObject({ code: "subscription_inactive", detail: expect.stringMatching(/past due since 2026-11-10/) });

    stripe.subscriptions.set(sub.id, { ...sub, status: "active" });
    const paid = await signedEvent("invoice.paid", {
      id: "in_paid",
      object: "invoice",
      customer: sub.customer,
      status: "paid",
      parent: { type: "subscription_details", quote_details: null, subscription_details: { subscription: sub.id, metadata: {} } },
    });
    await deliver(paid.payload, paid.signature);
    expect(await contract(orgId)).toMatchObject({ status: "active", past_due_since: null });
    expect((await c.post("/v1/jobs", { estimate_only: true })).status).toBe(200);
  });

  it("maps paused, unpaid and incomplete_expired", async () => {
    const stripe = fakeStripe();
    const { orgId } = await organization(1);
    const sub = await subscribeThroughCheckout(stripe, orgId);
    for (const [stripeStatus, status] of [
      ["paused", "paused"],
      ["trialing", "active"],
      ["unpaid", "canceled"],
      ["incomplete_expired", "canceled"],
    ] as const) {
      stripe.subscriptions.set(sub.id, { ...sub, status: stripeStatus });
      const e = await signedEvent("customer.subscription.updated", { ...sub, status: stripeStatus });
      await deliver(e.payload, e.signature);
      expect((await contract(orgId))?.status, stripeStatus).toBe(status);
    }
  });

  it("events about other things are acknowledged and stored without a Stripe call", async () => {
    const stripe = fakeStripe();
    const e = await signedEvent("customer.created", { id: "cus_x", object: "customer" });
    expect(await deliver(e.payload, e.signature)).toEqual({ status: 200, body: expect.objectContaining({ outcome: "ignored" }) });
    expect(stripe.requests).toHaveLength(0);
  });
});

describe("the operator keeps the last word", () => {
  it("the admin PUT marks the organization manual: webhooks no longer change it until DELETE", async () => {
    const stripe = fakeStripe();
    const { orgId, sites } = await organization(2);
    const sub = await subscribeThroughCheckout(stripe, orgId, { price: PRICES.growth });
    const put = await admin("PUT", `/admin/v1/organizations/${orgId}/subscription`, { plan: "scale", status: "active", site_ids: [sites[1].siteId] });
    expect(put.status).toBe(200);
    expect(await contract(orgId)).toMatchObject({ plan: "scale", provider: "manual" });

    stripe.subscriptions.set(sub.id, { ...sub, status: "canceled" });
    const e = await signedEvent("customer.subscription.deleted", { ...sub, status: "canceled" });
    await deliver(e.payload, e.signature);
    expect(await contract(orgId)).toMatchObject({ plan: "scale", status: "active", provider: "manual" });
    expect(await covered(orgId)).toEqual([sites[1].siteId]);

    // DELETE ends the override: the organization follows Stripe again (canceled now).
    expect((await admin("DELETE", `/admin/v1/organizations/${orgId}/subscription`)).status).toBe(204);
    expect(await contract(orgId)).toMatchObject({ plan: "growth", status: "canceled", provider: "stripe" });
  });
});

describe("erasure", () => {
  it("erasing an organization that pays through Stripe cancels its subscription first, once", async () => {
    const stripe = fakeStripe();
    const { orgId } = await organization(1);
    const sub = await subscribeThroughCheckout(stripe, orgId, { price: PRICES.agency });
    expect((await admin("DELETE", `/admin/v1/organizations/${orgId}`)).status).toBe(204);
    expect(stripe.calls("DELETE", `/v1/subscriptions/${sub.id}`)).toHaveLength(1);
    expect(stripe.subscriptions.get(sub.id)?.status).toBe("canceled");
  });

  it("a subscription that already ended is not cancelled again", async () => {
    const stripe = fakeStripe();
    const { orgId } = await organization(1);
    const sub = await subscribeThroughCheckout(stripe, orgId, { price: PRICES.agency });
    stripe.subscriptions.set(sub.id, { ...sub, status: "canceled" });
    expect((await admin("DELETE", `/admin/v1/organizations/${orgId}`)).status).toBe(204);
    expect(stripe.calls("DELETE", /^\/v1\/subscriptions\//)).toHaveLength(0);
  });
});
