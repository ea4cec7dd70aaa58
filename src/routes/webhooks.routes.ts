/**
 * The site's webhook for connectors (docs/webhooks.md): register, show, remove, rotate,
 * test, and the delivery log; and every event, described under the document's top-level
 * `webhooks`. The operations live in src/ops/webhooks.ops.ts (the dashboard's page calls them too).
 */
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { WEBHOOK_EXAMPLES as EX } from "../api/webhook.examples";
import { WEBHOOK_BODIES, WEBHOOK_EVENTS, WebhookDeliveriesOut, WebhookDeliveriesQuery, WebhookIn, WebhookOut, WebhookSecretOut, WebhookTestOut } from "../api/webhook.schemas";
import type { App } from "../context";
import { keyActor } from "../ops/actor";
import { deleteWebhook, getWebhook, listWebhookDeliveries, putWebhook, rotateWebhookSecret, testWebhook } from "../ops/webhooks.ops";
import { authErrors, bearer, body, bodyErrors, errors, notFoundResponse, ok } from "./common";

export const webhookRoutes = new OpenAPIHono<App>();

const caller = (c: Context<App>) => ({ site: c.get("site"), actor: keyActor(c.get("keyId")) });

const SIGNING =
  "Deliveries are signed as Standard Webhooks describes (headers `webhook-id`, `webhook-timestamp`, `webhook-signature`); verify them with the `standardwebhooks` library or the client's `verifyWebhook`.";

webhookRoutes.openapi(
  createRoute({
    method: "put",
    path: "/v1/webhook",
    operationId: "setWebhook",
    summary: "Register the site's webhook",
    description:
      "Registers the site's one webhook endpoint, or replaces it, and answers its signing secret (`whsec_…`) this once. `events` omitted means all. " +
      "`url` must be `https://` to a public host, without credentials, at most 2,000 characters: IP addresses in loopback, private, link-local, shared (100.64/10), unique-local, multicast, reserved and documentation ranges (in any notation, IPv4-mapped IPv6 included), `localhost`, `*.local`, `*.internal` and cloud metadata names are refused with 422 (plain `http://` to 127.0.0.1, localhost or [::1] only on a service running locally with `WEBHOOK_ALLOW_LOOPBACK=true`). " +
      "Registering again issues a new secret and re-enables a disabled endpoint. " +
      SIGNING,
    tags: ["webhooks"],
    security: bearer,
    request: body(WebhookIn, EX.webhookIn),
    responses: { 200: ok(WebhookSecretOut, "The endpoint, with its secret (shown only here and on rotation)", EX.webhookWithSecret), ...errors, ...bodyErrors },
  }),
  async (c) => {
    const { site, actor } = caller(c);
    return c.json(await putWebhook(c.env, actor, site, c.req.valid("json"), c.req.url), 200);
  },
);

webhookRoutes.openapi(
  createRoute({
    method: "get",
    path: "/v1/webhook",
    operationId: "getWebhook",
    summary: "Show the site's webhook",
    description: "The endpoint without its secret; `disabled_at` is set when it failed for 3 days (register it again to re-enable it). 404 when none is registered.",
    tags: ["webhooks"],
    security: bearer,
    responses: { 200: ok(WebhookOut, "The endpoint", EX.webhook), ...authErrors, ...notFoundResponse },
  }),
  async (c) => c.json(await getWebhook(c.env, c.get("site")), 200),
);

webhookRoutes.openapi(
  createRoute({
    method: "delete",
    path: "/v1/webhook",
    operationId: "deleteWebhook",
    summary: "Remove the site's webhook",
    description: "Nothing is sent from then on; deliveries still waiting end as failed. Always answers 204, also when none was registered. Polling works as before.",
    tags: ["webhooks"],
    security: bearer,
    responses: { 204: { description: "Removed (or none was registered)" }, ...authErrors },
  }),
  async (c) => {
    const { site, actor } = caller(c);
    await deleteWebhook(c.env, actor, site);
    return c.body(null, 204);
  },
);

webhookRoutes.openapi(
  createRoute({
    method: "post",
    path: "/v1/webhook/rotate",
    operationId: "replaceWebhookSecret",
    summary: "Rotate the webhook's signing secret",
    description:
      "Issues a new secret and answers it this once. For 24 hours (`previous_secret_expires_at`) deliveries carry two signatures in `webhook-signature`, one per secret, so the receiver can switch at its own pace; then only the new one signs.",
    tags: ["webhooks"],
    security: bearer,
    responses: {
      200: ok(WebhookSecretOut, "The endpoint with its new secret", { ...EX.webhookWithSecret, previous_secret_expires_at: "2026-11-23T10:00:00.000Z" }),
      ...authErrors,
      ...notFoundResponse,
    },
  }),
  async (c) => {
    const { site, actor } = caller(c);
    return c.json(await rotateWebhookSecret(c.env, actor, site), 200);
  },
);

