import { createApp } from "./app";
import { consumeBatch, consumerDeps } from "./webhooks/consumer";
import type { WebhookMessage } from "./webhooks/events";

export { SiteObject } from "./site/object";

const app = createApp();

export default {
  fetch: app.fetch,
  /** Webhook deliveries (src/webhooks/consumer.ts). */
  queue: (batch: MessageBatch<WebhookMessage>, env: Env) => consumeBatch(batch, consumerDeps(env)),
} satisfies ExportedHandler<Env, WebhookMessage>;
