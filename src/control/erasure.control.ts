/**
 * Erasure's D1 part (the whole, in order, is `src/ops/erasure.ops.ts`): ending access (keys
 * deleted, cached look-ups dropped) and, last, the control-plane rows with the audit entry in
 * one batch.
 *
 * What stays: usage-ledger rows and credits (billing records) with only ids, month, day and counts; the
 * audit log's who/what/when/target (an organization's entries lose their `detail`); and the
 * ids themselves, which AUTOINCREMENT never hands out again.
 */

import { and, eq, inArray, notExists, sql } from "drizzle-orm";
import { auditStatement } from "./audit.control";
import { type ControlDb, idList } from "./db";
import { forgetSite } from "./keys.control";
import {
  accountTokens,
  apiKeys,
  auditLog,
  credits,
  glossaryTerms,
  invitations,
  jobStarters,
  mailOutbox,
  memberships,
  organizations,
  recoveryCodes,
  reservations,
  sessions,
  signInFailures,
  sites,
  stripeSubscriptions,
  subscriptionSites,
  subscriptions,
  usageLedger,
  users,
} from "./schema";
import { deleteWebhookRows } from "./webhooks.control";

/** R2 prefix of a site's batch bodies; the site object refuses any other. */
export const batchPrefix = (siteId: number) => `batches/${siteId}/`;

/** Ledger rows keep ids, month, the day (per-day invoice figures) and counts; the time of day goes. */
function scrubLedger(db: ControlDb, where: ReturnType<typeof eq>) {
  return db
    .update(usageLedger)
    .set({ createdAt: sql`substr(${usageLedger.createdAt}, 1, 10)` })
    .where(where);
}

/** The site and its organization, or undefined. */
export async function siteToErase(db: ControlDb, siteId: number) {
  return db.select({ id: sites.id, organizationId: sites.organizationId }).from(sites).where(eq(sites.id, siteId)).get();
}

/** The organization's sites' ids, or undefined when there is no such organization. */
export async function organizationToErase(db: ControlDb, orgId: number) {
  const org = await db.select({ id: organizations.id }).from(organizations).where(eq(organizations.id, orgId)).get();
  if (!org) return undefined;
  return { siteIds: (await db.select({ id: sites.id }).from(sites).where(eq(sites.organizationId, orgId))).map((s) => s.id) };
}

/** Access ends first: the site's keys go and this isolate forgets them. */
export async function dropSiteKeys(db: ControlDb, siteId: number) {
  await db.delete(apiKeys).where(eq(apiKeys.siteId, siteId));
  forgetSite(siteId);
}

export async function dropOrganizationKeys(db: ControlDb, orgId: number, siteIds: number[]) {
  await db.delete(apiKeys).where(inArray(apiKeys.siteId, db.select({ id: sites.id }).from(sites).where(eq(sites.organizationId, orgId))));
  for (const id of siteIds) forgetSite(id);
}

/** The site's control-plane rows, last (the site row goes in the same batch as the audit entry). */
export async function eraseSiteRows(db: ControlDb, site: { id: number; organizationId: number }, actor: string) {
  await db.batch([
    scrubLedger(db, eq(usageLedger.siteId, site.id)),
    db.delete(reservations).where(eq(reservations.siteId, site.id)),
    db.delete(subscriptionSites).where(eq(subscriptionSites.siteId, site.id)),
    ...deleteWebhookRows(db, [site.id]),
    db.delete(sites).where(eq(sites.id, site.id)),
    auditStatement(db, { organizationId: site.organizationId, actor, action: "site.erase", target: `site:${site.id}` }),
  ]);
}

