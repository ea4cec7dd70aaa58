/**
 * What the Queue may lose (docs/decisions.md "Webhooks"): the 15-minute cron's sweeper sends a delivery
 * left pending past its next attempt again, and the dead-letter queue's consumer ends a delivery
 * whose message failed every retry.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { findDelivery } from "../../src/control/webhooks.control";
import { putWebhook } from "../../src/ops/webhooks.ops";
import { attempt } from "../../src/webhooks/deliver";
import type { WebhookMessage } from "../../src/webhooks/events";
import { publish } from "../../src/webhooks/publish";
import { consumeDeadLetters, SWEEP_GRACE_MS, sweepDeliveries } from "../../src/webhooks/sweeper";
import { clock, deps, receiver, siteRef } from "../helpers/webhooks";

const ok = () => new Response(null, { status: 204 });
const down = () => new Response("down", { status: 503 });

async function registered() {
  const site = siteRef();
  await putWebhook(env, "admin", site, { url: "https://hooks.example.test/transync" });
  return site;
}

describe("the sweeper", () => {
  it("sends a delivery left pending past its next attempt again; one not yet overdue, or settled, stays as it is", async () => {
    const site = await registered();
    const t = clock(Date.UTC(2031, 0, 5, 10));
    const r = receiver([down, ok]);
    const d = deps({ now: t.now, fetch: r.fetch });
    const lost = (await publish(d.publish, site.id, { type: "ping", data: {} }))!;
    // The first attempt fails; the Queue's retry message (in 5 s) is then lost.
    expect(await attempt(d.deliver, lost)).toEqual({ retryInSeconds: 5 });
    expect(await findDelivery(d.db, lost)).toMatchObject({ status: "pending", attempts: 1 });
    const sweep = () => sweepDeliveries({ db: d.db, queue: d.publish.queue, now: t.now });

    // Within the grace period the Queue is trusted: nothing is swept.
    t.advance(SWEEP_GRACE_MS - 60_000);
    const before = d.sent.length;
    expect(await sweep()).toBe(0);

    // Past it: the delivery gets a new message, once (the next sweep leaves it to that message).
    t.advance(5 * 60_000);
    expect(await sweep()).toBe(1);
    expect(d.sent.slice(before)).toEqual([{ body: { kind: "deliver", id: lost }, delaySeconds: undefined }]);
    expect(await sweep()).toBe(0);

    // The message is consumed: the delivery goes out again and is delivered.
    expect(await attempt(d.deliver, lost)).toBeNull();
    expect(r.received).toHaveLength(2);
    expect(r.received[1].headers["webhook-id"]).toBe(lost);
    expect(await findDelivery(d.db, lost)).toMatchObject({ status: "delivered", attempts: 2 });
    t.advance(SWEEP_GRACE_MS * 4);
    expect(await sweep()).toBe(0);
  });

  it("also sends a delivery whose first attempt never happened", async () => {
    const site = await registered();
    const t = clock(Date.UTC(2031, 0, 6, 10));
    const d = deps({ now: t.now });
    const id = (await publish(d.publish, site.id, { type: "ping", data: {} }))!;
    t.advance(SWEEP_GRACE_MS + 1_000);
    const before = d.sent.length;
    expect(await sweepDeliveries({ db: d.db, queue: d.publish.queue, now: t.now })).toBeGreaterThanOrEqual(1);
    expect(d.sent.slice(before).map((s) => s.body)).toContainEqual({ kind: "deliver", id });
  });
});

describe("the dead-letter queue", () => {
  it("marks a pending delivery whose message failed every retry as failed; a delivered one stays delivered", async () => {
    const site = await registered();
    const t = clock();
    const d = deps({ now: t.now, fetch: receiver([ok]).fetch });
    const stuck = (await publish(d.publish, site.id, { type: "ping", data: {} }))!;
    const done = (await publish(d.publish, site.id, { type: "ping", data: {} }))!;
    await attempt(d.deliver, done);
    const acked: string[] = [];
    const message = (body: WebhookMessage) => ({ body, ack: () => acked.push(JSON.stringify(body)), retry: () => {} }) as unknown as Message<WebhookMessage>;
    const batch = {
      queue: "transync-webhooks-dlq",
      messages: [message({ kind: "deliver", id: stuck }), message({ kind: "deliver", id: done }), message({ kind: "compose", site_id: site.id, type: "results.available" })],
    } as unknown as MessageBatch<WebhookMessage>;
    await consumeDeadLetters(batch, d.db);
    expect(acked).toHaveLength(3);
    expect(await findDelivery(d.db, stuck)).toMatchObject({ status: "failed", error: expect.stringContaining("failed every retry") });
    expect(await findDelivery(d.db, done)).toMatchObject({ status: "delivered" });
  });
});
