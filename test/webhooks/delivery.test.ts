/**
 * Webhooks at the domain depth: signing (verified with the `standardwebhooks` library, as a
 * receiver would), the retry policy, the 3-day disable, coalescing and rotation.
 */
import { env } from "cloudflare:workers";
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { findDelivery, findEndpoint } from "../../src/control/webhooks.control";
import { enableWebhook, putWebhook, rotateWebhookSecret } from "../../src/ops/webhooks.ops";
import { attempt } from "../../src/webhooks/deliver";
import { DELIVERY } from "../../src/webhooks/policy";
import { publish, queueDelivery } from "../../src/webhooks/publish";
import { signatureHeaders } from "../../src/webhooks/signing";
import { clock, deps, hang, receiver, siteRef } from "../helpers/webhooks";

const URL_ = "https://hooks.example.test/transync";
const ok = () => new Response(null, { status: 204 });
const status =
  (code: number, body = "") =>
  () =>
    new Response(body, { status: code });

async function registered(events?: ("job.finished" | "results.available" | "attention.created" | "usage.threshold" | "ping")[]) {
  const site = siteRef();
  const hook = await putWebhook(env, "admin", site, { url: URL_, events });
  return { site, secret: hook.secret };
}

const jobData = { id: 7, status: "succeeded" } as never;

describe("signing", () => {
  it("a delivery verifies with the library on the receiving side, with a stable webhook-id and the Standard Webhooks envelope", async () => {
    const { site, secret } = await registered();
    const t = clock();
    const r = receiver([ok]);
    const d = deps({ now: t.now, fetch: r.fetch });
    const id = await publish(d.publish, site.id, { type: "job.finished", data: jobData });
    expect(id).toMatch(/^msg_[0-9a-f]{32}$/);
    expect(d.sent).toEqual([{ body: { kind: "deliver", id }, delaySeconds: undefined }]);

    expect(await attempt(d.deliver, id!)).toBeNull();
    const [got] = r.received;
    const payload = new Webhook(secret).verify(got.body, got.headers) as { type: string; timestamp: string; data: unknown };
    expect(payload).toEqual({ type: "job.finished", timestamp: new Date(t.now()).toISOString(), data: jobData });
    expect(got.headers["webhook-id"]).toBe(id);
    expect(got.headers["content-type"]).toBe("application/json");
    expect(got.init?.redirect).toBe("manual");
    // A wrong secret does not verify.
    expect(() => new Webhook(`whsec_${btoa("another secret, 24 bytes!")}`).verify(got.body, got.headers)).toThrow();
    const row = await findDelivery(d.db, id!);
    expect(row).toMatchObject({ status: "delivered", attempts: 1, statusCode: 204, error: null });
  });

  it("events the endpoint did not subscribe to are not sent; ping always is", async () => {
    const { site } = await registered(["results.available"]);
    const d = deps({ now: Date.now });
    expect(await publish(d.publish, site.id, { type: "job.finished", data: jobData })).toBeNull();
    expect(await publish(d.publish, site.id, { type: "ping", data: {} })).not.toBeNull();
    expect(await publish(d.publish, siteRef().id, { type: "ping", data: {} })).toBeNull(); // no endpoint
  });
});

