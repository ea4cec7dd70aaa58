/**
 * The Billing page and owners' actions, through the dashboard as a browser sends them; Stripe
 * mocked at the HTTP level. Owners act (each action audited); admins and editors read.
 */
import { afterEach, describe, expect, it } from "vitest";
import { admin } from "../helpers/api";
import { auditActions, contract, covered, deliver, meter, organization } from "../helpers/billing";
import { dash, person } from "../helpers/dashboard";
import { setClock } from "../helpers/seams";
import { fakeStripe, form, PRICES, signedEvent, subscription } from "../helpers/stripe";

afterEach(() => setClock(undefined));

async function subscribed(stripe: ReturnType<typeof fakeStripe>, orgId: number, price: string = PRICES.agency, quantity = 1) {
  const sub = subscription({ organizationId: orgId, customer: `cus_page_${orgId}`, price, quantity });
  stripe.subscriptions.set(sub.id, sub);
  const e = await signedEvent("customer.subscription.created", sub);
  expect((await deliver(e.payload, e.signature)).status).toBe(200);
  return sub;
}

describe("choosing a plan", () => {
  it("an owner without a subscription sees the plans and is sent to the Checkout Session Stripe answered", async () => {
    const stripe = fakeStripe();
    const { orgId, sites } = await organization(2);
    const owner = await person(orgId, "owner");
    const page = await dash("GET", `/dashboard/organizations/${orgId}/billing`, { cookie: owner.cookie });
    expect(page.status).toBe(200);
    expect(page.html).toContain("Choose a plan");
    expect(page.html).toContain("$199.00 a month"); // agency's price, read from Stripe
    expect(page.headers.get("content-security-policy")).toContain("form-action 'self' https://checkout.stripe.com https://billing.stripe.com");

    const res = await dash("POST", `/dashboard/organizations/${orgId}/billing/checkout`, { cookie: owner.cookie, form: { plan: "pro" } });
    expect(res.status).toBe(303);
    expect(res.location).toMatch(/^https:\/\/checkout\.stripe\.com\/c\/pay\/cs_test_/);
    const [create] = stripe.calls("POST", "/v1/checkout/sessions");
    expect(form(create)).toMatchObject({
      mode: "subscription",
      "line_items[0][price]": PRICES.pro,
      "line_items[0][quantity]": String(sites.length), // pro: one licence per site
      client_reference_id: String(orgId),
      "metadata[organization_id]": String(orgId),
      "subscription_data[metadata][organization_id]": String(orgId),
      success_url: `https://dash.test/organizations/${orgId}/billing?done=checkout`,
      cancel_url: `https://dash.test/organizations/${orgId}/billing?done=checkout-cancelled`,
    });
    expect(await auditActions(orgId)).toContainEqual(expect.objectContaining({ action: "billing.checkout", actor: expect.stringMatching(/^user:/) }));
  });

  it("admins and editors read the page but cannot act (403), and nothing reaches Stripe", async () => {
    const stripe = fakeStripe();
    const { orgId } = await organization(1);
    for (const role of ["admin", "editor"] as const) {
      const p = await person(orgId, role);
      const page = await dash("GET", `/dashboard/organizations/${orgId}/billing`, { cookie: p.cookie });
      expect(page.status).toBe(200);
      expect(page.html).toContain("Only owners change billing");
      expect(page.html).not.toContain(`action="/dashboard/organizations/${orgId}/billing/checkout"`);
      for (const action of ["checkout", "plan", "sites", "portal", "cancel", "resume"]) {
        const res = await dash("POST", `/dashboard/organizations/${orgId}/billing/${action}`, { cookie: p.cookie, form: { plan: "agency" } });
        expect(res.status, `${role} ${action}`).toBe(403);
      }
    }
    expect(stripe.calls("POST", /.*/)).toHaveLength(0);
    const outsider = await person((await organization(0)).orgId, "owner");
    expect((await dash("GET", `/dashboard/organizations/${orgId}/billing`, { cookie: outsider.cookie })).status).toBe(404);
  });

  it("shows plan, status, usage, overage so far, the next invoice and past invoices with their links", async () => {
    const stripe = fakeStripe();
    const { orgId, sites } = await organization(1);
    await subscribed(stripe, orgId);
    stripe.invoice(`cus_page_${orgId}`, { number: "TS-0001" });
    const month = new Date().toISOString().slice(0, 7);
    await meter(orgId, sites[0].siteId, month, 2_500_000);
    const owner = await person(orgId, "owner");
    const page = (await dash("GET", `/dashboard/organizations/${orgId}/billing`, { cookie: owner.cookie })).html;
    expect(page).toMatch(/id="plan">agency</);
    expect(page).toContain("2,500,000");
    expect(page).toContain("500,000"); // overage so far
    expect(page).toContain("$7.50"); // 500,000 × 1,500 cents per million
    expect(page).toContain("https://invoice.stripe.com/i/in_paid_1");
    expect(page).toContain("TS-0001");
    expect(page).toContain("$199.00"); // the next invoice: agency × 1
    expect(page).toContain("Change plan");
    expect(page).not.toContain(">Choose a plan<");
  });
});

