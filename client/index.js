// The Transync API client: openapi-fetch over the types generated from the OpenAPI document
// (client/schema.d.ts). Hand-written; the types it is checked against are generated.
import createClient from "openapi-fetch";
import { Webhook } from "standardwebhooks";

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

/**
 * Verifies a webhook delivery (Standard Webhooks: `webhook-id`, `webhook-timestamp`,
 * `webhook-signature`) with the endpoint's secret and answers the event; throws when the
 * signature does not match or the timestamp is more than 5 minutes off. Pass the body exactly
 * as received (the raw text, not re-serialized JSON). During the 24 hours after a rotation
 * either secret verifies.
 *
 * @param {string} secret
 * @param {Headers | Record<string, string | string[] | undefined>} headers
 * @param {string} body
 * @returns {import("./index").WebhookEvent}
 */
export function verifyWebhook(secret, headers, body) {
  /** @type {Record<string, string>} */
  const plain = {};
  const get = (name) => {
    if (typeof headers.get === "function") return headers.get(name) ?? undefined;
    const value = Object.entries(headers).find(([k]) => k.toLowerCase() === name)?.[1];
    return Array.isArray(value) ? value.join(" ") : value;
  };
  for (const name of ["webhook-id", "webhook-timestamp", "webhook-signature"]) {
    const value = get(name);
    if (value !== undefined) plain[name] = value;
  }
  return new Webhook(secret).verify(body, plain);
}
