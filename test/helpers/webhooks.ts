/** Webhook test seams: a queue that records, a clock, a receiving endpoint's fetch, and the Worker's queue held for a test. */
import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { onTestFinished, vi } from "vitest";
import { controlDb } from "../../src/control/db";
import type { DeliverDeps } from "../../src/webhooks/deliver";
import type { WebhookMessage } from "../../src/webhooks/events";
import type { PublishDeps } from "../../src/webhooks/publish";
import worker from "../worker";

export interface Sent {
  body: WebhookMessage;
  delaySeconds?: number;
}

export function recordingQueue() {
  const sent: Sent[] = [];
  const queue = {
    send: async (body: WebhookMessage, opts?: { delaySeconds?: number }) => void sent.push({ body, delaySeconds: opts?.delaySeconds }),
    sendBatch: async (messages: { body: WebhookMessage; delaySeconds?: number }[]) => void sent.push(...messages.map((m) => ({ body: m.body, delaySeconds: m.delaySeconds }))),
  };
  return { sent, queue: queue as unknown as Queue<WebhookMessage> };
}

export function clock(start = Date.now()) {
  let t = start;
  return { now: () => t, advance: (ms: number) => void (t += ms), set: (ms: number) => void (t = ms) };
}

export interface Received {
  headers: Record<string, string>;
  body: string;
  init: RequestInit | undefined;
}

/** A receiving endpoint: answers each attempt with the next answer in the list (the last one repeats). */
export function receiver(answers: (() => Response | Promise<Response>)[]) {
  const received: Received[] = [];
  const fetcher = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    received.push({ headers: Object.fromEntries(request.headers), body: await request.text(), init });
    const answer = answers[Math.min(received.length - 1, answers.length - 1)];
    return answer();
  }) as typeof globalThis.fetch;
  return { fetch: fetcher, received };
}

/** A receiver that never answers: it waits for the attempt's timeout to abort it. */
export const hang = (init?: RequestInit) => new Promise<Response>((_, reject) => init?.signal?.addEventListener("abort", () => reject(init.signal!.reason)));

export function deps(opts: { now: () => number; fetch?: typeof fetch; timeoutMs?: number }) {
  const db = controlDb(env.DB);
  const q = recordingQueue();
  const publish: PublishDeps = { db, queue: q.queue, now: opts.now };
  const deliver: DeliverDeps = { db, fetch: opts.fetch ?? (fetch as typeof fetch), now: opts.now, timeoutMs: opts.timeoutMs };
  return { db, sent: q.sent, publish, deliver };
}

let nextSite = 900_000 + Math.floor(Math.random() * 50_000);
/** A site reference for domain tests (the webhook tables need no site row). */
export const siteRef = () => ({ id: nextSite++, organizationId: 1 });

let nextMessage = 0;

/**
 * Holds what the Worker sends to its webhook queue during this test (env.WEBHOOK_QUEUE, the
 * binding the Worker uses), instead of leaving it to the platform's consumer and its batch window.
 * `deliver()` hands everything held to the Worker's own `queue` handler as one batch
 * (`createMessageBatch`), as the platform would, round after round while the consumer sends more,
 * and answers each round's `getQueueResult`; `until(check)` delivers what is held until `check`
 * passes (events are published in the background, after the answer or the job's step that made
 * them). A message's delay is not waited for.
 */
export function heldQueue() {
  const held: Sent[] = [];
  // What the binding answers (workers-sdk's queues example answers the same).
  const metadata = { metrics: { backlogCount: 0, backlogBytes: 0, oldestMessageTimestamp: new Date(0) } };
  const send = vi.spyOn(env.WEBHOOK_QUEUE, "send").mockImplementation(async (body, opts) => {
    held.push({ body: body as WebhookMessage, delaySeconds: opts?.delaySeconds });
    return { metadata };
  });
  const sendBatch = vi.spyOn(env.WEBHOOK_QUEUE, "sendBatch").mockImplementation(async (messages) => {
    held.push(...[...messages].map((m) => ({ body: m.body as WebhookMessage, delaySeconds: m.delaySeconds })));
    return { metadata };
  });
  onTestFinished(() => {
    send.mockRestore();
    sendBatch.mockRestore();
  });
  async function round() {
    const messages = held.splice(0).map((m) => ({ id: `m${++nextMessage}`, timestamp: new Date(), attempts: 1, body: m.body }));
    const batch = createMessageBatch<WebhookMessage>("transync-webhooks", messages);
    const ctx = createExecutionContext();
    await worker.queue(batch, env);
    return getQueueResult(batch, ctx);
  }
  const deliver = async () => {
    const results = [];
    while (held.length > 0) results.push(await round());
    return results;
  };
  return {
    held,
    deliver,
    async until(check: () => unknown) {
      await vi.waitFor(
        async () => {
          await deliver();
          await check();
        },
        { timeout: 5_000, interval: 10 },
      );
    },
  };
}
