/**
 * The Queue consumer over a simulated queue: every message is acknowledged or retried as the
 * consumer says, retried messages come back after their delay, messages the consumer sends arrive
 * after theirs. The incident it reproduces: a `results.available` delivery whose first attempt
 * failed sat `pending` while the endpoint had recovered (the retry was the *compose* message,
 * which composed nothing new the second time: the results had been announced), until the
 * sweeper's grace period ran out, 15 minutes and more later.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { findDelivery, listDeliveries } from "../../src/control/webhooks.control";
import { putWebhook } from "../../src/ops/webhooks.ops";
import { type ConsumerDeps, consumeBatch } from "../../src/webhooks/consumer";
import type { WebhookMessage } from "../../src/webhooks/events";
import { DELIVERY } from "../../src/webhooks/policy";
import { queueDelivery } from "../../src/webhooks/publish";
import { clock, deps, receiver, siteRef } from "../helpers/webhooks";

const ok = () => new Response(null, { status: 204 });
const down = () => new Response("down", { status: 503 });

interface Queued {
  body: WebhookMessage;
  at: number;
}

/** A queue driven by hand: `run` consumes every message due by the clock, as the platform would deliver them. */
function simulatedQueue(now: () => number) {
  const waiting: Queued[] = [];
  const queue = {
    send: async (body: WebhookMessage, opts?: { delaySeconds?: number }) => void waiting.push({ body, at: now() + (opts?.delaySeconds ?? 0) * 1000 }),
    sendBatch: async (messages: { body: WebhookMessage; delaySeconds?: number }[]) => {
      for (const m of messages) waiting.push({ body: m.body, at: now() + (m.delaySeconds ?? 0) * 1000 });
    },
  } as unknown as Queue<WebhookMessage>;
  async function run(consumer: ConsumerDeps) {
    const due = waiting.filter((m) => m.at <= now());
    for (const m of due) waiting.splice(waiting.indexOf(m), 1);
    const messages = due.map((m) => {
      const message = {
        id: crypto.randomUUID(),
        timestamp: new Date(now()),
        attempts: 1,
        body: m.body,
        ack: () => {},
        // The platform delivers a retried message again after its delay.
        retry: (opts?: { delaySeconds?: number }) => void waiting.push({ body: m.body, at: now() + (opts?.delaySeconds ?? 0) * 1000 }),
      };
      return message as unknown as Message<WebhookMessage>;
    });
    if (messages.length) await consumeBatch({ queue: "transync-webhooks", messages } as unknown as MessageBatch<WebhookMessage>, consumer);
    return messages.length;
  }
  return { queue, run, waiting };
}

describe("the consumer", () => {
  it("retries a composed results.available delivery on schedule: 5 s after its failed first attempt it is delivered", async () => {
    const site = siteRef();
    await putWebhook(env, "admin", site, { url: "https://hooks.example.test/transync" });
    const t = clock(Date.UTC(2031, 2, 3, 9));
    const r = receiver([down, ok]);
    const d = deps({ now: t.now, fetch: r.fetch });
    const q = simulatedQueue(t.now);
    // As the site object composes it: the new results once, then nothing until newer ones arrive (results-once.test.ts).
    let announced = false;
    const consumer: ConsumerDeps = {
      publish: { ...d.publish, queue: q.queue },
      deliver: d.deliver,
      compose: async () => {
        if (announced) return null;
        announced = true;
        return { pending: 3, languages: ["de"] };
      },
    };

    await q.queue.send({ kind: "compose", site_id: site.id, type: "results.available" });
    expect(await q.run(consumer)).toBe(1);
    const [delivery] = await listDeliveries(d.db, site.id, 10);
    expect(delivery).toMatchObject({ event: "results.available", status: "pending", attempts: 1, statusCode: 503 });

    // The endpoint has recovered; the next attempt is due after the schedule's first delay.
    t.advance(DELIVERY.retryDelaysSeconds[0] * 1000);
    expect(await q.run(consumer)).toBe(1);
    expect(await findDelivery(d.db, delivery.id)).toMatchObject({ status: "delivered", attempts: 2, statusCode: 204 });
    expect(r.received).toHaveLength(2);
    expect(r.received[1].headers["webhook-id"]).toBe(delivery.id);
    // One delivery, sent twice with the same id: no second delivery composed, nothing left in the queue.
    expect(await listDeliveries(d.db, site.id, 10)).toHaveLength(1);
    expect(q.waiting).toEqual([]);
  });

  it("a stored delivery's message is retried as itself (job.finished, ping)", async () => {
    const site = siteRef();
    await putWebhook(env, "admin", site, { url: "https://hooks.example.test/transync" });
    const t = clock(Date.UTC(2031, 2, 3, 10));
    const r = receiver([down, down, ok]);
    const d = deps({ now: t.now, fetch: r.fetch });
    const q = simulatedQueue(t.now);
    const consumer: ConsumerDeps = { publish: { ...d.publish, queue: q.queue }, deliver: d.deliver, compose: async () => null };
    const id = await queueDelivery(consumer.publish, site.id, "ping", {});
    await q.run(consumer);
    t.advance(DELIVERY.retryDelaysSeconds[0] * 1000);
    await q.run(consumer);
    expect(await findDelivery(d.db, id)).toMatchObject({ status: "pending", attempts: 2 });
    t.advance(DELIVERY.retryDelaysSeconds[1] * 1000);
    await q.run(consumer);
    expect(await findDelivery(d.db, id)).toMatchObject({ status: "delivered", attempts: 3 });
    expect(q.waiting).toEqual([]);
  });
});
