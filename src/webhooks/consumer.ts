/**
 * The Queue consumer (the Worker's `queue` export): each message composes a coalesced event
 * from the site's state or attempts a stored delivery, then is acknowledged or retried with
 * the delivery's next delay (a composed delivery's retry is a `deliver` message of its own). The
 * attempt count lives in the delivery log, not in the message, so a redelivered message never
 * shortens or lengthens the schedule.
 */
import { controlDb } from "../control/db";
import { findEndpoint } from "../control/webhooks.control";
import { log, redactError } from "../obs/log";
import { attempt, type DeliverDeps } from "./deliver";
import { publishDeps } from "./emit";
import type { WebhookMessage } from "./events";
import { logDelivery, type PublishDeps, queueDelivery, wants } from "./publish";
import { loopbackAllowed } from "./url";
import { newThresholds } from "./usage-threshold";

export interface ConsumerDeps {
  publish: PublishDeps;
  deliver: DeliverDeps;
  /** The data of a coalesced event as the site is now (the site object, unless a test gives its own). */
  compose: (siteId: number, type: "results.available" | "attention.created") => Promise<unknown | null>;
}

/** Production's deps; `compose` is the Worker's (src/index.ts), which reaches the site objects. */
export const consumerDeps = (env: Env, compose: ConsumerDeps["compose"]): ConsumerDeps => ({
  publish: publishDeps(env),
  deliver: { db: controlDb(env.DB), fetch: (input, init) => fetch(input, init), now: Date.now, metrics: env.METRICS, allowLoopback: loopbackAllowed(env) },
  compose,
});

export async function consumeBatch(batch: MessageBatch<WebhookMessage>, deps: ConsumerDeps): Promise<void> {
  await Promise.all(batch.messages.map((message) => consume(message, deps)));
}

async function consume(message: Message<WebhookMessage>, deps: ConsumerDeps) {
  try {
    const body = message.body;
    let id: string;
    if (body.kind === "compose") {
      const { site_id: siteId, type } = body;
      if (type === "usage.threshold") {
        // Each crossed threshold is its own delivery, attempted through its own message.
        for (const data of await newThresholds(deps.publish.db, siteId, deps.publish.now())) await queueDelivery(deps.publish, siteId, type, data);
        return message.ack();
      }
      // The endpoint may have gone, or stopped wanting the event, since the event was claimed.
      const endpoint = await findEndpoint(deps.publish.db, siteId);
      const data = endpoint && !endpoint.disabledAt && wants(endpoint, type) ? await deps.compose(siteId, type) : null;
      // Nothing left to announce (results pulled meanwhile, items decided): no delivery.
      if (data === null || isEmpty(type, data)) return message.ack();
      // Logged like any other event, and attempted right here rather than through another message.
      id = await logDelivery(deps.publish, siteId, type, data);
    } else {
      id = body.id;
    }
    const outcome = await attempt(deps.deliver, id);
    if (!outcome) return message.ack();
    if (body.kind === "deliver") return message.retry({ delaySeconds: outcome.retryInSeconds });
    // A compose message carries no delivery: retried, it would compose again, find nothing new (the
    // results were announced by this very delivery) and be acknowledged, leaving the delivery pending
    // until the sweeper's grace ran out. Its next attempt goes in a message of its own.
    await deps.publish.queue.send({ kind: "deliver", id }, { delaySeconds: outcome.retryInSeconds });
    message.ack();
  } catch (err) {
    // D1 or the site object failed: the Queue tries the message again (its own back-off).
    const body = message.body as { kind?: string; site_id?: number; id?: string; type?: string };
    log("warn", "webhook.message_failed", { kind: body.kind, site_id: body.site_id, delivery_id: body.id, type: body.type, error: redactError(err) });
    message.retry();
  }
}

const isEmpty = (type: string, data: unknown) =>
  (type === "results.available" && (data as { pending: number }).pending === 0) || (type === "attention.created" && (data as { count: number }).count === 0);