webhookRoutes.openapi(
  createRoute({
    method: "post",
    path: "/v1/webhook/test",
    operationId: "sendWebhookTest",
    summary: "Send a test event",
    description: "Queues a `ping` to the endpoint (signed, logged and retried like every delivery) and answers its delivery id; follow it in `listWebhookDeliveries`.",
    tags: ["webhooks"],
    security: bearer,
    responses: { 202: ok(WebhookTestOut, "The ping is queued", EX.test), ...authErrors, ...notFoundResponse },
  }),
  async (c) => c.json(await testWebhook(c.env, c.get("site")), 202),
);

webhookRoutes.openapi(
  createRoute({
    method: "get",
    path: "/v1/webhook/deliveries",
    operationId: "listWebhookDeliveries",
    summary: "List recent deliveries",
    description:
      "The site's last deliveries, newest first (100 are kept): event, attempts, the last attempt's status code, duration and error. " +
      "A delivery is retried with growing delays for about 27 hours after network errors, timeouts, 429 and 5xx; any other answer than 2xx is final.",
    tags: ["webhooks"],
    security: bearer,
    request: { query: WebhookDeliveriesQuery },
    responses: { 200: ok(WebhookDeliveriesOut, "Deliveries, newest first", EX.deliveries), ...errors },
  }),
  async (c) => c.json({ deliveries: await listWebhookDeliveries(c.env, c.get("site"), c.req.valid("query").limit) }, 200),
);

// ------------------------------------------------------------------ events (the document's top-level `webhooks`)

const EVENT_DESCRIPTIONS: Record<(typeof WEBHOOK_EVENTS)[number], [string, string]> = {
  "job.finished": ["A job finished", "A job succeeded, failed or was cancelled; `data` is its `JobOut`, as `getJob` answers."],
  "results.available": [
    "Results are ready to pull",
    "Results became pullable (`listResults`): `pending` is how many are ready now, `languages` which. At most one per site every 10 seconds; the data is read when it is sent. Pull and acknowledge as usual.",
  ],
  "attention.created": [
    "QA held translations back",
    "QA held translations back for review in the dashboard: `count` waiting, `items` the first 20 (as `listAttention` lists them). At most one per site every 10 seconds.",
  ],
  "usage.threshold": ["Usage reached a threshold", "The organization's billable characters this month reached 80 % or 100 % of the included volume; once per month each."],
  ping: ["A test event", "Sent by `sendWebhookTest`, to whatever events the endpoint subscribed."],
};

const WebhookHeaders = z.object({
  "webhook-id": z.string().openapi({ description: "The delivery's id, the same on every attempt.", example: "msg_2f1c7b0e6a4d4c1f9b3a8e5d7c6b4a21" }),
  "webhook-timestamp": z.string().openapi({ description: "Seconds since the epoch when this attempt was signed.", example: "1795428000" }),
  "webhook-signature": z.string().openapi({
    description: "`v1,<base64>` signatures, space-separated: one per secret (two for 24 hours after a rotation).",
    example: "v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=",
  }),
});

/** Describes every event under the document's top-level `webhooks` (on the main app: a mounted sub-app's entries get a path prefix). */
export function describeWebhookEvents(app: OpenAPIHono<App>) {
  for (const type of WEBHOOK_EVENTS) {
    const [summary, description] = EVENT_DESCRIPTIONS[type];
    app.openAPIRegistry.registerWebhook({
      method: "post",
      path: type,
      operationId: `webhook_${type.replace(".", "_")}`,
      summary,
      description: `${description} ${SIGNING} Answer 2xx within 10 seconds (redirects are not followed); on a network error, a timeout, 429 or 5xx the delivery is retried with growing delays for about 27 hours, and any other answer is final. The \`webhook-id\` is the same on every attempt: use it to ignore repeats.`,
      tags: ["webhooks"],
      request: {
        headers: WebhookHeaders,
        body: { content: { "application/json": { schema: WEBHOOK_BODIES[type], example: EX.events[type] } }, required: true },
      },
      responses: {
        200: { description: "Received (any 2xx)" },
        410: { description: "Any 4xx other than 429 ends the delivery without further attempts" },
        503: { description: "429 and 5xx (and no answer within 10 seconds) are tried again later" },
      },
    });
  }
}
