/**
 * The operator's support endpoints of the admin API (docs/runbook.md): a site's webhook deliveries,
 * sending one again, the deliveries the dead-letter queue ended. Same door as the other admin
 * routes (src/auth.ts); each change is audited with the operator's name (`c.var.adminActor`).
 */
import { createRoute, OpenAPIHono } from "@hono/zod-openapi";
import { ErrorOut, SiteIdParam } from "../api/schemas";
import { DeadLettersOut, DeadLettersQuery, DeliveryIdParam, OperatorDeliveriesOut, OperatorDeliveriesQuery, OperatorDeliveryOut, SUPPORT_EXAMPLES } from "../api/support.schemas";
import type { App } from "../context";
import { loadSite } from "../ops/sites";
import { deadLetters, operatorDeliveries, operatorRedeliver } from "../ops/webhook-support";
import { adminErrors, notFoundResponse, ok } from "./common";

export const supportRoutes = new OpenAPIHono<App>();
const admin = [{ admin: [] as string[] }];
const conflict = (description: string) => ({ 409: { content: { "application/json": { schema: ErrorOut } }, description } });

// ------------------------------------------------------------------ webhooks

supportRoutes.openapi(
  createRoute({
    method: "get",
    path: "/admin/v1/sites/{site_id}/webhook/deliveries",
    operationId: "adminListWebhookDeliveries",
    summary: "A site's webhook deliveries",
    description:
      "The site's endpoint (without its secret: `disabled_at`, `failing_since`) and its latest deliveries, newest first, with each one's attempts, last status code and error, and when the next attempt is due. `status` narrows them to `pending`, `delivered` or `failed`.",
    tags: ["admin"],
    security: admin,
    request: { params: SiteIdParam, query: OperatorDeliveriesQuery },
    responses: { 200: ok(OperatorDeliveriesOut, "The endpoint and its deliveries"), ...adminErrors, ...notFoundResponse },
  }),
  async (c) => {
    const site = await loadSite(c.env, c.req.valid("param").site_id);
    return c.json(await operatorDeliveries(c.env, site, c.req.valid("query")), 200);
  },
);

supportRoutes.openapi(
  createRoute({
    method: "post",
    path: "/admin/v1/sites/{site_id}/webhook/deliveries/{delivery_id}/redeliver",
    operationId: "adminSendWebhookDelivery",
    summary: "Send a webhook delivery again",
    description:
      "Queues the delivery again with the same body and `webhook-id` (receivers de-duplicate on it), its attempts counted afresh on the usual schedule. " +
      "409 while nothing can be sent: the site has no endpoint, or it is disabled (its owner re-enables it first). Audited (`webhook.redeliver`, with the operator's name).",
    tags: ["admin"],
    security: admin,
    request: { params: DeliveryIdParam },
    responses: {
      202: ok(OperatorDeliveryOut, "Queued: the delivery is pending again", {
        ...SUPPORT_EXAMPLES.delivery,
        attempts: 0,
        status_code: null,
        duration_ms: null,
        error: null,
        next_attempt_at: null,
      }),
      ...conflict("The site has no webhook, or it is disabled: `detail` says what the owner must do first."),
      ...adminErrors,
      ...notFoundResponse,
    },
  }),
  async (c) => {
    const { site_id, delivery_id } = c.req.valid("param");
    const site = await loadSite(c.env, site_id);
    return c.json(await operatorRedeliver(c.env, c.var.adminActor, site, delivery_id), 202);
  },
);

supportRoutes.openapi(
  createRoute({
    method: "get",
    path: "/admin/v1/webhook/dead-letters",
    operationId: "adminListWebhookDeadLetters",
    summary: "Deliveries the dead-letter queue ended",
    description:
      "Deliveries whose queue message failed every retry (D1 or the site object failing, not the receiver) and reached the dead-letter queue, whose consumer ended them as failed; newest first, of one site or all. " +
      "Send each again with `POST /admin/v1/sites/{site_id}/webhook/deliveries/{delivery_id}/redeliver` once the cause is fixed (`npm run ops dead-letters -- --redeliver`).",
    tags: ["admin"],
    security: admin,
    request: { query: DeadLettersQuery },
    responses: { 200: ok(DeadLettersOut, "The dead letters"), ...adminErrors },
  }),
  async (c) => c.json(await deadLetters(c.env, c.req.valid("query")), 200),
);
