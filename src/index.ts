import { createApp } from "./app";
import { lateUsageCheck } from "./billing/reconcile";
import { controlDb } from "./control/db";
import { type Deps, PRODUCTION_DEPS } from "./deps";
import { mailTick } from "./mail/notices";
import { log, redactError } from "./obs/log";
import { record } from "./obs/metrics";
import { scheduledClose } from "./ops/billing";
import { siteStub } from "./site/stub";
import { consumeBatch, consumerDeps } from "./webhooks/consumer";
import type { WebhookMessage } from "./webhooks/events";

export { OrgMemoryObject } from "./memory/object";
export { SiteObject } from "./site/object";

/** The Cron Triggers of wrangler.toml [triggers], by their text. */
const MONTH_CLOSE_CRON = "20 0 * * *";
const MAIL_CRON = "*/15 * * * *";

/** The daily billing work: the month close, then the late-usage check (src/billing/reconcile.ts). */
async function dailyBilling(env: Env, at: Date) {
  const runs = await scheduledClose(env, at);
  const late = await lateUsageCheck(env, controlDb(env.DB), at);
  return { months: runs.length, pending: runs.reduce((n, r) => n + r.pending.length, 0), late_usage: late.length };
}

/**
 * One `cron.run` line and data point per scheduled run, with its outcome: `ok` with what it did,
 * or `failed` (the alert "a cron that did not run" looks for the ok ones; docs/ops/observability.md).
 */
async function cronRun(env: Env, cron: string, work: () => Promise<Record<string, unknown>>) {
  const started = Date.now();
  try {
    const done = await work();
    record(env, "info", "cron.run", { cron, code: cron, status: "ok", ms: Date.now() - started, ...done });
  } catch (err) {
    record(env, "error", "cron.run", { cron, code: cron, status: "failed", ms: Date.now() - started, error: redactError(err) });
    throw err;
  }
}

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
      const at = new Date(controller.scheduledTime);
      if (controller.cron === MONTH_CLOSE_CRON) ctx.waitUntil(cronRun(env, controller.cron, () => dailyBilling(env, at)));
      else if (controller.cron === MAIL_CRON) ctx.waitUntil(cronRun(env, controller.cron, () => mailTick(env)));
      else log("warn", "cron.run", { cron: controller.cron, status: "unknown", error: `no job for cron "${controller.cron}"` });
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
