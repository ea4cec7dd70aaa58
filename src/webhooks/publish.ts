/**
 * From an event to a queued delivery: the site's endpoint must exist, be enabled and want the
 * event; coalesced events claim their 10-second window; the delivery is logged in D1 (its id
 * is the stable `webhook-id`) and a Queue message carries it to the consumer.
 */
import type { WebhookEventType } from "../api/webhook.schemas";
import type { ControlDb } from "../control/db";
import { claimWindow, type EndpointRow, findEndpoint, insertDelivery } from "../control/webhooks.control";
import { LIMITS } from "../limits";
import { deliveryId, envelope, isCoalesced, type SiteEvent, type WebhookMessage } from "./events";
import { DELIVERY } from "./policy";

export interface PublishDeps {
  db: ControlDb;
  queue: Queue<WebhookMessage>;
  /** Milliseconds since the epoch (a test seam). */
  now: () => number;
}

export const wants = (endpoint: EndpointRow, type: WebhookEventType) => type === "ping" || !endpoint.events || endpoint.events.includes(type);

/** Queues the event for the site's endpoint; answers the delivery id, or null when nothing is sent (now). */
export async function publish(deps: PublishDeps, siteId: number, event: SiteEvent): Promise<string | null> {
  const endpoint = await findEndpoint(deps.db, siteId);
  if (!endpoint || endpoint.disabledAt || !wants(endpoint, event.type)) return null;
  if (isCoalesced(event.type)) {
    const delayMs = await claimWindow(deps.db, siteId, event.type, deps.now(), DELIVERY.coalesceMs);
    if (delayMs === null) return null;
    const message: WebhookMessage = { kind: "compose", site_id: siteId, type: event.type };
    await deps.queue.send(message, delayMs > 0 ? { delaySeconds: Math.ceil(delayMs / 1000) } : undefined);
    return null;
  }
  return queueDelivery(deps, siteId, event.type, (event as { data: unknown }).data);
}

/** Logs a delivery of this body and queues its first attempt. */
export async function queueDelivery(deps: PublishDeps, siteId: number, type: WebhookEventType, data: unknown): Promise<string> {
  const id = await logDelivery(deps, siteId, type, data);
  await deps.queue.send({ kind: "deliver", id });
  return id;
}

/** Logs a pending delivery (the body as it will be signed and sent on every attempt); answers its `webhook-id`. */
export async function logDelivery(deps: Pick<PublishDeps, "db" | "now">, siteId: number, type: WebhookEventType, data: unknown): Promise<string> {
  const at = new Date(deps.now());
  const id = deliveryId();
  await insertDelivery(deps.db, { id, siteId, event: type, payload: envelope(type, data, at), createdAt: at.toISOString() }, LIMITS.webhookLog);
  return id;
}
