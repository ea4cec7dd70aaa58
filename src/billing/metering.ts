/**
 * Subscriptions, metering and estimates against D1. Usage is a ledger of billed slices
 * (idempotent per job and slice); queued and running jobs hold reservations of their
 * expected remaining billable characters.
 */
import { and, asc, eq, gt, inArray, sql, sum } from "drizzle-orm";
import type { Estimate } from "../api/schemas";
import type { ControlDb } from "../control/db";
import { reservations, subscriptionSites, subscriptions, usageLedger } from "../control/schema";
import type { SiteSettings } from "../control/sites.control";
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
 * Reservations of the usage scope's queued and running jobs. A reservation holds a job's expected
 * billable characters; what the job has billed so far (its ledger rows) is taken off, so it
 * shrinks as the job runs without a write per slice.
 */
export async function reservedCharacters(db: ControlDb, site: SiteSettings, perSite: boolean) {
  const scope = perSite ? eq(reservations.siteId, site.id) : eq(reservations.organizationId, site.organizationId);
  const billed = sql`coalesce((SELECT sum(l.characters) FROM usage_ledger l WHERE l.site_id = "reservations"."site_id" AND l.job_id = "reservations"."job_id"), 0)`;
  const [row] = await db
    .select({ n: sql<number>`coalesce(sum(max(0, ${reservations.characters} - ${billed})), 0)` })
    .from(reservations)
    .where(scope);
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

export async function estimateCost(db: ControlDb, site: SiteSettings, characters: number, at: Date) {
  const ent = await entitlement(db, site, at);
  const [used, reserved] = await Promise.all([usedCharacters(db, site, ent.perSite, at), reservedCharacters(db, site, ent.perSite)]);
  return { ent, estimate: buildEstimate(characters, ent, used, reserved) };
}

/** One stored commit's billed characters, as the site object's ledger outbox keeps it (src/site/jobs/ledger.ts). */
export interface UsageRow {
  jobId: number;
  /** The commit's number within its job. */
  slice: number;
  characters: number;
  /** First day of the UTC month the commit was stored in, `YYYY-MM-01`. */
  month: string;
  createdAt: string;
}

/**
 * Writes stored commits' ledger rows, keyed by (site, job, slice), in one statement (the rows
 * go as one JSON value: D1 binds at most 100 values to a statement). A commit is stored once
 * (its number is the job's counter) and its row is written after it landed, so a repeated
 * write (an answer lost, an object evicted before it removed its outbox rows) writes the same
 * row again, and it replaces a row an earlier version of the runner wrote ahead of a commit
 * that never landed.
 */
export async function writeUsage(db: ControlDb, site: SiteSettings, rows: UsageRow[]) {
  if (!rows.length) return;
  const values = JSON.stringify(rows.map((r) => [r.jobId, r.slice, r.characters, r.month, r.createdAt]));
  // `WHERE true`: SQLite's upsert after INSERT … SELECT needs it to parse ON CONFLICT.
  await db.run(sql`insert into "usage_ledger" ("organization_id", "site_id", "job_id", "slice", "characters", "month", "created_at")
    select ${site.organizationId}, ${site.id}, r.value ->> 0, r.value ->> 1, r.value ->> 2, r.value ->> 3, r.value ->> 4
    from json_each(${values}) r where true
    on conflict ("site_id", "job_id", "slice") do update set "characters" = excluded."characters", "month" = excluded."month", "created_at" = excluded."created_at"`);
}

/**
 * Settles a job that has ended (succeeded, failed, cancelled, abandoned) and will commit nothing
 * more, once its queued rows are written (src/site/jobs/ledger.ts): removes any ledger row numbered
 * above its commits (`committed`; the runner before ledger.ts wrote each row ahead of its commit,
 * whose answer, object or transaction could be lost), then releases its reservation. The reservation goes last, so a job that still holds one may
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
