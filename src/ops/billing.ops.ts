/**
 * Billing operations (docs/billing.md; docs/decisions.md "Billing"): what an owner does on the
 * Billing page, what a Stripe webhook applies, what the operator's override and month close
 * do. Each operation takes an actor (who the audit log names) and validated input, talks to
 * Stripe where it must, writes D1 and its audit row in one batch, and returns what the doors
 * render. Who may call (owners only) is the door's check; the rules are here.
 */
import { and, asc, eq, inArray } from "drizzle-orm";
import { z } from "zod";
import { closeEndedMonths, closeMonth, hasEnded, listCloses } from "../billing/close";
import { organizationUsage } from "../billing/organization-usage";
import { PLANS } from "../billing/plans";
import { billingProvider, contractStatus, type Provider, priceOf, type Stripe, stripeClient, verifyEvent } from "../billing/stripe";
import { coveredSiteIds, mirrorOf, STRIPE_ACTOR, siteLimitOf, stateOf, stateOfMirror, syncSubscription } from "../billing/stripe-sync";
import { auditStatement } from "../control/audit.control";
import type { QueryBudget } from "../control/budget.control";
import { type ControlDb, controlDb } from "../control/db";
import { sites, stripeEvents, stripeSubscriptions, subscriptionSites, subscriptions } from "../control/schema";
import { ApiError } from "../errors";
import { PLANS as PLAN_CODES, type Plan } from "../limits";
import { log, redactError } from "../obs/log";
import { billingProblemMails } from "./notices.ops";

/** Who the audit log names: `user:<id>` (the dashboard) or `admin` (the operator); house's `ops/actor.ts` type fits. */
export type Actor = string;

export const PlanIn = z.enum(PLAN_CODES);

// ------------------------------------------------------------------ reading

export interface BillingView {
  provider: Provider;
  /** Who keeps the organization's subscription: `stripe`, `manual` (the operator), or null without one. */
  managedBy: Provider | null;
  plan: Plan | null;
  status: string | null;
  /** Stripe's own status (`past_due`, `trialing` …) when Stripe keeps the subscription. */
  stripeStatus: string | null;
  pastDueSince: string | null;
  cancelAtPeriodEnd: boolean;
  currentPeriodEnd: string | null;
  /** Most sites covered; null for unlimited. */
  siteLimit: number | null;
  sites: { id: number; name: string; covered: boolean }[];
  usage: Awaited<ReturnType<typeof organizationUsage>>;
  /** Monthly price of each plan this deployment sells through Stripe (cents; `pro` per site). */
  prices: Partial<Record<Plan, { cents: number | null; currency: string }>>;
  upcoming: { amountDue: number; currency: string; periodEnd: string | null } | null;
  invoices: { id: string; number: string | null; status: string | null; total: number; currency: string; created: string; url: string | null }[];
  /** Why Stripe's figures are missing (Stripe could not be reached). */
  stripeError: string | null;
}

const iso = (seconds: number | null | undefined) => (seconds ? new Date(seconds * 1000).toISOString() : null);

