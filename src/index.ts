import { createApp } from "./app";
import { scheduledClose } from "./ops/billing";
import { consumeBatch, consumerDeps } from "./webhooks/consumer";
import type { WebhookMessage } from "./webhooks/events";

export { SiteObject } from "./site/object";

const app = createApp();

export default {
  fetch: app.fetch,
  /** The Cron Trigger (wrangler.toml [triggers]): closes every ended month not closed yet. */
  scheduled(controller, env, ctx) {
    ctx.waitUntil(scheduledClose(env, new Date(controller.scheduledTime)));
  },
  /** Webhook deliveries (src/webhooks/consumer.ts). */
  queue: (batch: MessageBatch<WebhookMessage>, env: Env) => consumeBatch(batch, consumerDeps(env)),
} satisfies ExportedHandler<Env, WebhookMessage>;
