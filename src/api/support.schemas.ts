/**
 * Bodies of the operator's support endpoints (src/routes/support.routes.ts): a site's webhook
 * deliveries and the dead letters, and an organization's credits.
 */
import { z } from "@hono/zod-openapi";
import { LIMITS } from "../limits";
import { Timestamp } from "./schemas";
import { DeliveryStatus, WebhookDeliveriesQuery, WebhookDeliveryOut, WebhookOut } from "./webhook.schemas";

// ---------------------------------------------------------------- webhooks

export const OperatorDeliveryOut = WebhookDeliveryOut.extend({
  next_attempt_at: Timestamp.nullable().openapi({
    description: "When the next attempt is due (a pending delivery after a failed attempt); null once settled, or before the first attempt.",
  }),
}).openapi("OperatorWebhookDelivery");

/** The connector's query (`limit`) and a state to keep. */
export const OperatorDeliveriesQuery = WebhookDeliveriesQuery.extend({
  status: DeliveryStatus.optional().openapi({ description: "Only deliveries in this state (`pending`, `delivered` or `failed`)." }),
});

export const OperatorDeliveriesOut = z
  .object({
    webhook: WebhookOut.nullable().openapi({
      description: "The site's endpoint (without its secret): `disabled_at` and `failing_since` say why nothing arrives; null when none is registered.",
    }),
    deliveries: z.array(OperatorDeliveryOut).openapi({ description: "The latest deliveries, newest first (the site keeps 100)." }),
  })
  .openapi("OperatorWebhookDeliveries");

export const DeliveryIdParam = z.object({
  site_id: z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER),
  delivery_id: z
    .string()
    .regex(/^msg_[0-9a-f]{32}$/, "must be a delivery id (msg_ and 32 hexadecimal digits)")
    .openapi({ description: "The delivery's `webhook-id`.", example: "msg_2f1c7b0e6a4d4c1f9b3a8e5d7c6b4a21" }),
});

export const DeadLettersQuery = z.object({
  site_id: z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER).optional().openapi({ description: "Only this site's." }),
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(LIMITS.webhookLog)
    .default(LIMITS.webhookLog)
    .openapi({ description: `At most this many, 1 to ${LIMITS.webhookLog}.` }),
});

export const DeadLettersOut = z
  .object({
    dead_letters: z
      .array(OperatorDeliveryOut.extend({ site_id: z.number().int().openapi({ description: "The delivery's site." }) }))
      .openapi({ description: "Deliveries whose queue message failed every retry and went to the dead-letter queue (its consumer ended them as failed), newest first." }),
  })
  .openapi("DeadLettersOut");

export const SUPPORT_EXAMPLES = {
  delivery: {
    id: "msg_2f1c7b0e6a4d4c1f9b3a8e5d7c6b4a21",
    event: "results.available",
    created_at: "2026-11-22T10:00:00.000Z",
    attempts: 1,
    status: "pending",
    status_code: 503,
    duration_ms: 212,
    error: "HTTP 503",
    next_attempt_at: "2026-11-22T10:00:05.212Z",
  },
} as const;

// ---------------------------------------------------------------- credits

export const CreditIn = z
  .object({
    month: z
      .string()
      .regex(/^\d{4}-(0[1-9]|1[0-2])$/, "must be a month as YYYY-MM")
      .openapi({ description: "The month whose overage the credit reduces (`YYYY-MM`, UTC): the current month or an ended one not closed yet.", example: "2026-11" }),
    characters: z.number().int().min(1).max(1_000_000_000).openapi({ description: "Characters credited (1 to 1,000,000,000).", example: 1_800_000 }),
    reason: z.string().trim().min(1).max(300).openapi({
      description: "Why, in words for the customer: shown with the credit on the organization's usage page.",
      example: "The job cancelled on 22 November retranslated the whole site by mistake: its 1,800,000 characters are credited.",
    }),
  })
  .openapi("CreditIn");

export const CreditOut = z
  .object({
    id: z.number().int().openapi({ description: "The credit's id." }),
    organization_id: z.number().int().openapi({ description: "The organization credited." }),
    month: z.string().openapi({ description: "The month (`YYYY-MM`)." }),
    characters: z.number().int().openapi({ description: "Characters credited." }),
    reason: z.string().openapi({ description: "Why." }),
    created_by: z.string().openapi({ description: "The operator who granted it (`admin:<name>`, or `admin`)." }),
    created_at: Timestamp.openapi({ description: "When it was granted." }),
  })
  .openapi("CreditOut");