/** Everything the Billing page shows. Stripe's figures (prices, invoices, the next invoice) are read live; a Stripe failure leaves them out. */
export async function billingView(env: Env, organizationId: number, at: Date): Promise<BillingView> {
  const db = controlDb(env.DB);
  const provider = billingProvider(env);
  const [sub, mirror, orgSites, covered, usage] = await Promise.all([
    db.select().from(subscriptions).where(eq(subscriptions.organizationId, organizationId)).get(),
    mirrorOf(db, organizationId),
    db.select({ id: sites.id, name: sites.name }).from(sites).where(eq(sites.organizationId, organizationId)).orderBy(asc(sites.id)),
    coveredSiteIds(db, organizationId),
    organizationUsage(db, organizationId, at.toISOString().slice(0, 7)),
  ]);
  const plan = (sub?.plan ?? null) as Plan | null;
  const siteLimit = sub ? (sub.siteLimit ?? PLANS[plan!].maxSites) : null;
  const coveredNow = new Set(covered.slice(0, siteLimit ?? undefined));
  const view: BillingView = {
    provider,
    managedBy: sub ? (sub.provider as Provider) : null,
    plan,
    status: sub?.status ?? null,
    stripeStatus: sub?.provider === "stripe" ? (mirror?.status ?? null) : null,
    pastDueSince: sub?.pastDueSince ?? null,
    cancelAtPeriodEnd: sub?.provider === "stripe" ? (mirror?.cancelAtPeriodEnd ?? false) : false,
    currentPeriodEnd: sub?.provider === "stripe" ? (mirror?.currentPeriodEnd ?? null) : null,
    siteLimit,
    sites: orgSites.map((s) => ({ ...s, covered: coveredNow.has(s.id) })),
    usage,
    prices: {},
    upcoming: null,
    invoices: [],
    stripeError: null,
  };
  if (provider !== "stripe") return view;
  try {
    const stripe = stripeClient(env);
    const sellable = PLAN_CODES.filter((p) => priceOf(env, p));
    const live = mirror && sub?.provider === "stripe" && view.status !== "canceled";
    const [prices, invoices, upcoming] = await Promise.all([
      Promise.all(sellable.map((p) => stripe.prices.retrieve(priceOf(env, p)!))),
      mirror ? stripe.invoices.list({ customer: mirror.customerId, limit: 12 }) : null,
      live ? stripe.invoices.createPreview({ customer: mirror.customerId, subscription: mirror.subscriptionId }) : null,
    ]);
    sellable.forEach((p, i) => (view.prices[p] = { cents: prices[i].unit_amount, currency: prices[i].currency }));
    view.invoices = (invoices?.data ?? []).map((inv) => ({
      id: inv.id ?? "",
      number: inv.number,
      status: inv.status,
      total: inv.total,
      currency: inv.currency,
      created: iso(inv.created)!,
      url: inv.hosted_invoice_url ?? null,
    }));
    view.upcoming = upcoming ? { amountDue: upcoming.amount_due, currency: upcoming.currency, periodEnd: iso(upcoming.period_end) } : null;
  } catch (err) {
    log("error", "stripe.failed", { where: "billing.page", error: redactError(err) });
    view.stripeError = "Stripe could not be reached: prices and invoices are not shown. Try again in a minute.";
  }
  return view;
}

// ------------------------------------------------------------------ owners' actions

function requireStripe(env: Env) {
  if (billingProvider(env) !== "stripe") throw new ApiError(409, "Billing is handled by the operator on this service: contact them to change the subscription.");
  return stripeClient(env);
}

/** The organization's live Stripe subscription, or a 409 saying what to do instead. */
async function requireStripeSubscription(env: Env, db: ControlDb, organizationId: number) {
  const [sub, mirror] = await Promise.all([db.select().from(subscriptions).where(eq(subscriptions.organizationId, organizationId)).get(), mirrorOf(db, organizationId)]);
  if (sub?.provider === "manual") throw new ApiError(409, "The operator manages this organization's subscription: contact them to change it.");
  if (!mirror || mirror.status === "canceled" || mirror.status === "incomplete_expired")
    throw new ApiError(409, "The organization has no running subscription: choose a plan first.");
  return mirror;
}

async function sitesOfOrganization(db: ControlDb, organizationId: number) {
  return (await db.select({ id: sites.id }).from(sites).where(eq(sites.organizationId, organizationId)).orderBy(asc(sites.id))).map((s) => s.id);
}

function requirePrice(env: Env, plan: Plan) {
  const price = priceOf(env, plan);
  if (!price) throw new ApiError(422, `The ${plan} plan is not offered on this service.`);
  return price;
}

/**
 * Choose a plan: a Stripe Checkout Session for a new subscription. `pro` is licensed per
 * site: the quantity is the organization's sites (at least one). Answers the URL to send the
 * owner to.
 */
export async function startCheckout(env: Env, actor: Actor, organizationId: number, plan: Plan, dashboardBase: string, at: Date) {
  const stripe = requireStripe(env);
  const db = controlDb(env.DB);
  const [sub, mirror, siteIds] = await Promise.all([
    db.select().from(subscriptions).where(eq(subscriptions.organizationId, organizationId)).get(),
    mirrorOf(db, organizationId),
    sitesOfOrganization(db, organizationId),
  ]);
  if (sub?.provider === "manual") throw new ApiError(409, "The operator manages this organization's subscription: contact them to change it.");
  if (mirror && !["canceled", "incomplete_expired", "incomplete"].includes(mirror.status))
    throw new ApiError(409, "The organization already has a subscription: change its plan instead.");
  const price = requirePrice(env, plan);
  const quantity = plan === "pro" ? Math.max(1, siteIds.length) : 1;
  const page = `${dashboardBase}/organizations/${organizationId}/billing`;
  const session = await stripe.checkout.sessions.create({
    mode: "subscription",
    line_items: [{ price, quantity }],
    client_reference_id: String(organizationId),
    ...(mirror ? { customer: mirror.customerId } : {}),
    metadata: { organization_id: String(organizationId) },
    subscription_data: { metadata: { organization_id: String(organizationId) } },
    success_url: `${page}?done=checkout`,
    cancel_url: `${page}?done=checkout-cancelled`,
  });
  if (!session.url) throw new ApiError(502, "Stripe did not answer a Checkout page.");
  await auditStatement(
    db,
    { organizationId, actor, action: "billing.checkout", target: `organization:${organizationId}`, detail: { plan, quantity, session: session.id } },
    at,
  ).run();
  return { url: session.url };
}

