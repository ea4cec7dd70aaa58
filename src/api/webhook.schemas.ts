/**
 * Webhooks (docs/webhooks.md; docs/decisions.md "Webhooks"): the endpoint's bodies, the delivery log, and each event's
 * payload, as the API validates and the OpenAPI document's top-level `webhooks` describes them.
 */
import { z } from "@hono/zod-openapi";
import { LIMITS } from "../limits";
import { AttentionItemOut, JobOut, Timestamp } from "./schemas";

/** Every event type, in the order the document lists them. */
export const WEBHOOK_EVENTS = ["job.finished", "results.available", "attention.created", "usage.threshold", "ping"] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENTS)[number];
export const WebhookEventName = z.enum(WEBHOOK_EVENTS).openapi("WebhookEventType");

/**
 * The endpoint's address. Where it points (a public host; loopback only in local development)
 * is checked by `src/webhooks/url.ts`, at both doors and at each delivery; these rules hold everywhere.
 */
export const WebhookUrl = z
  .string()
  .max(LIMITS.webhookUrl, { message: `must have at most ${LIMITS.webhookUrl} characters` })
  .superRefine((value, ctx) => {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      ctx.addIssue({ code: "custom", message: "must be an absolute URL (https://…)" });
      return;
    }
    if (url.protocol !== "https:" && url.protocol !== "http:") ctx.addIssue({ code: "custom", message: "must use https://" });
    if (url.username || url.password) ctx.addIssue({ code: "custom", message: "must not contain credentials (user:password@)" });
    if (url.hash) ctx.addIssue({ code: "custom", message: "must not contain a fragment (#…)" });
  })
  .openapi({ format: "uri", example: "https://example.com/transync/webhook" });

export const WebhookIn = z
  .object({
    url: WebhookUrl.openapi({
      description:
        "Where events are POSTed: an absolute `https://` URL to a public host (no private, loopback, link-local or metadata address or name), without credentials or fragment.",
    }),
    events: z
      .array(WebhookEventName)
      .min(1)
      .max(WEBHOOK_EVENTS.length)
      .optional()
      .openapi({ description: "The event types to send; omitted means all. `ping` is always sent by `sendWebhookTest`." }),
  })
  .openapi("WebhookIn");
export type WebhookInput = z.infer<typeof WebhookIn>;

export const WebhookOut = z
  .object({
    url: z.string().openapi({ description: "Where events are POSTed." }),
    events: z.array(WebhookEventName).openapi({ description: "The event types sent." }),
    created_at: Timestamp.openapi({ description: "When the endpoint was first registered." }),
    updated_at: Timestamp.openapi({ description: "When it was last changed." }),
    /** Rotation: the old secret keeps signing until then. */
    previous_secret_expires_at: Timestamp.nullable().openapi({
      description: "After a rotation, deliveries carry a second signature made with the previous secret until this time.",
    }),
    disabled_at: Timestamp.nullable().openapi({
      description: "Set when the endpoint failed for 3 days; nothing is sent until it is registered again (`PUT`) or re-enabled in the dashboard.",
    }),
    failing_since: Timestamp.nullable().openapi({ description: "The first failed attempt since the last successful delivery." }),
  })
  .openapi("Webhook");
export type Webhook = z.infer<typeof WebhookOut>;

