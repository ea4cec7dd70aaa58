/**
 * Billing problems mailed from Stripe's webhooks (ops/notices.ops.ts `billingProblemMails`): a
 * failed payment, and a subscription that stopped being active, go to the organization's
 * owners who have not turned billing mails off; a replayed delivery mails nobody again.
 */
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import { contract, deliver, organization } from "../helpers/billing";
import { person } from "../helpers/dashboard";
import { mailsTo } from "../helpers/mail";
import { setClock } from "../helpers/seams";
import { fakeStripe, signedEvent, subscription } from "../helpers/stripe";

afterEach(() => setClock(undefined));

const invoiceOf = (id: string, sub: { id: string; customer: unknown }) => ({
  id,
  object: "invoice",
  customer: sub.customer,
  status: "open",
  parent: { type: "subscription_details", quote_details: null, subscription_details: { subscription: sub.id, metadata: {} } },
});

async function subscribed(stripe: ReturnType<typeof fakeStripe>, orgId: number) {
  const sub = subscription({ organizationId: orgId, customer: `cus_${orgId}` });
  stripe.subscriptions.set(sub.id, sub);
  const created = await signedEvent("customer.subscription.created", sub);
  expect((await deliver(created.payload, created.signature)).body.outcome).toBe("applied");
  return sub;
}

describe("billing problem mails", () => {
  it("a failed payment mails every owner (not editors, not owners who turned billing mails off), once per delivery", async () => {
    const stripe = fakeStripe();
    const { orgId } = await organization(1);
    const owner = await person(orgId, "owner");
    const quiet = await person(orgId, "owner");
    const editor = await person(orgId, "editor");
    await env.DB.prepare(`UPDATE users SET mail_opt_out = '["billing"]' WHERE email = ?`).bind(quiet.email).run();
    const sub = await subscribed(stripe, orgId);
    // Subscribing is no problem: nobody is mailed.
    expect(await mailsTo(owner.email, 0, "billing")).toEqual([]);

    stripe.subscriptions.set(sub.id, { ...sub, status: "past_due" });
    const failed = await signedEvent("invoice.payment_failed", invoiceOf("in_failed_1", sub));
    expect((await deliver(failed.payload, failed.signature)).body.outcome).toBe("applied");
    const mails = await mailsTo(owner.email, 1, "billing");
    expect(mails).toHaveLength(1);
    expect(mails[0].subject).toMatch(/Billing problem/);
    expect(mails[0].text).toMatch(/payment for your subscription failed/);
    expect(mails[0].text).toContain(`https://dash.test/organizations/${orgId}/billing`);
    expect(await mailsTo(quiet.email, 0, "billing")).toEqual([]);
    expect(await mailsTo(editor.email, 0, "billing")).toEqual([]);

    // Stripe delivers the same event again: applied once, mailed once.
    expect((await deliver(failed.payload, failed.signature)).body.outcome).toBe("duplicate");
    expect(await mailsTo(owner.email, 1, "billing")).toHaveLength(1);
  });

  it("a subscription that stops being active mails the owners; a later update that changes nothing does not", async () => {
    const stripe = fakeStripe();
    const { orgId } = await organization(1);
    const owner = await person(orgId, "owner");
    const sub = await subscribed(stripe, orgId);

    stripe.subscriptions.set(sub.id, { ...sub, status: "unpaid" });
    const unpaid = await signedEvent("customer.subscription.updated", { ...sub, status: "unpaid" });
    await deliver(unpaid.payload, unpaid.signature);
    expect(await contract(orgId)).toMatchObject({ status: "canceled" });
    const mails = await mailsTo(owner.email, 1, "billing");
    expect(mails).toHaveLength(1);
    expect(mails[0].text).toMatch(/no longer active \(Stripe reports it unpaid\)/);

    const again = await signedEvent("customer.subscription.updated", { ...sub, status: "unpaid" });
    await deliver(again.payload, again.signature);
    expect(await mailsTo(owner.email, 1, "billing")).toHaveLength(1);
  });
});
