/** Organizations and their subscriptions in D1: rows and statements (operations compose them in src/ops/). */
import { eq, inArray } from "drizzle-orm";
import type { Plan } from "../limits";
import { type ControlDb, idList } from "./db";
import { organizations, sites, subscriptionSites, subscriptions } from "./schema";

export async function findOrganization(db: ControlDb, orgId: number) {
  return db.select().from(organizations).where(eq(organizations.id, orgId)).get();
}

export function insertOrganizationStatement(db: ControlDb, name: string) {
  return db.insert(organizations).values({ name }).returning();
}

/** The organization of each given site that exists. */
export async function siteOrganizations(db: ControlDb, siteIds: number[]) {
  return db
    .select({ id: sites.id, org: sites.organizationId })
    .from(sites)
    .where(inArray(sites.id, idList(siteIds)));
}

const chunks = <T>(list: T[], size: number) => Array.from({ length: Math.ceil(list.length / size) }, (_, i) => list.slice(i * size, (i + 1) * size));

/** Creates or replaces the subscription and its covered sites (statements for one batch). */
export function setSubscriptionStatements(
  db: ControlDb,
  orgId: number,
  input: { plan: Plan; status: "active" | "paused" | "canceled"; includedCharacters: number | null; siteIds: number[] },
  now = new Date(),
) {
  // The operator's word: `manual` until DELETE, whatever Stripe says meanwhile (no site limit or grace of Stripe's).
  const values = {
    plan: input.plan,
    status: input.status,
    includedCharacters: input.includedCharacters,
    provider: "manual",
    siteLimit: null,
    pastDueSince: null,
    updatedAt: now.toISOString(),
  };
  return [
    db
      .insert(subscriptions)
      .values({ organizationId: orgId, ...values })
      .onConflictDoUpdate({ target: subscriptions.organizationId, set: values }),
    db.delete(subscriptionSites).where(eq(subscriptionSites.organizationId, orgId)),
    // D1 allows 100 bound parameters per statement: 2 columns → 50 rows per insert.
    ...chunks(input.siteIds, 50).map((ids) => db.insert(subscriptionSites).values(ids.map((siteId) => ({ organizationId: orgId, siteId })))),
  ] as const;
}

export function deleteSubscriptionStatements(db: ControlDb, orgId: number) {
  return [db.delete(subscriptionSites).where(eq(subscriptionSites.organizationId, orgId)), db.delete(subscriptions).where(eq(subscriptions.organizationId, orgId))] as const;
}