/** The organization's rows; people who belong to no other organization leave with it (their sessions first). */
export async function eraseOrganizationRows(db: ControlDb, orgId: number, siteIds: number[], actor: string) {
  const lonely = (
    await db.all<{ user_id: number }>(
      sql`SELECT m.user_id FROM memberships m WHERE m.organization_id = ${orgId} AND NOT EXISTS (SELECT 1 FROM memberships o WHERE o.user_id = m.user_id AND o.organization_id <> ${orgId})`,
    )
  ).map((r) => r.user_id);
  const withoutMembership = notExists(db.select({ x: sql`1` }).from(memberships).where(eq(memberships.userId, users.id)));

  await db.batch([
    scrubLedger(db, eq(usageLedger.organizationId, orgId)),
    // Credits are billing records too: ids, month and characters stay; the reason (free text) goes.
    db.update(credits).set({ reason: "" }).where(eq(credits.organizationId, orgId)),
    db.delete(reservations).where(eq(reservations.organizationId, orgId)),
    db.delete(subscriptionSites).where(eq(subscriptionSites.organizationId, orgId)),
    db.delete(subscriptions).where(eq(subscriptions.organizationId, orgId)),
    db.delete(stripeSubscriptions).where(eq(stripeSubscriptions.organizationId, orgId)),
    db.delete(glossaryTerms).where(eq(glossaryTerms.organizationId, orgId)),
    db.delete(invitations).where(eq(invitations.organizationId, orgId)),
    db.delete(sessions).where(inArray(sessions.userId, idList(lonely))),
    db.delete(accountTokens).where(inArray(accountTokens.userId, idList(lonely))),
    db.delete(recoveryCodes).where(inArray(recoveryCodes.userId, idList(lonely))),
    db.delete(signInFailures).where(inArray(signInFailures.userId, idList(lonely))),
    db.delete(memberships).where(eq(memberships.organizationId, orgId)),
    db.delete(users).where(and(inArray(users.id, idList(lonely)), withoutMembership)),
    ...deleteWebhookRows(db, siteIds),
    db.delete(sites).where(eq(sites.organizationId, orgId)),
    db.delete(organizations).where(eq(organizations.id, orgId)),
    db.update(auditLog).set({ detail: null }).where(eq(auditLog.organizationId, orgId)),
    auditStatement(db, { organizationId: orgId, actor, action: "organization.erase", target: `organization:${orgId}`, detail: { sites: siteIds.length } }),
  ]);
}

/** The organizations (id, name) where the person is the only owner: erasing them would leave the organization without one. */
export async function soleOwnerships(db: ControlDb, userId: number) {
  return db.all<{ id: number; name: string }>(sql`
    SELECT o.id, o.name FROM memberships m JOIN organizations o ON o.id = m.organization_id
    WHERE m.user_id = ${userId} AND m.role = 'owner'
      AND NOT EXISTS (SELECT 1 FROM memberships x WHERE x.organization_id = m.organization_id AND x.role = 'owner' AND x.user_id <> ${userId})
    ORDER BY o.id`);
}

/**
 * One person's rows, in one batch: sessions, account tokens, recovery codes, sign-in failure counts, memberships, the
 * invitations and mails addressed to them, the jobs they are to hear about, and the user row; their
 * address leaves the audit log (detail and actor), which keeps `user:<id>` as who acted.
 */
export async function erasePersonRows(db: ControlDb, user: { id: number; email: string }, orgIds: number[], actor: string) {
  const email = user.email;
  await db.batch([
    db.delete(sessions).where(eq(sessions.userId, user.id)),
    db.delete(accountTokens).where(eq(accountTokens.userId, user.id)),
    db.delete(recoveryCodes).where(eq(recoveryCodes.userId, user.id)),
    db.delete(signInFailures).where(eq(signInFailures.userId, user.id)),
    db.delete(memberships).where(eq(memberships.userId, user.id)),
    db.delete(invitations).where(eq(invitations.email, email)),
    db.delete(mailOutbox).where(eq(mailOutbox.to, email)),
    db.delete(jobStarters).where(eq(jobStarters.userId, user.id)),
    db.delete(users).where(eq(users.id, user.id)),
    db
      .update(auditLog)
      .set({ detail: sql`replace(${auditLog.detail}, ${JSON.stringify(email).slice(1, -1)}, '[erased]')` })
      .where(sql`instr(${auditLog.detail}, ${JSON.stringify(email).slice(1, -1)}) > 0`),
    db
      .update(auditLog)
      .set({ actor: sql`trim(replace(${auditLog.actor}, ${email}, ''))` })
      .where(sql`instr(${auditLog.actor}, ${email}) > 0`),
    ...orgIds.map((organizationId) => auditStatement(db, { organizationId, actor, action: "person.erase", target: `user:${user.id}` })),
    ...(orgIds.length ? [] : [auditStatement(db, { organizationId: null, actor, action: "person.erase", target: `user:${user.id}` })]),
  ]);
}
