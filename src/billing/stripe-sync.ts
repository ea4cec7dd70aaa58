/**
 * Stripe's subscription → D1. Every path that learns about a subscription (a webhook, an
 * owner's plan change, a cancel) passes the subscription as Stripe answered it just now, never
 * an event's copy: so a late or replayed delivery cannot put an older state back.
 *
 * The mirror (`stripe_subscriptions`) always follows Stripe. The contract's row
 * (`subscriptions`, what entitlement and the 402 codes read) follows it unless the operator
 * has overridden it through the admin API (provider `manual`), until the override is deleted.
 */
import { and, asc, eq } from "drizzle-orm";
import type Stripe from "stripe";
import { auditStatement } from "../control/audit.control";
import type { ControlDb } from "../control/db";
import { sites, stripeSubscriptions, subscriptionSites, subscriptions } from "../control/schema";
import type { Plan } from "../limits";
import { log } from "../obs/log";
import { PLANS } from "./plans";
import { contractStatus, planOfPrice } from "./stripe";

/** Who the audit log names for changes that came from Stripe. */
export const STRIPE_ACTOR = "stripe";

export type StripeMirror = typeof stripeSubscriptions.$inferSelect;

/** What D1 keeps of a Stripe subscription: from Stripe's answer, or from the mirror. */
export interface SubscriptionState {
  id: string;
  customerId: string;
  status: Stripe.Subscription.Status;
  priceId: string | null;
  quantity: number;
  cancelAtPeriodEnd: boolean;
  currentPeriodEnd: string | null;
  /** `metadata.organization_id`, set on every subscription made through Checkout. */
  organizationId: number | null;
}

export function stateOf(sub: Stripe.Subscription): SubscriptionState {
  const item = sub.items?.data?.[0];
  const fromMetadata = Number(sub.metadata?.organization_id);
  return {
    id: sub.id,
    customerId: typeof sub.customer === "string" ? sub.customer : sub.customer.id,
    status: sub.status,
    priceId: item?.price?.id ?? null,
    quantity: item?.quantity ?? 1,
    cancelAtPeriodEnd: sub.cancel_at_period_end,
    currentPeriodEnd: item?.current_period_end ? new Date(item.current_period_end * 1000).toISOString() : null,
    organizationId: Number.isSafeInteger(fromMetadata) && fromMetadata > 0 ? fromMetadata : null,
  };
}

export const stateOfMirror = (m: StripeMirror): SubscriptionState => ({
  id: m.subscriptionId,
  customerId: m.customerId,
  status: m.status as Stripe.Subscription.Status,
  priceId: m.priceId,
  quantity: m.quantity,
  cancelAtPeriodEnd: m.cancelAtPeriodEnd,
  currentPeriodEnd: m.currentPeriodEnd,
  organizationId: m.organizationId,
});

/** The organization a subscription belongs to: its metadata, else what D1 already knows of it. */
async function organizationOf(db: ControlDb, sub: SubscriptionState, hint?: number): Promise<number | null> {
  if (sub.organizationId) return sub.organizationId;
  if (hint) return hint;
  const known =
    (await db.select().from(stripeSubscriptions).where(eq(stripeSubscriptions.subscriptionId, sub.id)).get()) ??
    (await db.select().from(stripeSubscriptions).where(eq(stripeSubscriptions.customerId, sub.customerId)).get());
  return known?.organizationId ?? null;
}

export async function mirrorOf(db: ControlDb, organizationId: number): Promise<StripeMirror | undefined> {
  return db.select().from(stripeSubscriptions).where(eq(stripeSubscriptions.organizationId, organizationId)).get();
}

/** Most sites a plan covers under a subscription: a `pro` subscription's quantity, the plan's limit otherwise (null: unlimited). */
export const siteLimitOf = (plan: Plan, quantity: number) => (plan === "pro" ? quantity : PLANS[plan].maxSites);

export interface SyncResult {
  organizationId: number | null;
  /** False when the contract's row was left alone (operator override, unknown price, an ended subscription behind a live one). */
  applied: boolean;
}

/**
 * Applies a subscription as Stripe answered it. A new subscription covers the organization's
 * sites, oldest first, up to its limit; after that owners choose on the Billing page.
 */
