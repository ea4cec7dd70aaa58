/**
 * Webhooks through the Worker: the /v1/webhook operations and their 422s, the Queue consumer
 * (the Worker's own `queue` export, driven with `createMessageBatch` as the platform calls it:
 * helpers/webhooks.ts `heldQueue`), and events from a real job, received and verified as a
 * connector would.
 */
import { createExecutionContext, createMessageBatch, getQueueResult, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { HttpResponse, http } from "msw";
import { Webhook } from "standardwebhooks";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { controlDb } from "../../src/control/db";
import type { SiteSettings } from "../../src/control/sites.control";
import { findDelivery } from "../../src/control/webhooks.control";
import worker from "../../src/index";
import { putWebhook } from "../../src/ops/webhooks.ops";
import { runJobs } from "../../src/site/jobs/runner";
import type { SiteObject } from "../../src/site/object";
import { emitter } from "../../src/webhooks/emit";
import type { WebhookMessage } from "../../src/webhooks/events";
import { logDelivery } from "../../src/webhooks/publish";
import { newThresholds } from "../../src/webhooks/usage-threshold";
import { client, createSite, unit } from "../helpers/api";
import { mockFetch, type RecordedRequest } from "../helpers/http";
import { job, runJob } from "../helpers/jobs";
import { stubOf } from "../helpers/site";
import { heldQueue, siteRef } from "../helpers/webhooks";

/** Each test its own endpoint: retries of an earlier test's deliveries may still arrive (answered 410, and not counted). */
let HOOK = "";
beforeEach(() => {
  HOOK = `https://hooks.example.test/${crypto.randomUUID()}`;
});

/** The endpoint of this test, answering with `answer`; `requests` holds what reached it. */
function receive(answer: () => Response) {
  const url = HOOK;
  const all = mockFetch([http.post(url, answer), http.post("https://hooks.example.test/*", () => new HttpResponse(null, { status: 410 }))]);
  return {
    get requests() {
      return all.requests.filter((r) => r.url.href === url);
    },
  };
}

const verify = (secret: string, r: RecordedRequest) => new Webhook(secret).verify(r.body, Object.fromEntries(r.headers)) as { type: string; timestamp: string; data: any };

async function deliveries(c: ReturnType<typeof client>) {
  const res = await c.get("/v1/webhook/deliveries");
  expect(res.status).toBe(200);
  return res.body.deliveries as any[];
}

describe("the /v1/webhook operations", () => {
  it("register (secret once), show, rotate, remove", async () => {
    const c = client((await createSite()).key);
    expect((await c.get("/v1/webhook")).status).toBe(404);
    const put = await c.put("/v1/webhook", { url: HOOK, events: ["results.available", "job.finished"] });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ url: HOOK, events: ["job.finished", "results.available"], secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{32}$/), disabled_at: null });
    const got = await c.get("/v1/webhook");
    expect(got.body).toEqual({ ...put.body, secret: undefined });
    expect(got.body.secret).toBeUndefined();
    const rotated = await c.post("/v1/webhook/rotate");
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).not.toBe(put.body.secret);
    expect(Date.parse(rotated.body.previous_secret_expires_at) - Date.now()).toBeGreaterThan(23 * 3600_000);
    // All events when `events` is omitted; registering again issues a new secret and ends the overlap.
    const again = await c.put("/v1/webhook", { url: HOOK });
    expect(again.body).toMatchObject({ events: ["job.finished", "results.available", "attention.created", "usage.threshold", "ping"], previous_secret_expires_at: null });
    expect((await c.del("/v1/webhook")).status).toBe(204);
    expect((await c.get("/v1/webhook")).status).toBe(404);
    expect((await c.del("/v1/webhook")).status).toBe(204);
    expect((await c.post("/v1/webhook/rotate")).status).toBe(404);
    expect((await c.post("/v1/webhook/test")).status).toBe(404);
  });

  it.each([
    ["http://hooks.example.test/x", "url: must use https://"],
    ["https://user:secret@hooks.example.test/x", "must not contain credentials"],
    [`https://hooks.example.test/${"a".repeat(2_000)}`, "at most 2000 characters"],
    ["not a url", "must be an absolute URL"],
    ["ftp://hooks.example.test/x", "must use https://"],
    ["http://127.0.0.1:8788/hook", "WEBHOOK_ALLOW_LOOPBACK"],
  ])("%s is refused with 422", async (url, detail) => {
    const c = client((await createSite()).key);
    const res = await c.put("/v1/webhook", { url });
    expect(res.status).toBe(422);
    expect(res.body.detail).toContain("url");
    expect(res.body.detail).toContain(detail);
  });

  it("unknown events are refused with 422", async () => {
    const c = client((await createSite()).key);
    const res = await c.put("/v1/webhook", { url: HOOK, events: ["job.started"] });
    expect(res.status).toBe(422);
    expect(res.body.detail).toContain("events");
  });

  it("plain http:// to a loopback host only with WEBHOOK_ALLOW_LOOPBACK=true, on a request to a loopback host", async () => {
    const local = { ...env, WEBHOOK_ALLOW_LOOPBACK: "true" } as Env;
    const here = "http://127.0.0.1:8787/v1/webhook";
    for (const url of ["http://127.0.0.1:8788/hook", "http://localhost:3000/hook", "http://[::1]/hook"]) {
      await expect(putWebhook(local, "admin", siteRef(), { url }, here)).resolves.toMatchObject({ url });
      await expect(putWebhook(env, "admin", siteRef(), { url }, here)).rejects.toMatchObject({ status: 422 });
      // The flag left on in a deployment changes nothing there (docs/decisions.md "Webhooks").
      await expect(putWebhook(local, "admin", siteRef(), { url }, "https://api.transync.dev/v1/webhook")).rejects.toMatchObject({ status: 422 });
      await expect(putWebhook(local, "admin", siteRef(), { url })).rejects.toMatchObject({ status: 422 });
    }
    // Only loopback: another host over plain http stays refused.
    await expect(putWebhook(local, "admin", siteRef(), { url: "http://10.0.0.5/hook" }, here)).rejects.toMatchObject({ status: 422 });
    await expect(putWebhook(local, "admin", siteRef(), { url: "http://127.0.0.1.nip.io/hook" }, here)).rejects.toMatchObject({ status: 422 });
  });
});

