// The typed API client: openapi-fetch over the types generated from the OpenAPI document (./schema.ts).
import createClient, { type Client, type ClientOptions } from "openapi-fetch";
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