export const WebhookSecretOut = WebhookOut.extend({
  secret: z
    .string()
    .openapi({ description: "The signing secret (`whsec_` + base64), answered only here: store it with the connector.", example: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw" }),
}).openapi("WebhookWithSecret");
export type WebhookWithSecret = z.infer<typeof WebhookSecretOut>;

export const DeliveryStatus = z.enum(["pending", "delivered", "failed"]);
export const WebhookDeliveryOut = z
  .object({
    id: z.string().openapi({ description: "The delivery's `webhook-id`, the same on every attempt.", example: "msg_2f1c7b0e6a4d4c1f9b3a8e5d7c6b4a21" }),
    event: z.enum(WEBHOOK_EVENTS).openapi({ description: "The event type delivered." }),
    created_at: Timestamp.openapi({ description: "When the event happened." }),
    attempts: z.number().int().openapi({ description: "Attempts made so far (failed ones are retried with growing delays)." }),
    status: DeliveryStatus.openapi({ description: "`pending` while attempts remain, `delivered` after a 2xx, `failed` after a final answer or 24 hours of retries." }),
    status_code: z.number().int().nullable().openapi({ description: "The last attempt's HTTP status; null when it got none (network error, timeout)." }),
    duration_ms: z.number().int().nullable().openapi({ description: "How long the last attempt took, in milliseconds; null before the first." }),
    error: z.string().nullable().openapi({
      description:
        "Why the last attempt failed, in fixed words (`HTTP 500`, `timeout`, `connection failed`, `destination not allowed`; never the receiver's answer); null when it succeeded or none was made.",
    }),
  })
  .openapi("WebhookDelivery");
export type WebhookDelivery = z.infer<typeof WebhookDeliveryOut>;
export const WebhookDeliveriesOut = z
  .object({ deliveries: z.array(WebhookDeliveryOut).openapi({ description: "The latest deliveries, newest first." }) })
  .openapi("WebhookDeliveries");
export const WebhookDeliveriesQuery = z.object({
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(LIMITS.webhookLog)
    .default(LIMITS.webhookLog)
    .openapi({ description: `How many of the latest deliveries, 1 to ${LIMITS.webhookLog} (default ${LIMITS.webhookLog}).` }),
});

export const WebhookTestOut = z
  .object({ id: z.string().openapi({ description: "The test delivery's `webhook-id`." }), event: z.literal("ping").openapi({ description: "Always `ping`." }) })
  .openapi("WebhookTestOut");

// ---------------------------------------------------------------- events (the bodies sent)

export const ResultsAvailableData = z
  .object({
    pending: z.number().int().openapi({ description: "Results ready to pull now (`listResults`)." }),
    languages: z.array(z.string()).openapi({ description: "The languages with results ready to pull." }),
  })
  .openapi("ResultsAvailableData", { description: "Results ready to pull." });
export const AttentionCreatedData = z
  .object({
    count: z.number().int().openapi({ description: "Translations held back by QA and waiting for a decision in the dashboard." }),
    items: z.array(AttentionItemOut).max(20).openapi({ description: "The first 20 of them." }),
  })
  .openapi("AttentionCreatedData", { description: "Translations held back by QA, waiting for a decision in the dashboard." });
export const UsageThresholdData = z
  .object({
    month: z.string().openapi({ example: "2026-11", description: "The billing month (`YYYY-MM`)." }),
    used_characters: z.number().int().openapi({ description: "Billable characters used this month." }),
    included_characters: z.number().int().openapi({ description: "Characters included per month." }),
    percent: z.union([z.literal(80), z.literal(100)]).openapi({ description: "The threshold crossed: 80 or 100 (% of the included volume)." }),
  })
  .openapi("UsageThresholdData", { description: "The month's use crossed 80 % or 100 % of the included volume." });
export const PingData = z.object({}).openapi("PingData", { description: "Empty: a test delivery (`sendWebhookTest`)." });

export type ResultsAvailable = z.infer<typeof ResultsAvailableData>;
export type AttentionCreated = z.infer<typeof AttentionCreatedData>;
export type UsageThreshold = z.infer<typeof UsageThresholdData>;

/** The envelope (Standard Webhooks): `{type, timestamp, data}`. */
const envelope = <T extends z.ZodType>(type: WebhookEventType, data: T, name: string) =>
  z
    .object({
      type: z.literal(type).openapi({ description: "The event type." }),
      timestamp: Timestamp.openapi({ description: "When the event happened." }),
      data,
    })
    .openapi(name);

export const WEBHOOK_BODIES = {
  "job.finished": envelope("job.finished", JobOut, "JobFinishedEvent"),
  "results.available": envelope("results.available", ResultsAvailableData, "ResultsAvailableEvent"),
  "attention.created": envelope("attention.created", AttentionCreatedData, "AttentionCreatedEvent"),
  "usage.threshold": envelope("usage.threshold", UsageThresholdData, "UsageThresholdEvent"),
  ping: envelope("ping", PingData, "PingEvent"),
} as const;

/** What an event carries, by type. */
export type EventData = {
  "job.finished": z.infer<typeof JobOut>;
  "results.available": ResultsAvailable;
  "attention.created": AttentionCreated;
  "usage.threshold": UsageThreshold;
  ping: Record<string, never>;
};