export type PlanChange = { kind: "changed" } | { kind: "choose-sites"; limit: number; covered: number[] };

/**
 * Change plan on the running subscription, with proration. A plan that covers fewer sites
 * than are covered now needs `keep` (which stay covered) first: without it the answer is
 * `choose-sites`, and nothing changes.
 */
export async function changePlan(env: Env, actor: Actor, organizationId: number, plan: Plan, keep: number[] | undefined, at: Date): Promise<PlanChange> {
  const stripe = requireStripe(env);
  const db = controlDb(env.DB);
  const mirror = await requireStripeSubscription(env, db, organizationId);
  const price = requirePrice(env, plan);
  const covered = await coveredSiteIds(db, organizationId);
  const planLimit = PLANS[plan].maxSites;
  let kept = covered;
  if (keep) {
    kept = await ownSites(db, organizationId, keep);
    if (planLimit !== null && kept.length > planLimit) throw new ApiError(422, `The ${plan} plan covers at most ${planLimit} sites; choose ${planLimit} or fewer.`);
  } else if (planLimit !== null && covered.length > planLimit) return { kind: "choose-sites", limit: planLimit, covered };
  const quantity = plan === "pro" ? Math.max(1, kept.length) : 1;
  const current = await stripe.subscriptions.retrieve(mirror.subscriptionId);
  const item = current.items.data[0];
  const updated = await stripe.subscriptions.update(mirror.subscriptionId, {
    items: [{ id: item.id, price, quantity }],
    proration_behavior: "create_prorations",
    metadata: { organization_id: String(organizationId) },
  });
  await syncSubscription(env, db, stateOf(updated), at, organizationId, "plan.change");
  await db.batch([
    auditStatement(
      db,
      { organizationId, actor, action: "billing.plan_change", target: `organization:${organizationId}`, detail: { from: mirror.plan, to: plan, quantity, sites: kept.length } },
      at,
    ),
    ...replaceCovered(db, organizationId, kept),
  ]);
  return { kind: "changed" };
}

/** The given ids that are sites of the organization (a 422 names any that are not). */
async function ownSites(db: ControlDb, organizationId: number, ids: number[]) {
  const unique = [...new Set(ids)];
  if (!unique.length) return [];
  const found = (
    await db
      .select({ id: sites.id })
      .from(sites)
      .where(and(eq(sites.organizationId, organizationId), inArray(sites.id, unique)))
  ).map((s) => s.id);
  const foreign = unique.filter((id) => !found.includes(id));
  if (foreign.length) throw new ApiError(422, `Site ${foreign.join(", ")} is not a site of this organization.`);
  return found.sort((a, b) => a - b);
}

type Write = Parameters<ControlDb["batch"]>[0][number];

function replaceCovered(db: ControlDb, organizationId: number, siteIds: number[]): Write[] {
  const writes: Write[] = [db.delete(subscriptionSites).where(eq(subscriptionSites.organizationId, organizationId))];
  for (let i = 0; i < siteIds.length; i += 50) writes.push(db.insert(subscriptionSites).values(siteIds.slice(i, i + 50).map((siteId) => ({ organizationId, siteId }))));
  return writes;
}

/**
 * Which sites the subscription covers, within its plan's limit. Under `pro` each covered site
 * is a licence: the subscription's quantity follows (prorated).
 */