describe("another customer's Stripe objects", () => {
  it("never appear: the page lists the organization's own invoices and its own next invoice", async () => {
    const stripe = fakeStripe();
    const [a, b] = [await organization(1), await organization(1)];
    await subscribed(stripe, a.orgId, PRICES.agency);
    await subscribed(stripe, b.orgId, PRICES.scale);
    stripe.invoice(`cus_page_${a.orgId}`, { number: "TS-A-0001", total: 19900 });
    stripe.invoice(`cus_page_${b.orgId}`, { number: "TS-B-0001", total: 12345 });
    const owner = await person(a.orgId, "owner");
    const page = (await dash("GET", `/dashboard/organizations/${a.orgId}/billing`, { cookie: owner.cookie })).html;
    expect(page).toContain("TS-A-0001");
    expect(page).not.toContain("TS-B-0001");
    expect(page).not.toContain("$123.45");
    for (const r of stripe.calls("GET", "/v1/invoices")) expect(r.url.searchParams.get("customer")).toBe(`cus_page_${a.orgId}`);
  });
});

describe("a running subscription", () => {
  it("changes plan with proration; a plan covering fewer sites asks which stay covered first", async () => {
    const stripe = fakeStripe();
    const { orgId, sites } = await organization(3);
    const sub = await subscribed(stripe, orgId, PRICES.pro, 3);
    expect(await covered(orgId)).toHaveLength(3);
    const owner = await person(orgId, "owner");

    // pro → agency covers 10: no question; proration asked for.
    const up = await dash("POST", `/dashboard/organizations/${orgId}/billing/plan`, { cookie: owner.cookie, form: { plan: "agency" } });
    expect(up.status).toBe(303);
    const update = stripe.calls("POST", `/v1/subscriptions/${sub.id}`).at(-1)!;
    expect(form(update)).toMatchObject({ "items[0][id]": `si_${sub.id}`, "items[0][price]": PRICES.agency, "items[0][quantity]": "1", proration_behavior: "create_prorations" });
    expect(await contract(orgId)).toMatchObject({ plan: "agency", provider: "stripe", site_limit: null });

    // Back to pro while 3 are covered: pro has no site maximum (a licence each), so no question either, quantity 3.
    await dash("POST", `/dashboard/organizations/${orgId}/billing/plan`, { cookie: owner.cookie, form: { plan: "pro" } });
    expect(form(stripe.calls("POST", `/v1/subscriptions/${sub.id}`).at(-1)!)).toMatchObject({ "items[0][price]": PRICES.pro, "items[0][quantity]": "3" });
    expect(await auditActions(orgId)).toEqual(expect.arrayContaining([expect.objectContaining({ action: "billing.plan_change" })]));
  });

  it("a downgrade below the covered count asks first, then keeps the chosen sites", async () => {
    const stripe = fakeStripe();
    const { orgId, sites } = await organization(12);
    const sub = await subscribed(stripe, orgId, PRICES.growth);
    expect(await covered(orgId)).toHaveLength(12);
    const owner = await person(orgId, "owner");
    const before = stripe.calls("POST", `/v1/subscriptions/${sub.id}`).length;

    const ask = await dash("POST", `/dashboard/organizations/${orgId}/billing/plan`, { cookie: owner.cookie, form: { plan: "agency" } });
    expect(ask.status).toBe(200);
    expect(ask.html).toContain("Which sites stay covered?");
    expect(stripe.calls("POST", `/v1/subscriptions/${sub.id}`)).toHaveLength(before); // nothing changed yet
    expect(await contract(orgId)).toMatchObject({ plan: "growth" });

    const keep = sites.slice(2, 12).map((s) => String(s.siteId));
    const done = await dash("POST", `/dashboard/organizations/${orgId}/billing/plan`, { cookie: owner.cookie, form: { plan: "agency", choosing: "1", keep } });
    expect(done.status).toBe(303);
    expect(await contract(orgId)).toMatchObject({ plan: "agency" });
    expect(await covered(orgId)).toEqual(sites.slice(2, 12).map((s) => s.siteId));

    const tooMany = await dash("POST", `/dashboard/organizations/${orgId}/billing/plan`, {
      cookie: owner.cookie,
      form: { plan: "agency", choosing: "1", keep: sites.map((s) => String(s.siteId)) },
    });
    expect(tooMany.status).toBe(422);
  });

  it("covered sites under pro are licences: the quantity follows, prorated", async () => {
    const stripe = fakeStripe();
    const { orgId, sites } = await organization(3);
    const sub = await subscribed(stripe, orgId, PRICES.pro, 1);
    expect(await covered(orgId)).toEqual([sites[0].siteId]);
    const owner = await person(orgId, "owner");
    const res = await dash("POST", `/dashboard/organizations/${orgId}/billing/sites`, { cookie: owner.cookie, form: { site: [String(sites[1].siteId), String(sites[2].siteId)] } });
    expect(res.status).toBe(303);
    expect(form(stripe.calls("POST", `/v1/subscriptions/${sub.id}`).at(-1)!)).toMatchObject({ "items[0][quantity]": "2", proration_behavior: "create_prorations" });
    expect(await covered(orgId)).toEqual([sites[1].siteId, sites[2].siteId]);
    expect(await contract(orgId)).toMatchObject({ site_limit: 2 });
    expect(await auditActions(orgId)).toContainEqual(expect.objectContaining({ action: "billing.sites" }));

    const foreign = await dash("POST", `/dashboard/organizations/${orgId}/billing/sites`, { cookie: owner.cookie, form: { site: ["999999"] } });
    expect(foreign.status).toBe(422);
  });

  it("the Customer Portal, cancel at the period's end and resume", async () => {
    const stripe = fakeStripe();
    const { orgId } = await organization(1);
    const sub = await subscribed(stripe, orgId);
    const owner = await person(orgId, "owner");

    const portal = await dash("POST", `/dashboard/organizations/${orgId}/billing/portal`, { cookie: owner.cookie });
    expect(portal.status).toBe(303);
    expect(portal.location).toMatch(/^https:\/\/billing\.stripe\.com\/p\/session\//);
    expect(form(stripe.calls("POST", "/v1/billing_portal/sessions")[0])).toEqual({ customer: `cus_page_${orgId}`, return_url: `https://dash.test/organizations/${orgId}/billing` });

    expect((await dash("POST", `/dashboard/organizations/${orgId}/billing/cancel`, { cookie: owner.cookie })).status).toBe(303);
    expect(form(stripe.calls("POST", `/v1/subscriptions/${sub.id}`).at(-1)!)).toEqual({ cancel_at_period_end: "true" });
    const page = (await dash("GET", `/dashboard/organizations/${orgId}/billing?done=cancelled`, { cookie: owner.cookie })).html;
    expect(page).toContain("Resume the subscription");
    expect(page).toContain("ends on 2026-12-01");
    expect(await contract(orgId)).toMatchObject({ status: "active" }); // covered until the period ends

    expect((await dash("POST", `/dashboard/organizations/${orgId}/billing/resume`, { cookie: owner.cookie })).status).toBe(303);
    expect(form(stripe.calls("POST", `/v1/subscriptions/${sub.id}`).at(-1)!)).toEqual({ cancel_at_period_end: "false" });
    const actions = (await auditActions(orgId)).map((a) => a.action);
    expect(actions).toEqual(expect.arrayContaining(["billing.portal", "billing.cancel", "billing.resume"]));
  });

  it("an organization the operator manages shows who to contact and offers no Stripe action", async () => {
    const stripe = fakeStripe();
    const { orgId, sites } = await organization(1);
    await admin("PUT", `/admin/v1/organizations/${orgId}/subscription`, { plan: "growth", status: "active", site_ids: [sites[0].siteId] });
    const owner = await person(orgId, "owner");
    const page = (await dash("GET", `/dashboard/organizations/${orgId}/billing`, { cookie: owner.cookie })).html;
    expect(page).toContain("operator manages this subscription");
    expect(page).not.toContain(">Choose a plan<");
    const refused = await dash("POST", `/dashboard/organizations/${orgId}/billing/checkout`, { cookie: owner.cookie, form: { plan: "agency" } });
    expect(refused.status).toBe(409);
    expect(stripe.calls("POST", /.*/)).toHaveLength(0);
  });
});
