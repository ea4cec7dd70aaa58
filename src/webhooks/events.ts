/**
 * What the rest of the house hands to webhooks: a site event. The job pipeline and the site
 * object call `emit(event)` (src/webhooks/emit.ts) and never wait for, or hear about, a delivery.
 */
import type { EventData, WebhookEventType } from "../api/webhook.schemas";

/**
 * Events whose data is read when they go out, not when they happen: they are coalesced
 * (at most one per site per 10 seconds), so the data is the site's state at sending time.
 * `usage.threshold` is emitted after billed work and sent only when a threshold is crossed.
 */
export const COALESCED = ["results.available", "attention.created", "usage.threshold"] as const;
export type CoalescedType = (typeof COALESCED)[number];
export const isCoalesced = (type: WebhookEventType): type is CoalescedType => (COALESCED as readonly string[]).includes(type);

export type SiteEvent = { type: CoalescedType } | { type: "job.finished"; data: EventData["job.finished"] } | { type: "ping"; data: EventData["ping"] };

/** Queue messages: compose a coalesced event from the site's state, or attempt a stored delivery. */
export type WebhookMessage = { kind: "compose"; site_id: number; type: CoalescedType } | { kind: "deliver"; id: string };

/** The Standard Webhooks body. */
export const envelope = (type: WebhookEventType, data: unknown, at: Date) => JSON.stringify({ type, timestamp: at.toISOString(), data });

/** A new `webhook-id`. */
export const deliveryId = () => `msg_${crypto.randomUUID().replaceAll("-", "")}`;
