/**
 * Erasure (docs/decisions.md "Retention and erasure"): a site's or an organization's data
 * leaves every store. Access ends first (keys deleted, cached look-ups dropped), then the
 * site objects' storage, the organization memory's entries (a site's) or storage (an organization's), the R2 leftovers and finally the control-plane rows, so a failure
 * half-way can simply be retried (each step is idempotent; the site row goes last).
 */

import { eq } from "drizzle-orm";
import { billingProvider, stripeClient } from "../billing/stripe";
import { mirrorOf } from "../billing/stripe-sync";
import { type ControlDb, controlDb } from "../control/db";
import {
  batchPrefix,
  dropOrganizationKeys,
  dropSiteKeys,
  eraseOrganizationRows,
  erasePersonRows,
  eraseSiteRows,
  organizationToErase,
  siteToErase,
  soleOwnerships,
} from "../control/erasure.control";
import { memberships, users } from "../control/schema";
import { ApiError, notFound } from "../errors";
import { orgMemory } from "../memory/stub";
import type { Actor } from "./actor";

/** Site objects erased at once when an organization goes. */
const OBJECT_CONCURRENCY = 8;

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

/** Stripe's statuses after which a subscription charges nothing more. */
const ENDED = new Set(["canceled", "incomplete_expired"]);

/**
 * An organization that pays through Stripe would go on being charged after it is erased: its
 * subscription is cancelled at once, before anything is deleted (the mirror row that names it
 * goes with the organization's rows). Safe to retry: an ended subscription is left alone.
 */
async function cancelStripeSubscription(env: Env, db: ControlDb, orgId: number) {
  if (billingProvider(env) !== "stripe") return;
  const mirror = await mirrorOf(db, orgId);
  if (!mirror) return;
  const stripe = stripeClient(env);
  const current = await stripe.subscriptions.retrieve(mirror.subscriptionId);
  if (!ENDED.has(current.status)) await stripe.subscriptions.cancel(mirror.subscriptionId, {}, { idempotencyKey: `erase:${orgId}:${mirror.subscriptionId}` });
}

export async function eraseSite(env: Env, actor: Actor, siteId: number): Promise<void> {
  const db = controlDb(env.DB);
  const site = await siteToErase(db, siteId);
  if (!site) throw notFound(`Site ${siteId}`);
  await dropSiteKeys(db, siteId);
  await eraseDataPlane(env, siteId);
  // What the site shared leaves the organization's memory (later copies from it are refused).
  await orgMemory(env, site.organizationId).removeSite(siteId, true);
  await eraseSiteRows(db, site, actor);
}

export async function eraseOrganization(env: Env, actor: Actor, orgId: number): Promise<void> {
  const db = controlDb(env.DB);
  const org = await organizationToErase(db, orgId);
  if (!org) throw notFound(`Organization ${orgId}`);
  await cancelStripeSubscription(env, db, orgId);
  await dropOrganizationKeys(db, orgId, org.siteIds);
  for (let i = 0; i < org.siteIds.length; i += OBJECT_CONCURRENCY) await Promise.all(org.siteIds.slice(i, i + OBJECT_CONCURRENCY).map((id) => eraseDataPlane(env, id)));
  // The organization's memory object: all its storage (after the sites, so none copies into it again).
  await orgMemory(env, orgId).erase();
  await eraseOrganizationRows(db, orgId, org.siteIds, actor);
}

/**
 * Erases one person (DELETE /admin/v1/users/{user_id}, "Delete my account" on the account page):
 * refused with 409 while they are the only owner of an organization (another owner first, or the
 * organization's erasure); otherwise their sessions, tokens, recovery codes, memberships, mails
 * and address go at once (src/control/erasure.control.ts erasePersonRows), audited in each organization.
 */
export async function erasePerson(env: Env, actor: Actor, userId: number): Promise<void> {
  const db = controlDb(env.DB);
  const user = await db.select({ id: users.id, email: users.email }).from(users).where(eq(users.id, userId)).get();
  if (!user) throw notFound(`User ${userId}`);
  const sole = await soleOwnerships(db, userId);
  if (sole.length)
    throw new ApiError(
      409,
      `${sole.map((o) => `${o.name} (organization ${o.id})`).join(", ")} would be left without an owner: make another member owner first, or erase the organization.`,
    );
  const orgIds = (await db.select({ id: memberships.organizationId }).from(memberships).where(eq(memberships.userId, userId))).map((m) => m.id);
  await erasePersonRows(db, user, orgIds, actor);
}
