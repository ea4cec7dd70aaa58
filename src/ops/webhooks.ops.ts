/**
 * A site's webhook, as both doors handle it (the public API's `/v1/webhook`, for connectors,
 * and the dashboard's Webhooks page, for admins and owners): register or replace, show,
 * remove, rotate the secret, send a test, list and redeliver deliveries, re-enable. Each
 * change is one D1 batch with its audit row (never the secret).
 */

import type { WebhookEventType } from "../api/webhook.schemas";
import { WEBHOOK_EVENTS, type Webhook, type WebhookDelivery, type WebhookInput, type WebhookWithSecret } from "../api/webhook.schemas";
import { type AuditAction, auditStatement } from "../control/audit.control";
import { controlDb } from "../control/db";
import {
  type DeliveryRow,
  deleteEndpointStatement,
  listDeliveries as deliveriesOf,
  type EndpointRow,
  enableStatement,
  findEndpoint,
  findSiteDelivery,
  putEndpointStatement,
  resetDeliveryStatement,
  rotateStatement,
} from "../control/webhooks.control";
import { notFound } from "../errors";
import { publishDeps } from "../webhooks/emit";
import { DELIVERY } from "../webhooks/policy";
import { queueDelivery } from "../webhooks/publish";
import { newSecret } from "../webhooks/signing";
import { checkWebhookUrl, loopbackAllowed } from "../webhooks/url";
import type { Actor, SiteRef } from "./actor";

const noWebhook = (site: SiteRef) => notFound(`The webhook of site ${site.id}`);

export function webhookOut(row: EndpointRow, at = new Date()): Webhook {
  const overlap = row.previousUntil && Date.parse(row.previousUntil) > at.getTime() ? row.previousUntil : null;
  return {
    url: row.url,
    events: (row.events ?? [...WEBHOOK_EVENTS]) as WebhookEventType[],
    created_at: row.createdAt,
    updated_at: row.updatedAt,
    previous_secret_expires_at: overlap,
    disabled_at: row.disabledAt,
    failing_since: row.failingSince,
  };
}

const audit = (db: ReturnType<typeof controlDb>, actor: Actor, site: SiteRef, action: AuditAction, detail?: Record<string, unknown>) =>
  auditStatement(db, { organizationId: site.organizationId, actor, action, target: `site:${site.id}`, detail });

/**
 * Registers the site's endpoint or replaces it: a new secret (answered this once), enabled, no
 * failures. `requestUrl` is the door's request: loopback addresses pass only when it came to a
 * loopback host with WEBHOOK_ALLOW_LOOPBACK on (never without it).
 */
export async function putWebhook(env: Env, actor: Actor, site: SiteRef, input: WebhookInput, requestUrl?: string): Promise<WebhookWithSecret> {
  checkWebhookUrl(input.url, requestUrl !== undefined && loopbackAllowed(env, requestUrl));
  const db = controlDb(env.DB);
  const secret = newSecret();
  // Events in the document's order, without repeats; all of them is stored as "all" (null), so new event types reach it too.
  const events = input.events ? WEBHOOK_EVENTS.filter((e) => input.events!.includes(e)) : null;
  const [[row]] = await db.batch([
    putEndpointStatement(db, { siteId: site.id, url: input.url, events: events && events.length < WEBHOOK_EVENTS.length ? events : null, secret, at: new Date().toISOString() }),
    audit(db, actor, site, "webhook.put", { url: input.url, events: events ?? "all" }),
  ]);
  return { ...webhookOut(row), secret };
}

export async function getWebhook(env: Env, site: SiteRef): Promise<Webhook> {
  const row = await findEndpoint(controlDb(env.DB), site.id);
  if (!row) throw noWebhook(site);
  return webhookOut(row);
}

/** Removes the endpoint; deliveries still queued end as failed. Removing none changes nothing. */
export async function deleteWebhook(env: Env, actor: Actor, site: SiteRef): Promise<void> {
  const db = controlDb(env.DB);
  if (!(await findEndpoint(db, site.id))) return;
  await db.batch([deleteEndpointStatement(db, site.id), audit(db, actor, site, "webhook.delete")]);
}

/** A new secret; the previous one keeps signing (a second signature) for 24 hours. */
export async function rotateWebhookSecret(env: Env, actor: Actor, site: SiteRef): Promise<WebhookWithSecret> {
  const db = controlDb(env.DB);
  if (!(await findEndpoint(db, site.id))) throw noWebhook(site);
  const now = new Date();
  const secret = newSecret();
  const until = new Date(now.getTime() + DELIVERY.rotationOverlapMs).toISOString();
  const [[row]] = await db.batch([rotateStatement(db, site.id, secret, until, now.toISOString()), audit(db, actor, site, "webhook.rotate", { previous_until: until })]);
  if (!row) throw noWebhook(site);
  return { ...webhookOut(row, now), secret };
}

/** Sends a `ping` through the usual path (logged, signed, retried); answers its delivery. */
export async function testWebhook(env: Env, site: SiteRef): Promise<{ id: string; event: "ping" }> {
  const db = controlDb(env.DB);
  if (!(await findEndpoint(db, site.id))) throw noWebhook(site);
  return { id: await queueDelivery(publishDeps(env), site.id, "ping", {}), event: "ping" };
}

export async function listWebhookDeliveries(env: Env, site: SiteRef, limit: number): Promise<WebhookDelivery[]> {
  const rows = await deliveriesOf(controlDb(env.DB), site.id, limit);
  return rows.map(deliveryOut);
}

/** A delivery row as the API answers it (the operator's view adds when it is tried next). */
export const deliveryOut = (r: DeliveryRow): WebhookDelivery => ({
  id: r.id,
  event: r.event as WebhookEventType,
  created_at: r.createdAt,
  attempts: r.attempts,
  status: r.status as WebhookDelivery["status"],
  status_code: r.statusCode,
  duration_ms: r.durationMs,
  error: r.error,
});

/** Sends a logged delivery again, with the same body and `webhook-id` (receivers de-duplicate), its attempts counted afresh. */
export async function redeliver(env: Env, actor: Actor, site: SiteRef, id: string): Promise<void> {
  const db = controlDb(env.DB);
  if (!(await findSiteDelivery(db, site.id, id))) throw notFound(`Delivery ${id}`);
  await db.batch([resetDeliveryStatement(db, site.id, id), audit(db, actor, site, "webhook.redeliver", { delivery: id })]);
  await env.WEBHOOK_QUEUE.send({ kind: "deliver", id });
}

/** Ends a disabled spell: deliveries go out again from the next event on. */
export async function enableWebhook(env: Env, actor: Actor, site: SiteRef): Promise<Webhook> {
  const db = controlDb(env.DB);
  if (!(await findEndpoint(db, site.id))) throw noWebhook(site);
  const [[row]] = await db.batch([enableStatement(db, site.id, new Date().toISOString()), audit(db, actor, site, "webhook.enable")]);
  return webhookOut(row);
}
