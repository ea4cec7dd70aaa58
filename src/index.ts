import { createApp } from "./app";
import { type Deps, PRODUCTION_DEPS } from "./deps";
import { scheduledClose } from "./ops/billing";
import { consumeBatch, consumerDeps } from "./webhooks/consumer";
import type { WebhookMessage } from "./webhooks/events";

export { SiteObject } from "./site/object";

/** The Worker's handlers, built with the given clock (tests build theirs: test/worker.ts). */
export function createWorker(deps: Pick<Deps, "clock"> = PRODUCTION_DEPS) {
  const app = createApp({ clock: deps.clock });
  return {
    fetch: app.fetch,
    /** The Cron Trigger (wrangler.toml [triggers]): closes every ended month not closed yet. */
    scheduled(controller, env, ctx) {
      ctx.waitUntil(scheduledClose(env, new Date(controller.scheduledTime)));
    },
    /** Webhook deliveries (src/webhooks/consumer.ts). */
    queue: (batch: MessageBatch<WebhookMessage>, env: Env) => consumeBatch(batch, consumerDeps(env)),
  } satisfies ExportedHandler<Env, WebhookMessage>;
}

export default createWorker();
