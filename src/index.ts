import { createApp } from "./app";
import { controlDb } from "./control/db";
import { type Deps, PRODUCTION_DEPS } from "./deps";
import { runCron } from "./ops/scheduled.ops";
import { siteStub } from "./site/stub";
import { consumeBatch, consumerDeps } from "./webhooks/consumer";
import type { WebhookMessage } from "./webhooks/events";
import { consumeDeadLetters } from "./webhooks/sweeper";

export { OrgMemoryObject } from "./memory/object";
export { SiteObject } from "./site/object";

/** The Worker's handlers, built with the given clock and password cost (tests build theirs: test/worker.ts). */
export function createWorker(deps: Pick<Deps, "clock" | "passwordIterations"> = PRODUCTION_DEPS) {
  const app = createApp({ clock: deps.clock, passwordIterations: deps.passwordIterations });
  return {
    fetch: app.fetch,
    /**
     * The crons (src/ops/scheduled.ops.ts): the daily month close, every 15 minutes the webhook
     * sweeper, an unfinished close and the mails about work, and the daily clean-up; each
     * invocation within its D1 query budget, resumed where the previous one stopped.
     */
    scheduled(controller, env, ctx) {
      ctx.waitUntil(runCron(controller.cron, env, new Date(controller.scheduledTime)));
    },
    /** Webhook deliveries (src/webhooks/consumer.ts); a coalesced event's data comes from its site's object. The dead-letter queue ends what the Queue gave up on. */
    queue: (batch: MessageBatch<WebhookMessage>, env: Env) =>
      batch.queue.endsWith("-dlq")
        ? consumeDeadLetters(batch, controlDb(env.DB))
        : consumeBatch(
            batch,
            consumerDeps(env, (siteId, type) => siteStub(env, siteId).webhookData(type)),
          ),
  } satisfies ExportedHandler<Env, WebhookMessage>;
}

export default createWorker();
