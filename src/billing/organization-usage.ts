/**
 * An organization's month: what the operator invoices from (admin API) and what the
 * dashboard's usage page draws. Figures come from the usage ledger only, so they survive a
 * site's erasure (ledger rows keep ids, month and counts).
 */
import { and, asc, eq, inArray, sql, sum } from "drizzle-orm";
import { type ControlDb, idList } from "../control/db";
import { credits, sites, subscriptionSites, subscriptions, usageLedger } from "../control/schema";
import type { Plan } from "../limits";
import { CURRENCY, PLANS } from "./plans";

export interface OrganizationUsage {
  month: string;
  plan: Plan | null;
  included_characters: number | null;
  used_characters: number;
  /** Beyond the included volume, after the month's credits (what the close bills). */
  overage_characters: number;
  overage_cents: number;
  currency: string;
  /** The month's credits together (src/ops/credits.ops.ts); taken off the overage, never below zero. */
  credited_characters: number;
  credits: { id: number; characters: number; reason: string; created_at: string }[];
  sites: { site_id: number; name: string | null; used_characters: number }[];
  days: { date: string; used_characters: number }[];
}

export type CreditRow = typeof credits.$inferSelect;

/** `YYYY-MM` → the ledger's month key `YYYY-MM-01`, and the month's days as `YYYY-MM-DD`. */
function monthDays(month: string) {
  const [y, m] = month.split("-").map(Number);
  const count = new Date(Date.UTC(y, m, 0)).getUTCDate();
  return Array.from({ length: count }, (_, i) => `${month}-${String(i + 1).padStart(2, "0")}`);
}

export async function organizationUsage(db: ControlDb, organizationId: number, month: string): Promise<OrganizationUsage> {
  return (await organizationsUsage(db, [organizationId], month)).get(organizationId)!;
}

/**
 * The month of several organizations in six D1 queries whatever their number (the crons close
 * and check a page of organizations at once: Cloudflare allows 1,000 queries an invocation).
 */
export async function organizationsUsage(db: ControlDb, organizationIds: number[], month: string): Promise<Map<number, OrganizationUsage>> {
  const key = `${month}-01`;
  const ids = idList(organizationIds);
  const inMonth = and(inArray(usageLedger.organizationId, ids), eq(usageLedger.month, key));
  const day = sql<string>`substr(${usageLedger.createdAt}, 1, 10)`;
  const [subs, perSite, current, perDay, covered, credited] = await Promise.all([
    db.select().from(subscriptions).where(inArray(subscriptions.organizationId, ids)),
    db
      .select({ org: usageLedger.organizationId, siteId: usageLedger.siteId, n: sum(usageLedger.characters) })
      .from(usageLedger)
      .where(inMonth)
      .groupBy(usageLedger.organizationId, usageLedger.siteId),
    db.select({ org: sites.organizationId, id: sites.id, name: sites.name }).from(sites).where(inArray(sites.organizationId, ids)).orderBy(asc(sites.id)),
    db
      .select({ org: usageLedger.organizationId, date: day, n: sum(usageLedger.characters) })
      .from(usageLedger)
      .where(inMonth)
      .groupBy(usageLedger.organizationId, day),
    db
      .select({ org: subscriptionSites.organizationId, n: sql<number>`count(*)` })
      .from(subscriptionSites)
      .where(inArray(subscriptionSites.organizationId, ids))
      .groupBy(subscriptionSites.organizationId),
    db
      .select()
      .from(credits)
      .where(and(inArray(credits.organizationId, ids), eq(credits.month, month)))
      .orderBy(asc(credits.id)),
  ]);
  const of = <T extends { org: number }>(rows: T[], org: number) => rows.filter((r) => r.org === org);
  return new Map(
    organizationIds.map((org) => [
      org,
      usageOf(
        month,
        subs.find((s) => s.organizationId === org),
        of(perSite, org),
        of(current, org),
        of(perDay, org),
        covered.find((c) => c.org === org),
        credited.filter((c) => c.organizationId === org),
      ),
    ]),
  );
}

function usageOf(
  month: string,
  sub: typeof subscriptions.$inferSelect | undefined,
  perSite: { siteId: number; n: string | null }[],
  current: { id: number; name: string }[],
  perDay: { date: string; n: string | null }[],
  covered: { n: number } | undefined,
  granted: CreditRow[],
): OrganizationUsage {
  const plan = (sub?.plan ?? null) as Plan | null;
  const rules = plan ? PLANS[plan] : null;
  // Every current site (0 when it used nothing), and sites erased since that used characters this month (name null).
  const usedBySite = new Map(perSite.map((r) => [r.siteId, Number(r.n ?? 0)]));
  const names = new Map<number, string | null>(current.map((s) => [s.id, s.name]));
  for (const id of usedBySite.keys()) if (!names.has(id)) names.set(id, null);
  const siteRows = [...names].sort(([a], [b]) => a - b).map(([id, name]) => ({ site_id: id, name, used_characters: usedBySite.get(id) ?? 0 }));
  const used = siteRows.reduce((a, s) => a + s.used_characters, 0);
  const includedPerScope = sub ? (sub.includedCharacters ?? rules!.included) : null;

  let included: number | null = null;
  let overage = 0;
  if (rules && includedPerScope !== null) {
    if (rules.perSite) {
      // pro: each covered site has its own allowance, and its overage is its own.
      const coveredSites = Math.min(Number(covered?.n ?? 0), sub!.siteLimit ?? rules.maxSites ?? Infinity);
      included = includedPerScope * coveredSites;
      overage = siteRows.reduce((a, s) => a + Math.max(0, s.used_characters - includedPerScope), 0);
    } else {
      included = includedPerScope;
      overage = Math.max(0, used - includedPerScope);
    }
  }
  // Credits come off the overage, never below zero (a pooled plan's: max(0, used − included − credited)).
  const credited = granted.reduce((a, c) => a + c.characters, 0);
  overage = Math.max(0, overage - credited);
  const byDay = new Map(perDay.map((d) => [d.date, Number(d.n ?? 0)]));
  return {
    month,
    plan,
    included_characters: included,
    used_characters: used,
    overage_characters: overage,
    overage_cents: rules ? Math.ceil((overage * rules.overageCentsPerMillion) / 1_000_000) : 0,
    currency: CURRENCY,
    credited_characters: credited,
    credits: granted.map((c) => ({ id: c.id, characters: c.characters, reason: c.reason, created_at: c.createdAt })),
    sites: siteRows,
    days: monthDays(month).map((date) => ({ date, used_characters: byDay.get(date) ?? 0 })),
  };
}
