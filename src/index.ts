import { createApp } from "./app";
import { type Deps, PRODUCTION_DEPS } from "./deps";
import { mailTick } from "./mail/notices";
import { scheduledClose } from "./ops/billing";
import { siteStub } from "./site/stub";
import { consumeBatch, consumerDeps } from "./webhooks/consumer";
import type { WebhookMessage } from "./webhooks/events";

export { OrgMemoryObject } from "./memory/object";
export { SiteObject } from "./site/object";

/** The Cron Triggers of wrangler.toml [triggers], by their text. */
const MONTH_CLOSE_CRON = "20 0 * * *";
const MAIL_CRON = "*/15 * * * *";

/** The Worker's handlers, built with the given clock (tests build theirs: test/worker.ts). */
export function createWorker(deps: Pick<Deps, "clock"> = PRODUCTION_DEPS) {
  const app = createApp({ clock: deps.clock });
  return {
    fetch: app.fetch,
    /**
     * One handler for both crons, dispatched on `controller.cron`: the daily month close (closes
     * every ended month not closed yet) and, every 15 minutes, mail retries and the mails about
     * work (src/mail/notices.ts).
     */
    scheduled(controller, env, ctx) {
      if (controller.cron === MONTH_CLOSE_CRON) ctx.waitUntil(scheduledClose(env, new Date(controller.scheduledTime)));
      else if (controller.cron === MAIL_CRON) ctx.waitUntil(mailTick(env).then((r) => console.log(JSON.stringify({ level: "info", where: "cron.mail", ...r }))));
      else console.warn(JSON.stringify({ level: "warn", where: "cron", error: `no job for cron "${controller.cron}"` }));
    },
    /** Webhook deliveries (src/webhooks/consumer.ts); a coalesced event's data comes from its site's object. */
    queue: (batch: MessageBatch<WebhookMessage>, env: Env) =>
      consumeBatch(
        batch,
        consumerDeps(env, (siteId, type) => siteStub(env, siteId).webhookData(type)),
      ),
  } satisfies ExportedHandler<Env, WebhookMessage>;
}

export default createWorker();
