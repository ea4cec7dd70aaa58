/** The Webhooks page (admins and owners): the site's endpoint, its secret, tests, the delivery log. The operations are in ops/webhooks.ops.ts. */
import { Hono } from "hono";
import { WebhookIn } from "../api/webhook.schemas";
import { ApiError, notFound } from "../errors";
import { LIMITS } from "../limits";
import { deleteWebhook, enableWebhook, getWebhook, listWebhookDeliveries, putWebhook, redeliver, rotateWebhookSecret, testWebhook } from "../ops/webhooks.ops";
import { siteAccess } from "./access";
import type { DashApp, DashContext } from "./auth";
import { form, id, str, strs } from "./form";
import { WebhooksPage, type WebhooksView } from "./pages/webhooks.page";
import { parsed } from "./parse";
import { notice, render, type SiteAccess, siteFrame } from "./respond";

export const webhooks = new Hono<DashApp>();

async function page(c: DashContext, a: SiteAccess, extra: Partial<WebhooksView> = {}, status: 200 | 422 = 200) {
  const hook = await getWebhook(c.env, a.site).catch((err) => {
    if (err instanceof ApiError && err.status === 404) return null;
    throw err;
  });
  const deliveries = await listWebhookDeliveries(c.env, a.site, LIMITS.webhookLog);
  return render(c, <WebhooksPage {...siteFrame(c, a, "webhooks")} webhook={hook} deliveries={deliveries} {...extra} />, status);
}

const access = (c: DashContext) => siteAccess(c, id(c.req.param("site_id")), "admin");
const done = (a: SiteAccess, what: string) => `/dashboard/sites/${a.site.id}/webhooks?done=${what}`;

webhooks.get("/sites/:site_id/webhooks", async (c) => page(c, await access(c), { notice: notice(c) }));

webhooks.post("/sites/:site_id/webhooks", async (c) => {
  const a = await access(c);
  const f = await form(c);
  const entered = { url: str(f, "url").trim(), events: strs(f, "events") };
  try {
    // Every box ticked is "all" (so event types added later reach it too); ping is always sent on request.
    const input = parsed(WebhookIn, { url: entered.url, events: entered.events.length ? [...entered.events, "ping"] : undefined });
    if (!entered.events.length) throw new ApiError(422, "events: tick at least one event");
    const saved = await putWebhook(c.env, a.actor, a.site, input, c.req.url);
    // Rendered, not redirected: the secret is shown this once.
    return page(c, a, { secret: saved.secret, notice: "Webhook saved. Copy the secret below into the connector." });
  } catch (err) {
    if (err instanceof ApiError && err.status === 422) return page(c, a, { error: err.detail, form: entered }, 422);
    throw err;
  }
});

webhooks.post("/sites/:site_id/webhooks/rotate", async (c) => {
  const a = await access(c);
  const rotated = await rotateWebhookSecret(c.env, a.actor, a.site);
  return page(c, a, { secret: rotated.secret, notice: "New secret issued. The previous one keeps signing for 24 hours." });
});

webhooks.post("/sites/:site_id/webhooks/test", async (c) => {
  const a = await access(c);
  await testWebhook(c.env, a.site);
  return c.redirect(done(a, "webhook-test"), 303);
});

webhooks.post("/sites/:site_id/webhooks/enable", async (c) => {
  const a = await access(c);
  await enableWebhook(c.env, a.actor, a.site);
  return c.redirect(done(a, "webhook-enabled"), 303);
});

webhooks.post("/sites/:site_id/webhooks/delete", async (c) => {
  const a = await access(c);
  await deleteWebhook(c.env, a.actor, a.site);
  return c.redirect(done(a, "webhook-removed"), 303);
});

webhooks.post("/sites/:site_id/webhooks/deliveries/:delivery_id/redeliver", async (c) => {
  const a = await access(c);
  const deliveryId = c.req.param("delivery_id");
  if (!/^msg_[0-9a-f]{32}$/.test(deliveryId)) throw notFound(`Delivery ${deliveryId}`);
  await redeliver(c.env, a.actor, a.site, deliveryId);
  return c.redirect(done(a, "webhook-redelivered"), 303);
});
