/**
 * The operator's view of a site's webhook (docs/runbook.md "Webhooks that do not arrive"): the
 * endpoint and its recent deliveries with their next attempt, sending one again (audited with the
 * operator's name, as the dashboard's redeliver is with the person's), and the deliveries the
 * dead-letter queue ended, across sites.
 */
import type { WebhookDelivery } from "../api/webhook.schemas";
import { controlDb } from "../control/db";
import { type DeliveryRow, listDeliveries as deliveriesOf, findEndpoint, findSiteDelivery, listDeadLetters } from "../control/webhooks.control";
import { ApiError, notFound } from "../errors";
import { DEAD_LETTER_ERROR } from "../webhooks/sweeper";
import type { Actor, SiteRef } from "./actor";
import { deliveryOut, redeliver, webhookOut } from "./webhooks.ops";

export type OperatorDelivery = WebhookDelivery & { next_attempt_at: string | null };

export const operatorDeliveryOut = (r: DeliveryRow): OperatorDelivery => ({ ...deliveryOut(r), next_attempt_at: r.nextAttemptAt });

/** The site's endpoint (null when none) and its latest deliveries, newest first, of one state or all. */
export async function operatorDeliveries(env: Env, site: SiteRef, query: { limit: number; status?: WebhookDelivery["status"] }) {
  const db = controlDb(env.DB);
  const [endpoint, rows] = await Promise.all([findEndpoint(db, site.id), deliveriesOf(db, site.id, query.limit, query.status)]);
  return { webhook: endpoint ? webhookOut(endpoint) : null, deliveries: rows.map(operatorDeliveryOut) };
}

/**
 * Sends a logged delivery again (same body and `webhook-id`, attempts counted afresh): 404 for a
 * delivery the site's log does not hold, 409 while nothing can be sent (no endpoint, or disabled:
 * the attempt would only end it as failed again).
 */
export async function operatorRedeliver(env: Env, actor: Actor, site: SiteRef, id: string): Promise<OperatorDelivery> {
  const db = controlDb(env.DB);
  const [endpoint, delivery] = await Promise.all([findEndpoint(db, site.id), findSiteDelivery(db, site.id, id)]);
  if (!delivery) throw notFound(`Delivery ${id} of site ${site.id}`);
  if (!endpoint) throw new ApiError(409, `Site ${site.id} has no webhook registered: nothing can be sent until its owner registers one.`);
  if (endpoint.disabledAt)
    throw new ApiError(
      409,
      `The webhook of site ${site.id} is disabled since ${endpoint.disabledAt} (it failed for 3 days): its owner re-enables it on the dashboard's Webhooks page, or registers it again; then send the delivery again.`,
    );
  await redeliver(env, actor, site, id);
  return operatorDeliveryOut((await findSiteDelivery(db, site.id, id)) ?? delivery);
}

/** Deliveries the dead-letter queue's consumer ended, newest first; of one site or all. */
export async function deadLetters(env: Env, query: { site_id?: number; limit: number }) {
  const rows = await listDeadLetters(controlDb(env.DB), DEAD_LETTER_ERROR, query.limit, query.site_id);
  return { dead_letters: rows.map((r) => ({ ...operatorDeliveryOut(r), site_id: r.siteId })) };
}
