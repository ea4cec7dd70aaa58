// The Transync API client: openapi-fetch over the types generated from the OpenAPI document
// (client/schema.d.ts). Hand-written; the types it is checked against are generated.
import createClient from "openapi-fetch";

/**
 * A client bound to one service and one key.
 *
 * @param {import("./index").TransyncClientOptions} options
 * @returns {import("./index").TransyncClient}
 */
export function createTransyncClient({ baseUrl, key, headers, fetch, Request, ...rest }) {
  return createClient({
    baseUrl: baseUrl.replace(/\/+$/, ""),
    headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), ...headers },
    ...(fetch ? { fetch } : {}),
    ...(Request ? { Request } : {}),
    ...rest,
  });
}