export async function setCoveredSites(env: Env, actor: Actor, organizationId: number, siteIds: number[], at: Date) {
  const stripe = requireStripe(env);
  const db = controlDb(env.DB);
  const mirror = await requireStripeSubscription(env, db, organizationId);
  const plan = mirror.plan as Plan | null;
  if (!plan) throw new ApiError(409, "The subscription's price is not one of this service's plans.");
  const kept = await ownSites(db, organizationId, siteIds);
  const limit = PLANS[plan].maxSites;
  if (limit !== null && kept.length > limit) throw new ApiError(422, `The ${plan} plan covers at most ${limit} sites; choose ${limit} or fewer.`);
  if (plan === "pro") {
    if (!kept.length) throw new ApiError(422, "The pro plan covers at least one site; cancel the subscription to cover none.");
    if (kept.length !== mirror.quantity) {
      const current = await stripe.subscriptions.retrieve(mirror.subscriptionId);
      const updated = await stripe.subscriptions.update(mirror.subscriptionId, {
        items: [{ id: current.items.data[0].id, quantity: kept.length }],
        proration_behavior: "create_prorations",
      });
      await syncSubscription(env, db, stateOf(updated), at, organizationId, "sites.change");
    }
  }
  await db.batch([
    auditStatement(db, { organizationId, actor, action: "billing.sites", target: `organization:${organizationId}`, detail: { site_ids: kept } }, at),
    ...replaceCovered(db, organizationId, kept),
  ]);
  return { siteIds: kept, limit: siteLimitOf(plan, plan === "pro" ? kept.length : 1) };
}

/** Payment methods and invoices: a Stripe Customer Portal session that returns to the Billing page. */
export async function portalSession(env: Env, actor: Actor, organizationId: number, dashboardBase: string, at: Date) {
  const stripe = requireStripe(env);
  const db = controlDb(env.DB);
  const mirror = await mirrorOf(db, organizationId);
  if (!mirror) throw new ApiError(409, "The organization has no Stripe customer yet: choose a plan first.");
  const session = await stripe.billingPortal.sessions.create({ customer: mirror.customerId, return_url: `${dashboardBase}/organizations/${organizationId}/billing` });
  await auditStatement(db, { organizationId, actor, action: "billing.portal", target: `organization:${organizationId}` }, at).run();
  return { url: session.url };
}

/** Cancel at the period's end (`cancel` true) or resume (false). Covered until the period ends either way. */
export async function setCancelAtPeriodEnd(env: Env, actor: Actor, organizationId: number, cancel: boolean, at: Date) {
  const stripe = requireStripe(env);
  const db = controlDb(env.DB);
  const mirror = await requireStripeSubscription(env, db, organizationId);
  const updated = await stripe.subscriptions.update(mirror.subscriptionId, { cancel_at_period_end: cancel });
  await syncSubscription(env, db, stateOf(updated), at, organizationId, cancel ? "cancel" : "resume");
  await auditStatement(
    db,
    {
      organizationId,
      actor,
      action: cancel ? "billing.cancel" : "billing.resume",
      target: `organization:${organizationId}`,
      detail: { period_end: iso(updated.items.data[0]?.current_period_end) },
    },
    at,
  ).run();
  return { cancelAtPeriodEnd: updated.cancel_at_period_end };
}

// ------------------------------------------------------------------ Stripe's webhooks

export type WebhookOutcome = "applied" | "duplicate" | "ignored";

/** The subscription an event is about, and the organization it names if any. */
function subjectOf(event: Stripe.Event): { subscription: string | null; organizationId?: number } {
  switch (event.type) {
    case "checkout.session.completed": {
      const s = event.data.object;
      const org = Number(s.client_reference_id);
      return {
        subscription: typeof s.subscription === "string" ? s.subscription : (s.subscription?.id ?? null),
        organizationId: Number.isSafeInteger(org) && org > 0 ? org : undefined,
      };
    }
    case "customer.subscription.created":
    case "customer.subscription.updated":
    case "customer.subscription.deleted":
    case "customer.subscription.paused":
    case "customer.subscription.resumed":
      return { subscription: event.data.object.id };
    case "invoice.paid":
    case "invoice.payment_failed": {
      const s = event.data.object.parent?.subscription_details?.subscription;
      return { subscription: typeof s === "string" ? s : (s?.id ?? null) };
    }
    default:
      return { subscription: null };
  }
}

/** The contract's status of the organization a subscription belongs to, before an event is applied (null: none known). */
async function contractBefore(db: ControlDb, subscriptionId: string, organizationId: number | null | undefined) {
  const orgId =
    organizationId ??
    (await db.select({ id: stripeSubscriptions.organizationId }).from(stripeSubscriptions).where(eq(stripeSubscriptions.subscriptionId, subscriptionId)).get())?.id;
  if (!orgId) return null;
  return (await db.select({ status: subscriptions.status }).from(subscriptions).where(eq(subscriptions.organizationId, orgId)).get())?.status ?? null;
}

/**
 * What the owners are mailed about after an event (src/ops/notices.ops.ts `billingProblemMails`,
 * the `billing` mail kind): a failed payment, and a subscription that stopped being active.
 */
