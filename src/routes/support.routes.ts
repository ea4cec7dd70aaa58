/**
 * The operator's support endpoints of the admin API (docs/runbook.md): a site's webhook deliveries,
 * sending one again, the deliveries the dead-letter queue ended; an organization's credits. Same
 * door as the other admin routes (src/auth.ts); each change is audited with the operator's name
 * (`c.var.adminActor`).
 */
import { createRoute, OpenAPIHono } from "@hono/zod-openapi";
import { ErrorOut, OrgIdParam, SiteIdParam } from "../api/schemas";
import {
  CreditIn,
  CreditOut,
  DeadLettersOut,
  DeadLettersQuery,
  DeliveryIdParam,
  OperatorDeliveriesOut,
  OperatorDeliveriesQuery,
  OperatorDeliveryOut,
  SUPPORT_EXAMPLES,
} from "../api/support.schemas";
import type { App } from "../context";
import { grantCredit } from "../ops/credits.ops";
import { loadSite } from "../ops/sites.ops";
import { deadLetters, operatorDeliveries, operatorRedeliver } from "../ops/webhook-support.ops";
import { adminErrors, body, bodyErrors, notFoundResponse, ok } from "./common";

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
      "Send each again with `POST /admin/v1/sites/{site_id}/webhook/deliveries/{delivery_id}/redeliver` once the cause is fixed (`npm run ops -- dead-letters --redeliver`).",
    tags: ["admin"],
    security: admin,
    request: { query: DeadLettersQuery },
    responses: { 200: ok(DeadLettersOut, "The dead letters"), ...adminErrors },
  }),
  async (c) => c.json(await deadLetters(c.env, c.req.valid("query")), 200),
);

// ------------------------------------------------------------------ credits

supportRoutes.openapi(
  createRoute({
    method: "post",
    path: "/admin/v1/organizations/{org_id}/credits",
    operationId: "adminCreateOrganizationCredit",
    summary: "Credit an organization's month",
    description:
      "Gives characters back for a month (a runaway job cancelled, an incident): they come off the month's overage when it is closed (and so off its Stripe invoice item), never below zero and never carried to another month. " +
      "The organization's usage (`GET /admin/v1/organizations/{org_id}/usage` and the dashboard's Usage page) lists each credit with its reason. " +
      "A month after the current one is a 422; a month already closed is a 409 (its overage was invoiced: `detail` says where to refund it, or credit the current month). Audited (`organization.credit`, with the operator's name).",
    tags: ["admin"],
    security: admin,
    request: { params: OrgIdParam, ...body(CreditIn) },
    responses: {
      201: ok(CreditOut, "The credit", {
        id: 7,
        organization_id: 3,
        month: "2026-11",
        characters: 1_800_000,
        reason: "The job cancelled on 22 November retranslated the whole site by mistake: its 1,800,000 characters are credited.",
        created_by: "admin:alice",
        created_at: "2026-11-22T11:04:00.000Z",
      }),
      ...conflict("The month is closed: `detail` says how its overage was invoiced and where to refund it."),
      ...adminErrors,
      ...notFoundResponse,
      ...bodyErrors,
    },
  }),
  async (c) => c.json(await grantCredit(c.env, c.var.adminActor, c.req.valid("param").org_id, c.req.valid("json"), c.var.clock()), 201),
);
