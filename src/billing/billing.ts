/**
 * Subscriptions, metering and estimates against D1. Usage is a ledger of billed slices
 * (idempotent per job and slice); queued and running jobs hold reservations of their
 * expected remaining billable characters.
 */
import { and, asc, eq, gt, inArray, lt, or, sql, sum } from "drizzle-orm";
import type { Estimate } from "../api/schemas";
import type { ControlDb } from "../control/db";
import { reservations, subscriptionSites, subscriptions, usageLedger } from "../control/schema";
import type { SiteSettings } from "../control/sites";
import { LIMITS, type Plan } from "../limits";
import { CURRENCY, monthOf, PAST_DUE_GRACE_MS, PLANS } from "./plans";

export type BillingCode = "subscription_required" | "subscription_inactive" | "site_not_covered";

export interface Entitlement {
  plan: Plan | null;
  entitled: boolean;
  code?: BillingCode;
  reason: string;
  /** Monthly included characters for the usage scope; null when not metered. */
  included: number | null;
  perSite: boolean;
  overageCentsPerMillion: number;
}

/**
 * Read from D1 on every call (no cache): a change by the operator or a Stripe webhook answers
 * the next job request. `at` decides whether a past-due subscription's grace is over.
 */
export async function entitlement(db: ControlDb, site: SiteSettings, at: Date): Promise<Entitlement> {
  const sub = await db.select().from(subscriptions).where(eq(subscriptions.organizationId, site.organizationId)).get();
  if (!sub)
    return {
      plan: null,
      entitled: false,
      code: "subscription_required",
      reason: "The organization has no subscription.",
      included: null,
      perSite: false,
      overageCentsPerMillion: 0,
    };
  const plan = sub.plan as Plan;
  const rules = PLANS[plan];
  const base = { plan, included: sub.includedCharacters ?? rules.included, perSite: rules.perSite, overageCentsPerMillion: rules.overageCentsPerMillion };
  if (sub.status !== "active") return { ...base, entitled: false, code: "subscription_inactive", reason: `The subscription is ${sub.status}.` };
  if (sub.pastDueSince && at.getTime() - Date.parse(sub.pastDueSince) >= PAST_DUE_GRACE_MS)
    return {
      ...base,
      entitled: false,
      code: "subscription_inactive",
      reason: `The subscription's payment is past due since ${sub.pastDueSince.slice(0, 10)}; update the payment method on the Billing page.`,
    };
  const maxSites = sub.siteLimit ?? rules.maxSites;
  const covered = await db
    .select({ siteId: subscriptionSites.siteId })
    .from(subscriptionSites)
    .where(eq(subscriptionSites.organizationId, site.organizationId))
    .orderBy(asc(subscriptionSites.siteId));
  // A plan covering N sites covers the first N listed (by site id); the others are not covered.
  const coveredIds = covered.map((r) => r.siteId).slice(0, maxSites ?? undefined);
  if (!coveredIds.includes(site.id))
    return {
      ...base,
      entitled: false,
      code: "site_not_covered",
      reason:
        maxSites !== null && covered.some((r) => r.siteId === site.id)
          ? `The ${plan} ${sub.siteLimit !== null ? "subscription" : "plan"} covers at most ${maxSites} sites; this site is beyond that.`
          : "The subscription does not cover this site.",
    };
  return { ...base, entitled: true, reason: "" };
}

/** Ledger rows in the usage scope: the site for per-site plans, the organization otherwise. */
function scopeOf(site: SiteSettings, perSite: boolean) {
  return perSite ? eq(usageLedger.siteId, site.id) : eq(usageLedger.organizationId, site.organizationId);
}

export async function usedCharacters(db: ControlDb, site: SiteSettings, perSite: boolean, at: Date): Promise<number> {
  const [row] = await db
    .select({ n: sum(usageLedger.characters) })
    .from(usageLedger)
    .where(and(scopeOf(site, perSite), eq(usageLedger.month, monthOf(at).key)));
  return Number(row?.n ?? 0);
}

/**
 * Reservations of jobs requested before `before` (a reservation's created_at, with job id as
 * tie-break) in the usage scope. A reservation holds a job's expected billable characters;
 * what the job has billed so far (its ledger rows) is taken off, so it shrinks as the job runs
 * without a write per slice.
 */
export async function reservedCharacters(db: ControlDb, site: SiteSettings, perSite: boolean, before?: { createdAt: string; siteId: number; jobId: number }) {
  const scope = perSite ? eq(reservations.siteId, site.id) : eq(reservations.organizationId, site.organizationId);
  const earlier = before
    ? or(
        lt(reservations.createdAt, before.createdAt),
        and(eq(reservations.createdAt, before.createdAt), sql`(${reservations.siteId}, ${reservations.jobId}) < (${before.siteId}, ${before.jobId})`),
      )
    : undefined;
  const billed = sql`coalesce((SELECT sum(l.characters) FROM usage_ledger l WHERE l.site_id = "reservations"."site_id" AND l.job_id = "reservations"."job_id"), 0)`;
  const [row] = await db
    .select({ n: sql<number>`coalesce(sum(max(0, ${reservations.characters} - ${billed})), 0)` })
    .from(reservations)
    .where(earlier ? and(scope, earlier) : scope);
  return Number(row?.n ?? 0);
}

