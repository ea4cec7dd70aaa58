/**
 * An organization's subscription as the operator sets it (admin API): plan, status, covered
 * sites and an optional volume override, replaced as a whole with its audit row in one batch.
 */
import type { Subscription, SubscriptionSet } from "../api/admin.schemas";
import { auditStatement } from "../control/audit.control";
import { controlDb } from "../control/db";
import { deleteSubscriptionStatements, setSubscriptionStatements, siteOrganizations } from "../control/organizations.control";
import { ApiError } from "../errors";
import type { Actor } from "./actor";
import { overrideCleared } from "./billing.ops";
import { requireOrganization } from "./organizations.ops";

export async function setSubscription(env: Env, actor: Actor, orgId: number, input: SubscriptionSet): Promise<Subscription> {
  await requireOrganization(env, orgId);
  const db = controlDb(env.DB);
  const siteIds = [...new Set(input.site_ids)];
  if (siteIds.length) {
    const found = await siteOrganizations(db, siteIds);
    const foreign = found.filter((s) => s.org !== orgId).map((s) => s.id);
    const unknown = siteIds.filter((id) => !found.some((s) => s.id === id));
    if (unknown.length) throw new ApiError(422, `site_ids: unknown site ${unknown.join(", ")}`);
    if (foreign.length) throw new ApiError(422, `site_ids: site ${foreign.join(", ")} belongs to another organization`);
  }
  const includedCharacters = input.included_characters ?? null;
  await db.batch([
    ...setSubscriptionStatements(db, orgId, { plan: input.plan, status: input.status, includedCharacters, siteIds }),
    auditStatement(db, {
      organizationId: orgId,
      actor,
      action: "subscription.update",
      target: `organization:${orgId}`,
      detail: { plan: input.plan, status: input.status, sites: siteIds.length, included_characters: includedCharacters },
    }),
  ]);
  return { organization_id: orgId, plan: input.plan, status: input.status, site_ids: siteIds, included_characters: includedCharacters };
}

/** Ends the operator's subscription: hosted translation ends (402) unless the organization pays through Stripe, whose subscription then applies again. */
export async function deleteSubscription(env: Env, actor: Actor, orgId: number, at: Date): Promise<void> {
  await requireOrganization(env, orgId);
  const db = controlDb(env.DB);
  await db.batch([
    ...deleteSubscriptionStatements(db, orgId),
    auditStatement(db, { organizationId: orgId, actor, action: "subscription.delete", target: `organization:${orgId}` }),
  ]);
  // An organization that pays through Stripe follows its Stripe subscription again.
  await overrideCleared(env, orgId, at);
}