describe("retries", () => {
  it("500 is retried with the next delay, then a success ends it; the webhook-id and body stay the same", async () => {
    const { site } = await registered();
    const t = clock();
    const r = receiver([status(500, "boom"), ok]);
    const d = deps({ now: t.now, fetch: r.fetch });
    const id = await queueDelivery(d.publish, site.id, "ping", {});
    expect(await attempt(d.deliver, id)).toEqual({ retryInSeconds: DELIVERY.retryDelaysSeconds[0] });
    expect(await findDelivery(d.db, id)).toMatchObject({ status: "pending", attempts: 1, statusCode: 500, error: "HTTP 500" });
    t.advance(5_000);
    expect(await attempt(d.deliver, id)).toBeNull();
    expect(await findDelivery(d.db, id)).toMatchObject({ status: "delivered", attempts: 2, statusCode: 204, error: null });
    expect(r.received[1].headers["webhook-id"]).toBe(id);
    expect(r.received[1].body).toBe(r.received[0].body);
    expect((await findEndpoint(d.db, site.id))?.failingSince).toBeNull();
  });

  it("a timeout is retried, then a success ends it", async () => {
    const { site } = await registered();
    const t = clock();
    let calls = 0;
    const d = deps({ now: t.now, timeoutMs: 20, fetch: (async (_: unknown, init?: RequestInit) => (++calls === 1 ? hang(init) : ok())) as typeof fetch });
    const id = await queueDelivery(d.publish, site.id, "ping", {});
    expect(await attempt(d.deliver, id)).toEqual({ retryInSeconds: 5 });
    expect(await findDelivery(d.db, id)).toMatchObject({ status: "pending", statusCode: null, error: "timeout" });
    expect(await attempt(d.deliver, id)).toBeNull();
    expect(await findDelivery(d.db, id)).toMatchObject({ status: "delivered", attempts: 2 });
  });

  it("410 (any 4xx but 429) is final: no retry", async () => {
    const { site } = await registered();
    const r = receiver([status(410, "gone")]);
    const d = deps({ now: Date.now, fetch: r.fetch });
    const id = await queueDelivery(d.publish, site.id, "ping", {});
    expect(await attempt(d.deliver, id)).toBeNull();
    expect(await findDelivery(d.db, id)).toMatchObject({ status: "failed", attempts: 1, statusCode: 410, error: "HTTP 410" });
    // Settled: a repeated message does not send it again.
    expect(await attempt(d.deliver, id)).toBeNull();
    expect(r.received).toHaveLength(1);
  });

  it("429 and network errors are retried; a redirect is not followed and is final", async () => {
    const { site } = await registered();
    const d429 = deps({ now: Date.now, fetch: receiver([status(429)]).fetch });
    expect(await attempt(d429.deliver, await queueDelivery(d429.publish, site.id, "ping", {}))).toEqual({ retryInSeconds: 5 });
    const dNet = deps({
      now: Date.now,
      fetch: (async () => {
        throw new TypeError("Network connection lost.");
      }) as typeof fetch,
    });
    const idNet = await queueDelivery(dNet.publish, site.id, "ping", {});
    expect(await attempt(dNet.deliver, idNet)).toEqual({ retryInSeconds: 5 });
    expect((await findDelivery(dNet.db, idNet))?.error).toBe("connection failed");
    const r = receiver([() => new Response(null, { status: 301, headers: { location: "https://elsewhere.example.test/" } })]);
    const dRedirect = deps({ now: Date.now, fetch: r.fetch });
    const idRedirect = await queueDelivery(dRedirect.publish, site.id, "ping", {});
    expect(await attempt(dRedirect.deliver, idRedirect)).toBeNull();
    expect(await findDelivery(dRedirect.db, idRedirect)).toMatchObject({ status: "failed", statusCode: 301, error: "HTTP 301 (redirect not followed)" });
  });

  it("retries go on for at least 24 hours with growing delays, then the delivery is recorded as failed", async () => {
    const delays = DELIVERY.retryDelaysSeconds;
    expect(delays.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(24 * 3600);
    for (let i = 1; i < delays.length; i++) expect(delays[i]).toBeGreaterThanOrEqual(delays[i - 1]);
    const { site } = await registered();
    const t = clock();
    const d = deps({ now: t.now, fetch: receiver([status(503)]).fetch });
    const id = await queueDelivery(d.publish, site.id, "ping", {});
    const seen: number[] = [];
    for (;;) {
      const outcome = await attempt(d.deliver, id);
      if (!outcome) break;
      seen.push(outcome.retryInSeconds);
      t.advance(outcome.retryInSeconds * 1000);
    }
    expect(seen).toEqual([...delays]);
    expect(await findDelivery(d.db, id)).toMatchObject({ status: "failed", attempts: delays.length + 1, statusCode: 503 });
  });

  it("the log keeps the status code and a fixed reason, never the receiver's body or headers", async () => {
    const { site } = await registered();
    const secretBody = "root:x:0:0:root:/root:/bin/bash";
    const answers = [status(500, secretBody), () => new Response(secretBody, { status: 302, headers: { location: "http://10.0.0.1/admin" } }), status(404, secretBody)];
    for (const answer of answers) {
      const d = deps({ now: Date.now, fetch: receiver([answer]).fetch });
      const id = await queueDelivery(d.publish, site.id, "ping", {});
      await attempt(d.deliver, id);
      const row = await findDelivery(d.db, id);
      expect(row?.error).toMatch(/^HTTP \d{3}( \(redirect not followed\))?$/);
      expect(row?.error).not.toContain("root");
      expect(row?.error).not.toContain("10.0.0.1");
    }
  });
});

describe("an endpoint failing for 3 days", () => {
  it("is disabled: nothing more is sent until it is re-enabled", async () => {
    const { site } = await registered();
    const t = clock();
    const d = deps({ now: t.now, fetch: receiver([status(500)]).fetch });
    await attempt(d.deliver, await queueDelivery(d.publish, site.id, "ping", {}));
    const first = new Date(t.now()).toISOString();
    expect(await findEndpoint(d.db, site.id)).toMatchObject({ failingSince: first, disabledAt: null });
    t.advance(DELIVERY.disableAfterMs - 60_000);
    await attempt(d.deliver, await queueDelivery(d.publish, site.id, "ping", {}));
    expect((await findEndpoint(d.db, site.id))?.disabledAt).toBeNull();
    t.advance(60_000);
    const last = await queueDelivery(d.publish, site.id, "ping", {});
    await attempt(d.deliver, last);
    expect(await findEndpoint(d.db, site.id)).toMatchObject({ failingSince: first, disabledAt: new Date(t.now()).toISOString() });
    // Disabled: events are not queued, and what was waiting ends without an attempt.
    expect(await publish(d.publish, site.id, { type: "job.finished", data: jobData })).toBeNull();
    const waiting = await queueDelivery(d.publish, site.id, "ping", {});
    expect(await attempt(d.deliver, waiting)).toBeNull();
    expect(await findDelivery(d.db, waiting)).toMatchObject({ status: "failed", attempts: 0, error: "The webhook endpoint is disabled." });

    const enabled = await enableWebhook(env, "admin", site);
    expect(enabled).toMatchObject({ disabled_at: null, failing_since: null });
    expect(await publish(d.publish, site.id, { type: "job.finished", data: jobData })).not.toBeNull();
  });
});

describe("coalescing", () => {
  it("results.available goes out at most once per site per 10 seconds, and the last event of a burst is never lost", async () => {
    const { site } = await registered();
    const t = clock();
    const d = deps({ now: t.now });
    for (let i = 0; i < 5; i++) {
      await publish(d.publish, site.id, { type: "results.available" });
      t.advance(1_000);
    }
    // The first at once; the rest of the burst waits for one send at the end of the window.
    expect(d.sent).toEqual([
      { body: { kind: "compose", site_id: site.id, type: "results.available" }, delaySeconds: undefined },
      { body: { kind: "compose", site_id: site.id, type: "results.available" }, delaySeconds: 9 },
    ]);
    // Still inside the second window (which ends 10 s after the first): nothing new.
    t.advance(4_000); // t0 + 9 s
    await publish(d.publish, site.id, { type: "results.available" });
    expect(d.sent).toHaveLength(2);
    t.advance(30_000);
    await publish(d.publish, site.id, { type: "results.available" });
    expect(d.sent).toHaveLength(3);
    expect(d.sent[2].delaySeconds).toBeUndefined();
    // Another site has its own window; another event type too.
    const other = await registered();
    await publish(d.publish, other.site.id, { type: "results.available" });
    await publish(d.publish, site.id, { type: "attention.created" });
    expect(d.sent.slice(3).map((s) => s.delaySeconds)).toEqual([undefined, undefined]);
  });
});

describe("rotation", () => {
  it("both secrets verify for 24 hours, then only the new one", async () => {
    const { site, secret: old } = await registered();
    const rotated = await rotateWebhookSecret(env, "admin", site);
    expect(rotated.secret).not.toBe(old);
    expect(Date.parse(rotated.previous_secret_expires_at!) - Date.now()).toBeGreaterThan(DELIVERY.rotationOverlapMs - 60_000);
    const endpoint = (await findEndpoint(deps({ now: Date.now }).db, site.id))!;
    const body = JSON.stringify({ type: "ping", timestamp: new Date().toISOString(), data: {} });

    const during = signatureHeaders(endpoint, "msg_1", new Date(), body);
    expect(during["webhook-signature"].split(" ")).toHaveLength(2);
    expect(new Webhook(old).verify(body, during)).toBeTruthy();
    expect(new Webhook(rotated.secret).verify(body, during)).toBeTruthy();

    // 24 hours later (the overlap ended): the receiver's clock agrees with the signature's, so the
    // end of the overlap is moved instead of the clocks.
    const after = signatureHeaders({ ...endpoint, previousUntil: new Date(Date.now() - 1).toISOString() }, "msg_2", new Date(), body);
    expect(after["webhook-signature"].split(" ")).toHaveLength(1);
    expect(new Webhook(rotated.secret).verify(body, after)).toBeTruthy();
    expect(() => new Webhook(old).verify(body, after)).toThrow();
    // And at the overlap's very end, by the clock: a signature made 24 h + 1 ms after rotation carries only the new secret.
    const end = Date.parse(rotated.previous_secret_expires_at!);
    expect(signatureHeaders(endpoint, "msg_3", new Date(end - 1), body)["webhook-signature"].split(" ")).toHaveLength(2);
    expect(signatureHeaders(endpoint, "msg_3", new Date(end + 1), body)["webhook-signature"].split(" ")).toHaveLength(1);
  });
});
