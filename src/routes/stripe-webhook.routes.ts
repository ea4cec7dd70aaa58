/**
 * `POST /billing/stripe/webhook`: Stripe's deliveries (docs/billing.md).
 * Outside /v1 and /admin: Stripe authenticates with its signature over the raw body, checked
 * by the SDK before anything is parsed or written. Not in the OpenAPI document (no client
 * calls it). Enable `checkout.session.completed`, `customer.subscription.created`,
 * `customer.subscription.updated`, `customer.subscription.deleted`, `invoice.paid` and
 * `invoice.payment_failed` on the endpoint in Stripe.
 */
import { Hono } from "hono";
import type { App } from "../context";
import { dashboardBase } from "../links";
import { receiveStripeWebhook } from "../ops/billing.ops";

export const STRIPE_WEBHOOK_PATH = "/billing/stripe/webhook";

export const stripeWebhookRoutes = new Hono<App>();

stripeWebhookRoutes.post(STRIPE_WEBHOOK_PATH, async (c) => {
  const result = await receiveStripeWebhook(c.env, await c.req.text(), c.req.header("stripe-signature"), dashboardBase(c), c.var.clock());
  return c.json({ received: true, ...result }, 200);
});
