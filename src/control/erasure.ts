/**
 * Erasure (DESIGN.md "Abuse limits and data lifecycle"): a site's or an organization's data
 * leaves every store. Access ends first (keys deleted, cached look-ups dropped), then the
 * site objects' storage, the R2 leftovers and finally the control-plane rows, so a failure
 * half-way can simply be retried (each step is idempotent; the site row goes last).
 *
 * What stays: usage-ledger rows (billing records) with only ids, month, day and counts; the
 * audit log's who/what/when/target (an organization's entries lose their `detail`); and the
 * ids themselves, which AUTOINCREMENT never hands out again.
 */
import { and, eq, inArray, notExists, sql } from "drizzle-orm";
import { notFound } from "../errors";
import { auditStatement } from "./audit";
import { controlDb, type ControlDb } from "./db";
import { forgetSite } from "./keys";
import {
  apiKeys,
  auditLog,
  glossaryTerms,
  accountTokens,
  invitations,
  recoveryCodes,
  memberships,
  organizations,
  reservations,
  sessions,
  sites,
  subscriptions,
  subscriptionSites,
  usageLedger,
  users,
} from "./schema";

/** R2 prefix of a site's batch bodies; the site object refuses any other. */
export const batchPrefix = (siteId: number) => `batches/${siteId}/`;

/** Site objects erased at once when an organization goes. */
const OBJECT_CONCURRENCY = 8;

/** `IN (…)` over any number of ids with one bound parameter (D1 allows 100 per statement). */
export const idList = (ids: readonly number[]) => sql`(SELECT value FROM json_each(${JSON.stringify(ids)}))`;

async function deletePrefix(bucket: R2Bucket, prefix: string) {
  let cursor: string | undefined;
  do {
    const page = await bucket.list({ prefix, cursor, limit: 1000 });
    if (page.objects.length) await bucket.delete(page.objects.map((o) => o.key));
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor);
}

/** The site object's storage and alarm, and its R2 objects. */
async function eraseDataPlane(env: Env, siteId: number) {
  await env.SITE.getByName(String(siteId)).erase();
  await deletePrefix(env.BLOBS, batchPrefix(siteId));
}

/** Ledger rows keep ids, month, the day (per-day invoice figures) and counts; the time of day goes. */
function scrubLedger(db: ControlDb, where: ReturnType<typeof eq>) {
  return db
    .update(usageLedger)
    .set({ createdAt: sql`substr(${usageLedger.createdAt}, 1, 10)` })
    .where(where);
}

export async function eraseSite(env: Env, siteId: number, actor = "admin"): Promise<void> {
  const db = controlDb(env.DB);
  const site = await db.select({ id: sites.id, organizationId: sites.organizationId }).from(sites).where(eq(sites.id, siteId)).get();
  if (!site) throw notFound(`Site ${siteId}`);
  await db.delete(apiKeys).where(eq(apiKeys.siteId, siteId));
  forgetSite(siteId);
  await eraseDataPlane(env, siteId);
  await db.batch([
    scrubLedger(db, eq(usageLedger.siteId, siteId)),
    db.delete(reservations).where(eq(reservations.siteId, siteId)),
    db.delete(subscriptionSites).where(eq(subscriptionSites.siteId, siteId)),
    db.delete(sites).where(eq(sites.id, siteId)),
    auditStatement(db, { organizationId: site.organizationId, actor, action: "site.erase", target: `site:${siteId}` }),
  ]);
}

export async function eraseOrganization(env: Env, orgId: number, actor = "admin"): Promise<void> {
  const db = controlDb(env.DB);
  const org = await db.select({ id: organizations.id }).from(organizations).where(eq(organizations.id, orgId)).get();
  if (!org) throw notFound(`Organization ${orgId}`);
  const siteIds = (await db.select({ id: sites.id }).from(sites).where(eq(sites.organizationId, orgId))).map((s) => s.id);
  const orgSites = db.select({ id: sites.id }).from(sites).where(eq(sites.organizationId, orgId));

  await db.delete(apiKeys).where(inArray(apiKeys.siteId, orgSites));
  for (const id of siteIds) forgetSite(id);
  for (let i = 0; i < siteIds.length; i += OBJECT_CONCURRENCY)
    await Promise.all(siteIds.slice(i, i + OBJECT_CONCURRENCY).map((id) => eraseDataPlane(env, id)));

  // People who belong to no other organization leave with it (their sessions first).
  const lonely = (
    await db.all<{ user_id: number }>(
      sql`SELECT m.user_id FROM memberships m WHERE m.organization_id = ${orgId} AND NOT EXISTS (SELECT 1 FROM memberships o WHERE o.user_id = m.user_id AND o.organization_id <> ${orgId})`,
    )
  ).map((r) => r.user_id);
  const withoutMembership = notExists(db.select({ x: sql`1` }).from(memberships).where(eq(memberships.userId, users.id)));

  await db.batch([
    scrubLedger(db, eq(usageLedger.organizationId, orgId)),
    db.delete(reservations).where(eq(reservations.organizationId, orgId)),
    db.delete(subscriptionSites).where(eq(subscriptionSites.organizationId, orgId)),
    db.delete(subscriptions).where(eq(subscriptions.organizationId, orgId)),
    db.delete(glossaryTerms).where(eq(glossaryTerms.organizationId, orgId)),
    db.delete(invitations).where(eq(invitations.organizationId, orgId)),
    db.delete(sessions).where(inArray(sessions.userId, idList(lonely))),
    db.delete(accountTokens).where(inArray(accountTokens.userId, idList(lonely))),
    db.delete(recoveryCodes).where(inArray(recoveryCodes.userId, idList(lonely))),
    db.delete(memberships).where(eq(memberships.organizationId, orgId)),
    db.delete(users).where(and(inArray(users.id, idList(lonely)), withoutMembership)),
    db.delete(sites).where(eq(sites.organizationId, orgId)),
    db.delete(organizations).where(eq(organizations.id, orgId)),
    db.update(auditLog).set({ detail: null }).where(eq(auditLog.organizationId, orgId)),
    auditStatement(db, { organizationId: orgId, actor, action: "organization.erase", target: `organization:${orgId}`, detail: { sites: siteIds.length } }),
  ]);
}
