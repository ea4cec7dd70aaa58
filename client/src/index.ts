// @transync/client: the typed API client (openapi-fetch over the types generated from the
// OpenAPI document into ./schema.ts by `npm run openapi`), webhook verification and the helpers.
import createClient, { type Client, type ClientOptions } from "openapi-fetch";
import { Webhook } from "standardwebhooks";
import type { components, operations, paths } from "./schema.js";

export type { components, operations, paths };

/** Every named body of the API: `Schemas["UnitSnapshotIn"]`, `Schemas["JobOut"]`, … */
export type Schemas = components["schemas"];

export interface TransyncClientOptions extends Omit<ClientOptions, "baseUrl" | "headers"> {
  /** The service's base address, e.g. `https://api.transync.dev` or `http://127.0.0.1:8787`. */
  baseUrl: string;
  /** A site API key (`tsk_…`) or, for `/admin/v1/…`, the admin token; sent as a bearer token. */
  key?: string;
  /** Extra headers for every request. */
  headers?: Record<string, string>;
}

/** An openapi-fetch client typed by the API's paths. */
export type TransyncClient = Client<paths, "application/json">;

/** A client bound to one service and one key. */
export function createTransyncClient({ baseUrl, key, headers, fetch, Request, ...rest }: TransyncClientOptions): TransyncClient {
  return createClient<paths, "application/json">({
    baseUrl: baseUrl.replace(/\/+$/, ""),
    headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), ...headers },
    ...(fetch ? { fetch } : {}),
    ...(Request ? { Request } : {}),
    ...rest,
  });
}

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
  pushUnits,
  REVIEWS_PER_REQUEST,
  type Review,
  type RunJobOptions,
  review,
  runJob,
} from "./helpers.js";
export { backoffMs, type RetryOptions, retryAfterMs } from "./retry.js";
// Splitters: documents into segments with keys that survive edits, and back (client/README.md "Splitters").
export * from "./split/index.js";
