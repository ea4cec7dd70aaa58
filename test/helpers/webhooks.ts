/** Webhook test seams: a queue that records, a clock, and a receiving endpoint's fetch. */
import { env } from "cloudflare:workers";
import { controlDb } from "../../src/control/db";
import type { DeliverDeps } from "../../src/webhooks/deliver";
import type { WebhookMessage } from "../../src/webhooks/events";
import type { PublishDeps } from "../../src/webhooks/publish";

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