export function billingProblemOf(eventType: string, before: string | null, after: { status: string; applied: boolean; stripeStatus: string }): string | null {
  if (eventType === "invoice.payment_failed")
    return "A payment for your subscription failed. Stripe tries again over the next days; check the payment method on the Billing page. Jobs keep running for 7 days past due.";
  if (after.applied && before === "active" && after.status !== "active")
    return `Your subscription is no longer active (Stripe reports it ${after.stripeStatus.replaceAll("_", " ")}). New translation jobs are refused until it is active again: see the Billing page.`;
  return null;
}

/**
 * One verified delivery. Each event id is applied once (stored after it was applied, so a
 * failure lets Stripe's retry try again). The subscription is retrieved from Stripe rather
 * than read from the event, so deliveries in any order end in Stripe's current state. A
 * payment problem is mailed to the owners once the event is recorded (`base`: the dashboard's
 * address, for the mail's link); a mail never fails the delivery.
 */
export async function applyStripeEvent(env: Env, event: Stripe.Event, at: Date, base = "/dashboard"): Promise<WebhookOutcome> {
  const db = controlDb(env.DB);
  const seen = await db.select({ id: stripeEvents.id }).from(stripeEvents).where(eq(stripeEvents.id, event.id)).get();
  if (seen) return "duplicate";
  const subject = subjectOf(event);
  let outcome: WebhookOutcome = "ignored";
  let problem: { organizationId: number; text: string } | null = null;
  if (subject.subscription) {
    const sub = stateOf(await stripeClient(env).subscriptions.retrieve(subject.subscription));
    const before = await contractBefore(db, sub.id, subject.organizationId ?? sub.organizationId);
    const result = await syncSubscription(env, db, sub, at, subject.organizationId, event.type);
    const text = result.organizationId ? billingProblemOf(event.type, before, { status: contractStatus(sub.status), applied: result.applied, stripeStatus: sub.status }) : null;
    if (text && result.organizationId) problem = { organizationId: result.organizationId, text };
    outcome = "applied";
  }
  await db.insert(stripeEvents).values({ id: event.id, type: event.type, receivedAt: at.toISOString() }).onConflictDoNothing();
  if (problem)
    await billingProblemMails(env, problem.organizationId, problem.text, base, at).catch((err) =>
      log("error", "mail.failed", { kind: "billing.problem", org_id: problem.organizationId, error: redactError(err) }),
    );
  return outcome;
}

/** Verifies the raw body's signature (400 on a bad or stale one: nothing is read or changed), then applies it. */
export async function receiveStripeWebhook(env: Env, rawBody: string, signature: string | undefined, base: string, at: Date) {
  if (billingProvider(env) !== "stripe") throw new ApiError(404, "Stripe billing is not configured on this service.");
  let event: Stripe.Event;
  try {
    event = await verifyEvent(env, rawBody, signature);
  } catch (err) {
    throw new ApiError(400, `The Stripe signature is not valid: ${err instanceof Error ? err.message : String(err)}`);
  }
  return { id: event.id, type: event.type, outcome: await applyStripeEvent(env, event, at, base) };
}

// ------------------------------------------------------------------ the operator

/**
 * The operator's override ended (admin DELETE of the subscription): an organization that pays
 * through Stripe follows its Stripe subscription again, from what D1 last read of it.
 */
export async function overrideCleared(env: Env, organizationId: number, at: Date) {
  const db = controlDb(env.DB);
  const mirror = await mirrorOf(db, organizationId);
  if (mirror) await syncSubscription(env, db, stateOfMirror(mirror), at, organizationId, "override.cleared");
}

/** Month close by hand (the admin API): the same close the Cron Trigger runs, for one ended month, audited as `billing.close` with the operator's name. */
export async function closeBillingMonth(env: Env, actor: Actor, month: string, at: Date) {
  if (!hasEnded(month, at)) throw new ApiError(422, `month: ${month} has not ended yet (months are UTC); close it from the 1st of the next month.`);
  const db = controlDb(env.DB);
  const closed = await closeMonth(env, db, month, at);
  await auditStatement(
    db,
    { organizationId: null, actor, action: "billing.close", target: `month:${month}`, detail: { closes: closed.closes.length, pending: closed.pending.length } },
    at,
  ).run();
  return closed;
}

export const billingCloses = (env: Env, month?: string) => listCloses(controlDb(env.DB), month);

/** The Cron Trigger's run. */
export async function scheduledClose(env: Env, at: Date, budget?: QueryBudget) {
  return closeEndedMonths(env, controlDb(env.DB), at, budget);
}

export { STRIPE_ACTOR };
