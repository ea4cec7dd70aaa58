/**
 * The Cron Triggers (wrangler.toml [triggers], dispatched on the cron's text). Every invocation
 * gets one D1 query budget (src/control/budget.control.ts: CRON_QUERY_BUDGET of Cloudflare's 1,000), its
 * tasks run in order within what is left, stop where the budget ends and resume there on the next
 * invocation (cursors in `cron_cursors`), and one `cron.run` line says what each did and what is left.
 */

import { lateUsageCheck } from "../billing/reconcile";
import { CRON_QUERY_BUDGET, meteredEnv, QueryBudget } from "../control/budget.control";
import { controlDb } from "../control/db";
import { log, redactError } from "../obs/log";
import { record } from "../obs/metrics";
import { sweepDeliveries } from "../webhooks/sweeper";
import { scheduledClose } from "./billing.ops";
import { cleanUp } from "./cleanup.ops";
import { mailTick } from "./notices.ops";

export const MONTH_CLOSE_CRON = "20 0 * * *";
export const QUARTER_HOUR_CRON = "*/15 * * * *";
export const CLEANUP_CRON = "40 3 * * *";

/** Runs one cron's tasks; answers what the `cron.run` line carries. */
export async function runCron(cron: string, env: Env, at: Date, limit = CRON_QUERY_BUDGET) {
  const budget = new QueryBudget(limit);
  const metered = meteredEnv(env, budget);
  const db = controlDb(metered.DB);
  const started = Date.now();
  let outcome: Record<string, unknown>;
  try {
    if (cron === MONTH_CLOSE_CRON) {
      // The month close, then the check for usage that reached D1 after its month was closed (src/billing/reconcile.ts).
      const close = await scheduledClose(metered, at, budget);
      // One query, run while the budget holds it (else by the next day's run).
      outcome = { close, late_usage: budget.allows(1) ? (await lateUsageCheck(env, db, at)).length : null };
    } else if (cron === QUARTER_HOUR_CRON) {
      // Lost webhook messages first (cheap: three queries), then an unfinished month close, then mail.
      const swept = await sweepDeliveries({ db, queue: env.WEBHOOK_QUEUE, now: () => at.getTime() });
      const close = await scheduledClose(metered, at, budget);
      const mail = await mailTick(metered, at, budget);
      outcome = { swept, close, mail };
    } else if (cron === CLEANUP_CRON) outcome = { cleanup: await cleanUp(db, at, budget) };
    else {
      log("warn", "cron.unknown", { cron });
      return null;
    }
  } catch (err) {
    // `cron.run` with status `failed`: the alert "a cron that did not run" looks for the `ok` ones (docs/ops/observability.md).
    record(env, "error", "cron.run", { cron, code: cron, status: "failed", queries: budget.used, ms: Date.now() - started, error: redactError(err) });
    throw err;
  }
  record(env, "info", "cron.run", { cron, code: cron, status: "ok", queries: budget.used, ms: Date.now() - started, ...outcome });
  return { queries: budget.used, ...outcome };
}