export async function syncSubscription(env: Env, db: ControlDb, sub: SubscriptionState, at: Date, orgHint?: number, cause?: string): Promise<SyncResult> {
  const organizationId = await organizationOf(db, sub, orgHint);
  if (organizationId === null) {
    log("warn", "stripe.unknown_subscription", { subscription: sub.id });
    return { organizationId: null, applied: false };
  }
  const [mirror, contract] = await Promise.all([mirrorOf(db, organizationId), db.select().from(subscriptions).where(eq(subscriptions.organizationId, organizationId)).get()]);
  const status = contractStatus(sub.status);
  // An ended subscription never replaces a live one (an owner who subscribed again).
  if (mirror && mirror.subscriptionId !== sub.id && contractStatus(mirror.status as Stripe.Subscription.Status) !== "canceled" && status === "canceled")
    return { organizationId, applied: false };

  const { priceId, quantity } = sub;
  const plan = planOfPrice(env, priceId);
  const syncedAt = at.toISOString();
  const row = {
    organizationId,
    customerId: sub.customerId,
    subscriptionId: sub.id,
    status: sub.status,
    plan,
    priceId,
    quantity,
    cancelAtPeriodEnd: sub.cancelAtPeriodEnd,
    currentPeriodEnd: sub.currentPeriodEnd,
    syncedAt,
  };
  const writes: Parameters<ControlDb["batch"]>[0][number][] = [
    db.insert(stripeSubscriptions).values(row).onConflictDoUpdate({ target: stripeSubscriptions.organizationId, set: row }),
  ];

  const overridden = contract !== undefined && contract.provider === "manual";
  if (!plan) log("warn", "stripe.unknown_price", { price: priceId, subscription: sub.id });
  const applied = !overridden && plan !== null;
  if (applied) {
    // The grace is counted from the first time it was seen past due.
    const pastDueSince = sub.status === "past_due" ? (contract?.provider === "stripe" && contract.pastDueSince ? contract.pastDueSince : syncedAt) : null;
    const values = { plan, status, includedCharacters: null, provider: "stripe", siteLimit: plan === "pro" ? quantity : null, pastDueSince, updatedAt: syncedAt };
    writes.push(
      db
        .insert(subscriptions)
        .values({ organizationId, ...values })
        .onConflictDoUpdate({ target: subscriptions.organizationId, set: values }),
    );
    if (!contract) {
      const limit = siteLimitOf(plan, quantity);
      const oldest = await db
        .select({ id: sites.id })
        .from(sites)
        .where(eq(sites.organizationId, organizationId))
        .orderBy(asc(sites.id))
        .limit(limit ?? 1_000);
      writes.push(db.delete(subscriptionSites).where(eq(subscriptionSites.organizationId, organizationId)));
      for (let i = 0; i < oldest.length; i += 50) writes.push(db.insert(subscriptionSites).values(oldest.slice(i, i + 50).map((s) => ({ organizationId, siteId: s.id }))));
    }
    const changed =
      !contract ||
      contract.plan !== plan ||
      contract.status !== status ||
      (contract.pastDueSince !== null) !== (pastDueSince !== null) ||
      mirror?.cancelAtPeriodEnd !== sub.cancelAtPeriodEnd;
    if (changed)
      writes.push(
        auditStatement(
          db,
          {
            organizationId,
            actor: STRIPE_ACTOR,
            action: "subscription.sync",
            target: `organization:${organizationId}`,
            detail: { plan, status, stripe_status: sub.status, cancel_at_period_end: sub.cancelAtPeriodEnd, quantity, ...(cause ? { cause } : {}) },
          },
          at,
        ),
      );
  }
  await db.batch(writes as [(typeof writes)[number], ...typeof writes]);
  return { organizationId, applied };
}

/** Sites of the organization that its subscription lists (the contract's row), oldest first. */
export async function coveredSiteIds(db: ControlDb, organizationId: number) {
  const rows = await db
    .select({ id: subscriptionSites.siteId })
    .from(subscriptionSites)
    .innerJoin(sites, and(eq(sites.id, subscriptionSites.siteId), eq(sites.organizationId, organizationId)))
    .where(eq(subscriptionSites.organizationId, organizationId))
    .orderBy(asc(subscriptionSites.siteId));
  return rows.map((r) => r.id);
}
