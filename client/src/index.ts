// @transync/client: the typed API client (openapi-fetch over the types generated from the
// OpenAPI document into ./schema.ts by `npm run openapi`), webhook verification and the helpers.
import { Webhook } from "standardwebhooks";
import type { Schemas } from "./client.js";

export { type components, createTransyncClient, type operations, type paths, type Schemas, type TransyncClient, type TransyncClientOptions } from "./client.js";

/** A webhook delivery's body: `{type, timestamp, data}`, by event type. */
export type WebhookEvent =
  | Schemas["JobFinishedEvent"]
  | Schemas["ResultsAvailableEvent"]
  | Schemas["AttentionCreatedEvent"]
  | Schemas["UsageThresholdEvent"]
  | Schemas["PingEvent"];

/**
 * Verifies a webhook delivery (Standard Webhooks: `webhook-id`, `webhook-timestamp`,
 * `webhook-signature`) with the endpoint's secret (`whsec_…`) and answers its event; throws when
 * the signature does not match or the timestamp is more than 5 minutes off. Pass the body exactly
 * as received (the raw text, not re-serialized JSON). During the 24 hours after a rotation either
 * secret verifies.
 */
export function verifyWebhook(secret: string, headers: Headers | Record<string, string | string[] | undefined>, body: string): WebhookEvent {
  const get = (name: string): string | undefined => {
    if (typeof headers.get === "function") return (headers as Headers).get(name) ?? undefined;
    const value = Object.entries(headers as Record<string, string | string[] | undefined>).find(([k]) => k.toLowerCase() === name)?.[1];
    return Array.isArray(value) ? value.join(" ") : value;
  };
  const plain: Record<string, string> = {};
  for (const name of ["webhook-id", "webhook-timestamp", "webhook-signature"]) {
    const value = get(name);
    if (value !== undefined) plain[name] = value;
  }
  return new Webhook(secret).verify(body, plain) as WebhookEvent;
}

export { ADAPTERS, type Adapter, isAdapter } from "./adapters.js";
export {
  EditMismatchError,
  type EditorReviewsOptions,
  editorReviews,
  type TranslatedDocument,
  type TranslatedDocumentOptions,
  translatedDocument,
  unitStatusWithTexts,
} from "./documents.js";
export { TransyncError, type TransyncErrorCode } from "./errors.js";
export {
  ACK_IDS,
  ack,
  BATCH_BYTES,
  BATCH_UNITS,
  type CallOptions,
  type ConfirmPolicy,
  FINAL_JOB_STATES,
  type PendingResultsOptions,
  type PushFailure,
  type PushOptions,
  type PushProgress,
  type PushResult,
  pendingResults,
  planBatches,
  previousSegments,
  pushUnits,
  REVIEWS_PER_REQUEST,
  type Review,
  type RunJobOptions,
  review,
  runJob,
  TEXTS_UNITS,
} from "./helpers.js";
export { backoffMs, type RetryOptions, retryAfterMs } from "./retry.js";
// Splitters: documents into segments with keys that survive edits, and back (client/README.md "Splitters").
export * from "./split/index.js";
