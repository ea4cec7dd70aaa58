/**
 * What the Queue may lose (docs/decisions.md "Webhooks"): a delivery whose message never comes back
 * stays `pending` in the log. The 15-minute cron's sweeper sends a new message for each pending
 * delivery whose next attempt is overdue by more than SWEEP_GRACE_MS (or whose first attempt
 * never happened), at most SWEEP_LIMIT a run; the dead-letter queue's consumer ends the
 * deliveries whose messages ran out of the Queue's own retries.
 */
import { and, asc, eq, inArray, isNull, lt, or } from "drizzle-orm";
import type { ControlDb } from "../control/db";
import { webhookDeliveries } from "../control/schema";
import { log } from "../obs/log";
import type { WebhookMessage } from "./events";

/** How late a pending attempt must be before the sweeper believes its message is lost: a Queue delivers a delayed message within seconds of its time. */
export const SWEEP_GRACE_MS = 15 * 60_000;
/** Deliveries one sweep re-sends at most (a Queue `sendBatch` takes 100 messages). */
export const SWEEP_LIMIT = 100;

export interface SweepDeps {
  db: ControlDb;
  queue: Queue<WebhookMessage>;
  now: () => number;
}

/** Re-sends the overdue pending deliveries; answers how many. Each one's next attempt becomes now, so sweeps leave it to this message for a grace period. */
export async function sweepDeliveries(deps: SweepDeps): Promise<number> {
  const now = deps.now();
  const overdue = new Date(now - SWEEP_GRACE_MS).toISOString();
  const due = await deps.db
    .select({ id: webhookDeliveries.id, siteId: webhookDeliveries.siteId })
    .from(webhookDeliveries)
    .where(
      and(
        eq(webhookDeliveries.status, "pending"),
        or(lt(webhookDeliveries.nextAttemptAt, overdue), and(isNull(webhookDeliveries.nextAttemptAt), lt(webhookDeliveries.createdAt, overdue))),
      ),
    )
    .orderBy(asc(webhookDeliveries.nextAttemptAt))
    .limit(SWEEP_LIMIT);
  if (!due.length) return 0;
  await deps.db
    .update(webhookDeliveries)
    .set({ nextAttemptAt: new Date(now).toISOString() })
    .where(
      inArray(
        webhookDeliveries.id,
        due.map((d) => d.id),
      ),
    );
  await deps.queue.sendBatch(due.map((d) => ({ body: { kind: "deliver", id: d.id } as WebhookMessage })));
  for (const d of due) log("warn", "webhook.swept", { site_id: d.siteId, delivery_id: d.id });
  return due.length;
}

/** The error a dead-lettered delivery ends with: the operator lists them by it (GET /admin/v1/webhook/dead-letters). */
export const DEAD_LETTER_ERROR = "Given up: the delivery's queue message failed every retry.";

/**
 * The dead-letter queue's consumer: a message the Queue gave up on (its handler failed every
 * retry) ends its delivery as failed, so the log and the site's owner see it instead of a
 * delivery pending forever. A coalesced event's message carries no delivery: it is only logged.
 */
export async function consumeDeadLetters(batch: MessageBatch<WebhookMessage>, db: ControlDb): Promise<void> {
  for (const message of batch.messages) {
    const body = message.body;
    try {
      if (body.kind === "deliver") {
        await db
          .update(webhookDeliveries)
          .set({ status: "failed", error: DEAD_LETTER_ERROR, nextAttemptAt: null })
          .where(and(eq(webhookDeliveries.id, body.id), eq(webhookDeliveries.status, "pending")));
        log("error", "webhook.dead_letter", { delivery_id: body.id });
      } else log("error", "webhook.dead_letter", { site_id: body.site_id, type: body.type });
      message.ack();
    } catch {
      message.retry();
    }
  }
}