export function buildEstimate(characters: number, ent: Entitlement, used: number, reserved: number): Estimate {
  const metered = ent.included !== null;
  const included = ent.included;
  const remainingBefore = metered ? Math.max(0, included! - used - reserved) : null;
  const overage = metered ? Math.max(0, characters - remainingBefore!) : 0;
  return {
    characters,
    included_characters: included,
    used_characters: used,
    reserved_characters: reserved,
    remaining_characters: remainingBefore,
    overage_characters: overage,
    overage_cents: Math.ceil((overage * ent.overageCentsPerMillion) / 1_000_000),
    currency: CURRENCY,
    requires_confirmation: characters > 0 && (characters > LIMITS.confirmationCharacters || overage > 0),
  };
}

export async function estimateCost(db: ControlDb, site: SiteSettings, characters: number, at: Date, before?: Parameters<typeof reservedCharacters>[3]) {
  const ent = await entitlement(db, site, at);
  const [used, reserved] = await Promise.all([usedCharacters(db, site, ent.perSite, at), reservedCharacters(db, site, ent.perSite, before)]);
  return { ent, estimate: buildEstimate(characters, ent, used, reserved) };
}

/**
 * Records one billed slice, keyed by (site, job, slice). It is written before the slice
 * commits in the site object, and a slice is committed by exactly one attempt: so the last
 * write for a key is the one whose work was kept, and it replaces what an earlier,
 * uncommitted attempt wrote (whose answer may have been lost).
 */
export async function recordUsage(db: ControlDb, site: SiteSettings, jobId: number, slice: number, characters: number, at: Date) {
  await db
    .insert(usageLedger)
    .values({ organizationId: site.organizationId, siteId: site.id, jobId, slice, characters, month: monthOf(at).key, createdAt: at.toISOString() })
    .onConflictDoUpdate({
      target: [usageLedger.siteId, usageLedger.jobId, usageLedger.slice],
      set: { characters, month: monthOf(at).key, createdAt: at.toISOString() },
    });
}

/**
 * Sets ledger row `n` of a job back to what the job kept, after an attempt that metered commit
 * n found it committed by another attempt (whose row this one overwrote). Commits 1..`committed`
 * landed with `characters` in all; row n gets what the other kept rows leave of it. A row n
 * above `committed` (not landed) is left to the attempt that commits n, or to settleJob.
 */
export async function restoreUsage(db: ControlDb, siteId: number, jobId: number, n: number, committed: number, characters: number) {
  if (n > committed) return;
  const others = sql`(SELECT coalesce(sum(o.characters), 0) FROM usage_ledger o
    WHERE o.site_id = ${siteId} AND o.job_id = ${jobId} AND o.slice <= ${committed} AND o.slice <> ${n})`;
  await db
    .update(usageLedger)
    .set({ characters: sql`${characters} - ${others}` })
    .where(and(eq(usageLedger.siteId, siteId), eq(usageLedger.jobId, jobId), eq(usageLedger.slice, n)));
}

/**
 * Settles a job that has ended (succeeded, failed, cancelled, abandoned) and will commit nothing
 * more: removes the ledger rows of its commits that never landed (numbers above `committed`; an
 * attempt meters before it commits, and its answer, its object or its transaction may be lost),
 * then releases its reservation. The reservation goes last, so a job that still holds one may
 * still hold such rows; both steps may be repeated.
 */
export async function settleJob(db: ControlDb, siteId: number, jobId: number, committed: number) {
  await db.delete(usageLedger).where(and(eq(usageLedger.siteId, siteId), eq(usageLedger.jobId, jobId), gt(usageLedger.slice, committed)));
  await release(db, siteId, [jobId]);
}

/** Releases the reservations of this site's jobs that are no longer queued or running (repairs a release that failed). */
export async function releaseInactive(db: ControlDb, siteId: number, activeJobIds: number[]) {
  const rows = await db.select({ jobId: reservations.jobId }).from(reservations).where(eq(reservations.siteId, siteId));
  const stale = rows.map((r) => r.jobId).filter((id) => !activeJobIds.includes(id));
  await release(db, siteId, stale);
}

export async function reserve(db: ControlDb, site: SiteSettings, jobId: number, characters: number, createdAt: string) {
  await db
    .insert(reservations)
    .values({ siteId: site.id, jobId, organizationId: site.organizationId, characters: Math.max(0, characters), createdAt })
    .onConflictDoUpdate({ target: [reservations.siteId, reservations.jobId], set: { characters: Math.max(0, characters) } });
}

export async function release(db: ControlDb, siteId: number, jobIds: number[]) {
  if (jobIds.length) await db.delete(reservations).where(and(eq(reservations.siteId, siteId), inArray(reservations.jobId, jobIds)));
}

export async function usageOut(db: ControlDb, site: SiteSettings, at: Date) {
  const ent = await entitlement(db, site, at);
  const month = monthOf(at);
  return {
    plan: ent.plan,
    entitled: ent.entitled,
    reason: ent.reason,
    month_start: month.start.toISOString(),
    month_end: month.end.toISOString(),
    included_characters: ent.included,
    used_characters: await usedCharacters(db, site, ent.perSite, at),
    per_site: ent.perSite,
  };
}