describe("the Queue consumer", () => {
  it("a test ping goes through the queue to the endpoint, signed; the log shows it delivered", async () => {
    const c = client((await createSite()).key);
    const { secret } = (await c.put("/v1/webhook", { url: HOOK })).body;
    const fetches = receive(() => new HttpResponse(null, { status: 204 }));
    const queue = heldQueue();
    const test = await c.post("/v1/webhook/test");
    expect(test.status).toBe(202);
    // The message the Worker sent, handed to its queue handler: attempted once, delivered, acknowledged.
    expect(queue.held.map((m) => m.body)).toEqual([{ kind: "deliver", id: test.body.id }]);
    expect(await queue.deliver()).toEqual([{ outcome: "ok", retryBatch: { retry: false }, ackAll: false, retryMessages: [], explicitAcks: [expect.any(String)] }]);
    expect((await deliveries(c))[0]).toMatchObject({ id: test.body.id, status: "delivered" });
    const [ping] = fetches.requests;
    expect(verify(secret, ping)).toMatchObject({ type: "ping", data: {} });
    expect(ping.headers.get("webhook-id")).toBe(test.body.id);
    expect((await deliveries(c))[0]).toMatchObject({ event: "ping", attempts: 1, status_code: 204, error: null, duration_ms: expect.any(Number) });
  });

  it("the Worker's queue handler retries a 500 with the delivery's delay and acknowledges a 410", async () => {
    const site = siteRef();
    await putWebhook(env, "admin", site, { url: HOOK });
    const db = controlDb(env.DB);
    const failing = await logDelivery({ db, now: Date.now }, site.id, "ping", {});
    const gone = await logDelivery({ db, now: Date.now }, site.id, "ping", {});
    let n = 0;
    receive(() => new HttpResponse("no", { status: ++n === 1 ? 500 : 410 }));
    const messages = [failing, gone].map((id, i) => ({ id: `m${i}`, timestamp: new Date(), attempts: 1, body: { kind: "deliver", id } as WebhookMessage }));
    const batch = createMessageBatch<WebhookMessage>("transync-webhooks", [messages[0]]);
    const ctx = createExecutionContext();
    const retry = vi.spyOn(batch.messages[0], "retry");
    await worker.queue(batch, env);
    expect(await getQueueResult(batch, ctx)).toMatchObject({ retryMessages: [{ msgId: "m0" }], explicitAcks: [] });
    expect(retry).toHaveBeenCalledWith({ delaySeconds: 5 });
    const batch2 = createMessageBatch<WebhookMessage>("transync-webhooks", [messages[1]]);
    const ctx2 = createExecutionContext();
    await worker.queue(batch2, env);
    expect(await getQueueResult(batch2, ctx2)).toMatchObject({ retryMessages: [], explicitAcks: ["m1"] });
    expect(await findDelivery(db, failing)).toMatchObject({ status: "pending", statusCode: 500 });
    expect(await findDelivery(db, gone)).toMatchObject({ status: "failed", statusCode: 410 });
  });
});

