// Types of the Transync API client (client/index.js). Hand-written; `paths`, `components` and
// `operations` are generated into client/schema.d.ts by `npm run openapi`.
import type { Client, ClientOptions } from "openapi-fetch";
import type { components, operations, paths } from "./schema";

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

export type TransyncClient = Client<paths, "application/json">;

export function createTransyncClient(options: TransyncClientOptions): TransyncClient;

/** A webhook delivery's body: `{type, timestamp, data}`, by event type. */
export type WebhookEvent =
  | Schemas["JobFinishedEvent"]
  | Schemas["ResultsAvailableEvent"]
  | Schemas["AttentionCreatedEvent"]
  | Schemas["UsageThresholdEvent"]
  | Schemas["PingEvent"];

/**
 * Verifies a webhook delivery with the endpoint's secret (`whsec_…`) and answers its event;
 * throws when the signature does not match or the timestamp is more than 5 minutes off.
 * `body` is the raw request body as received.
 */
export function verifyWebhook(secret: string, headers: Headers | Record<string, string | string[] | undefined>, body: string): WebhookEvent;