describe("events from the job pipeline", () => {
  it("a job sends job.finished and results.available, each verifiable, with what the API answers", async () => {
    const site = await createSite();
    const c = client(site.key);
    const { secret } = (await c.put("/v1/webhook", { url: HOOK })).body;
    const fetches = receive(() => new HttpResponse(null, { status: 200 }));
    const queue = heldQueue();
    await c.put(
      "/v1/units",
      unit("post:1", [
        { key: "a", text: "Hello" },
        { key: "b", text: "World" },
      ]),
    );
    const done = await job(c, site.siteId);
    expect(done.status).toBe("succeeded");
    await queue.until(async () => {
      const events = (await deliveries(c)).filter((d) => d.status === "delivered").map((d) => d.event);
      expect(events).toEqual(expect.arrayContaining(["job.finished", "results.available"]));
    });
    const bodies = fetches.requests.map((r) => verify(secret, r));
    expect(bodies.find((b) => b.type === "job.finished")!.data).toEqual((await c.get(`/v1/jobs/${done.id}`)).body);
    expect(bodies.find((b) => b.type === "results.available")!.data).toEqual({ pending: 4, languages: ["de", "fr"] });
  });

  it("a cancelled job sends job.finished", async () => {
    const site = await createSite();
    const c = client(site.key);
    await c.put("/v1/webhook", { url: HOOK, events: ["job.finished"] });
    const fetches = receive(() => new HttpResponse(null, { status: 204 }));
    const queue = heldQueue();
    await c.put("/v1/units", unit("post:1", [{ key: "a", text: "Hello" }]));
    const created = await c.post("/v1/jobs", { confirm: true });
    expect((await c.post(`/v1/jobs/${created.body.id}/cancel`)).body.status).toBe("cancelled");
    await queue.until(() => expect(fetches.requests).toHaveLength(1));
    expect(fetches.requests[0].json()).toMatchObject({ type: "job.finished", data: { id: created.body.id, status: "cancelled" } });
  });

  it("a failing or throwing webhook never fails a job or a push", async () => {
    const site = await createSite();
    const c = client(site.key);
    await c.put("/v1/webhook", { url: HOOK });
    receive(() => HttpResponse.error());
    const queue = heldQueue();
    // The endpoint is unreachable: the push and the job go on as without a webhook.
    expect((await c.put("/v1/units", unit("post:1", [{ key: "a", text: "Hello" }]))).status).toBe(200);
    expect((await job(c, site.siteId)).status).toBe("succeeded");
    expect((await c.put("/v1/units", unit("post:1", [{ key: "a", text: "Hello again" }]))).status).toBe(200);

    // Publishing itself throws (D1 and the Queue failing): emit still returns at once, and the job finishes.
    const broken = {
      db: {
        select: () => {
          throw new Error("D1 is down");
        },
      } as never,
      queue: {
        send: () => {
          throw new Error("queue down");
        },
      } as never,
      now: Date.now,
    };
    const logged = vi.spyOn(console, "warn").mockImplementation(() => {});
    const created = await c.post("/v1/jobs", { confirm: true });
    const stub = stubOf(site.siteId);
    await runInDurableObject(stub, async (instance: SiteObject) => {
      const settings = instance.store.getMeta<SiteSettings>("settings")!;
      const emit = emitter(env, site.siteId, undefined, broken);
      expect(() => emit({ type: "results.available" })).not.toThrow();
      for (let i = 0; i < 50 && (await runJobs({ store: instance.store, env, settings, emit })); i++);
    });
    expect((await runJob(c, site.siteId, created.body.id)).status).toBe("succeeded");
    await vi.waitFor(() => expect(logged.mock.calls.some(([line]) => String(line).includes('"event":"webhook.not_published"'))).toBe(true));
    logged.mockRestore();
    // The unreachable endpoint: each attempt fails and is retried later; nothing failed above.
    const rounds = await queue.deliver();
    expect(rounds.flatMap((r) => r.retryMessages).length).toBeGreaterThan(0);
    expect((await c.del("/v1/webhook")).status).toBe(204);
  });

  it("QA holding translations back sends attention.created with the items as listAttention shows them", async () => {
    const site = await createSite({ qa_mode: "separate", target_languages: [{ code: "de" }] });
    const c = client(site.key);
    const { secret } = (await c.put("/v1/webhook", { url: HOOK, events: ["attention.created"] })).body;
    const fetches = receive(() => new HttpResponse(null, { status: 204 }));
    const queue = heldQueue();
    // The pseudo engine lengthens text by about 30%: a max_length of 12 is a QA error.
    await c.put(
      "/v1/units",
      unit("post:1", [
        { key: "title", text: "Hello world", max_length: 12 },
        { key: "body", text: "Welcome home" },
      ]),
    );
    await job(c, site.siteId);
    await queue.until(() => expect(fetches.requests).toHaveLength(1));
    const event = verify(secret, fetches.requests[0]);
    expect(event).toMatchObject({ type: "attention.created", data: { count: 1 } });
    expect(event.data.items).toEqual((await c.get("/v1/attention")).body.items);
  });

  it("usage.threshold at 80 % and 100 % of the included volume, once a month each", async () => {
    const site = await createSite({ plan: "scale", included_characters: 30, target_languages: [{ code: "de" }] });
    const c = client(site.key);
    await c.put("/v1/webhook", { url: HOOK, events: ["usage.threshold"] });
    const fetches = receive(() => new HttpResponse(null, { status: 204 }));
    const queue = heldQueue();
    await c.put("/v1/units", unit("post:1", [{ key: "a", text: "Twenty-six characters here" }]));
    await job(c, site.siteId);
    await queue.until(() => expect(fetches.requests).toHaveLength(1));
    const usage = (await c.get("/v1/usage")).body;
    expect(fetches.requests[0].json()).toMatchObject({
      type: "usage.threshold",
      data: { month: usage.month_start.slice(0, 7), used_characters: 26, included_characters: 30, percent: 80 },
    });
    // Past 100 %: that one, once; 80 % is not announced again.
    await c.put("/v1/units", unit("post:2", [{ key: "a", text: "More text" }]));
    await job(c, site.siteId);
    await queue.until(() => expect(fetches.requests).toHaveLength(2));
    expect(fetches.requests[1].json()).toMatchObject({ type: "usage.threshold", data: { used_characters: 35, percent: 100 } });
    await c.put("/v1/units", unit("post:3", [{ key: "a", text: "Even more" }]));
    await job(c, site.siteId);
    // The third job was billed; what the consumer composes for it announces nothing, and the log holds the two deliveries.
    expect((await c.get("/v1/usage")).body.used_characters).toBe(44);
    expect(await newThresholds(controlDb(env.DB), site.siteId, Date.now())).toEqual([]);
    await queue.deliver();
    const logged = await env.DB.prepare("SELECT event FROM webhook_deliveries WHERE site_id = ?").bind(site.siteId).all<{ event: string }>();
    expect(logged.results.map((r) => r.event)).toEqual(["usage.threshold", "usage.threshold"]);
    expect(fetches.requests).toHaveLength(2);
  });
});
