/**
 * The package's helpers (client/src/helpers.ts) against the Worker, as a connector uses them:
 * batching within the contract's bounds, per-unit failures collected, the caller's policy for a
 * job that needs confirmation, retries of 429 and 5xx (a fetch wrapper answers them before the
 * Worker does), result pages, acks and reviews, and TransyncError's fields.
 */
import { runDurableObjectAlarm } from "cloudflare:test";
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import {
  ack,
  BATCH_BYTES,
  createTransyncClient,
  pendingResults,
  planBatches,
  pushUnits,
  type RetryOptions,
  review,
  runJob,
  type Schemas,
  TransyncError,
} from "../../client/src/index.js";
import { createSite, unit } from "../helpers/api";
import { stubOf } from "../helpers/site";

const BASE = "https://api.test";
type Unit = Schemas["UnitSnapshotIn"];

/** Every request the client sends, with its body's size; `answer` may answer one instead of the Worker. */
function recorder(answer?: (req: Request, n: number) => Response | undefined) {
  const sent: { method: string; path: string; bytes: number; units: number }[] = [];
  const fetch = async (req: Request) => {
    const body = req.method === "GET" ? "" : await req.clone().text();
    const parsed = body ? JSON.parse(body) : {};
    sent.push({ method: req.method, path: new URL(req.url).pathname, bytes: new TextEncoder().encode(body).byteLength, units: parsed.units?.length ?? 0 });
    return answer?.(req, sent.length) ?? exports.default.fetch(req);
  };
  return { sent, fetch };
}

/** Waits recorded instead of slept. */
function noSleep() {
  const waits: number[] = [];
  const retry: RetryOptions = { sleep: async (ms) => void waits.push(ms) };
  return { waits, retry };
}

/** runJob's poll wait: runs the site object's alarm (jobs advance on alarms in the pool). */
const alarmOf = (siteId: number) => async () => void (await runDurableObjectAlarm(stubOf(siteId)));

const units = (n: number, text = (i: number) => `Text ${i}`): Unit[] => Array.from({ length: n }, (_, i) => unit(`post:${i}`, [{ key: "a", text: text(i) }]) as Unit);

describe("pushUnits", () => {
  it("sends 250 units as 3 batches (100, 100, 50), one after another, and reports progress", async () => {
    const site = await createSite();
    const { sent, fetch } = recorder();
    const api = createTransyncClient({ baseUrl: BASE, key: site.key, fetch });
    const progress: number[] = [];
    const out = await pushUnits(api, units(250), { onProgress: (p) => progress.push(p.done) });
    expect(sent.map((s) => [s.method, s.path, s.units])).toEqual([
      ["PUT", "/v1/units/batch", 100],
      ["PUT", "/v1/units/batch", 100],
      ["PUT", "/v1/units/batch", 50],
    ]);
    expect(progress).toEqual([100, 200, 250]);
    expect(out).toMatchObject({ batches: 3, failed: [] });
    expect(out.synced).toHaveLength(250);
    expect(out.synced[249]).toMatchObject({ external_key: "post:249", result: { unit_created: true, added: 1 } });
    const status = await api.GET("/v1/status");
    expect(status.data?.languages.map((l) => l.missing)).toEqual([250, 250]);
  });

  it("splits by bytes: every batch body stays under the limit, multi-byte text counted in UTF-8", async () => {
    const site = await createSite();
    const { sent, fetch } = recorder();
    const api = createTransyncClient({ baseUrl: BASE, key: site.key, fetch });
    // 12 units of about 6,000 bytes each (2,000 × "€", 3 bytes in UTF-8) under a 20,000-byte limit: 3 a batch.
    const out = await pushUnits(
      api,
      units(12, (i) => `${i}${"€".repeat(2_000)}`),
      { batchBytes: 20_000 },
    );
    expect(out.failed).toEqual([]);
    expect(sent.map((s) => s.units)).toEqual([3, 3, 3, 3]);
    for (const s of sent) expect(s.bytes).toBeLessThanOrEqual(20_000);
  });

  it("plans batches under 10 MB by default however many units would fit the count", () => {
    // 20 units of 1.2 MB (4 segments of 100,000 × "€"): 8 fit under 10 MB.
    const big = units(20, () => "€".repeat(100_000)).map((u) => ({ ...u, segments: [0, 1, 2, 3].map((k) => ({ key: `s${k}`, text: "€".repeat(100_000) })) }));
    const { batches, tooLarge } = planBatches(big);
    expect(batches.map((b) => b.length)).toEqual([8, 8, 4]);
    expect(tooLarge).toEqual([]);
    for (const b of batches) expect(new TextEncoder().encode(JSON.stringify({ units: b })).byteLength).toBeLessThan(BATCH_BYTES);
    expect(BATCH_BYTES).toBeLessThan(10 * 1024 * 1024);
  });

  it("collects per-unit failures in the order given, without throwing, and pushes the rest", async () => {
    const site = await createSite();
    const api = createTransyncClient({ baseUrl: BASE, key: site.key, fetch: (req: Request) => exports.default.fetch(req) });
    const list = units(5);
    list[1] = { ...list[1]!, external_key: "bad key" };
    list[3] = { ...list[3]!, segments: [{ key: "a", text: "x".repeat(100_001) }] };
    list.push(unit("post:huge", [{ key: "a", text: "y".repeat(3_000) }]) as Unit);
    const out = await pushUnits(api, list, { batchBytes: 2_000 });
    expect(out.failed.map((f) => f.external_key)).toEqual(["bad key", "post:3", "post:huge"]);
    expect(out.failed[2]!.error).toMatch(/too large for a batch/);
    for (const f of out.failed) expect(f.error).not.toBe("");
    expect(out.synced.map((s) => s.external_key)).toEqual(["post:0", "post:2", "post:4"]);
  });

  it("retries a 429 after the Retry-After it asks for (seconds, then an HTTP date), and a 5xx after a back-off", async () => {
    const site = await createSite();
    const date = new Date(Date.now() + 5_000).toUTCString();
    const { sent, fetch } = recorder((_req, n) => {
      if (n === 1) return new Response(JSON.stringify({ detail: "Too many requests." }), { status: 429, headers: { "content-type": "application/json", "retry-after": "7" } });
      if (n === 2) return new Response(JSON.stringify({ detail: "Slow down." }), { status: 429, headers: { "content-type": "application/json", "retry-after": date } });
      if (n === 3) return new Response("upstream failed", { status: 503 });
      return undefined;
    });
    const api = createTransyncClient({ baseUrl: BASE, key: site.key, fetch });
    const { waits, retry } = noSleep();
    const out = await pushUnits(api, units(3), { retry });
    expect(out.synced).toHaveLength(3);
    expect(sent).toHaveLength(4);
    expect(waits[0]).toBe(7_000);
    expect(waits[1]).toBeGreaterThan(3_000);
    expect(waits[1]).toBeLessThanOrEqual(5_000);
    // No Retry-After: the back-off after the third attempt, 1 s × 2² with ±25 % jitter.
    expect(waits[2]).toBeGreaterThanOrEqual(3_000);
    expect(waits[2]).toBeLessThanOrEqual(5_000);
  });

  it("retries a network error (the request never reached the service)", async () => {
    const site = await createSite();
    const { sent, fetch } = recorder((_req, n) => {
      if (n === 1) throw new TypeError("fetch failed");
      return undefined;
    });
    const api = createTransyncClient({ baseUrl: BASE, key: site.key, fetch });
    const { waits, retry } = noSleep();
    expect((await pushUnits(api, units(2), { retry })).synced).toHaveLength(2);
    expect(sent).toHaveLength(2);
    expect(waits).toHaveLength(1);
  });

  it("gives up after the attempts allowed and throws the last answer as TransyncError", async () => {
    const site = await createSite();
    const { sent, fetch } = recorder(() => new Response(JSON.stringify({ detail: "Down for maintenance." }), { status: 503, headers: { "content-type": "application/json" } }));
    const api = createTransyncClient({ baseUrl: BASE, key: site.key, fetch });
    const { waits, retry } = noSleep();
    const error = await pushUnits(api, units(1), { retry: { ...retry, attempts: 3 } }).catch((e) => e);
    expect(error).toBeInstanceOf(TransyncError);
    expect(error).toMatchObject({ status: 503, detail: "Down for maintenance.", code: undefined, estimate: undefined });
    expect(sent).toHaveLength(3);
    expect(waits).toHaveLength(2);
  });
});

describe("runJob", () => {
  it("polls until the job is done and answers the final JobOut", async () => {
    const site = await createSite();
    const api = createTransyncClient({ baseUrl: BASE, key: site.key, fetch: (req: Request) => exports.default.fetch(req) });
    await pushUnits(api, units(3));
    const seen: string[] = [];
    const job = await runJob(api, { type: "delta" }, { sleep: alarmOf(site.siteId), onProgress: (j) => seen.push(j.status) });
    expect(job).toMatchObject({ status: "succeeded", done_segments: 6, failed_segments: 0 });
    expect(seen[0]).toBe("queued");
    expect(seen.at(-1)).toBe("succeeded");
  });

  it("hands a job that needs confirmation to the caller's policy: false throws the 409 with its estimate", async () => {
    const site = await createSite({ plan: "pro", included_characters: 1000 });
    const api = createTransyncClient({ baseUrl: BASE, key: site.key, fetch: (req: Request) => exports.default.fetch(req) });
    await pushUnits(api, [unit("post:1", [{ key: "a", text: "abcdefghij".repeat(60) }]) as Unit]);
    const asked: Schemas["EstimateOut"][] = [];
    const error = await runJob(
      api,
      {},
      {
        confirm: (estimate) => {
          asked.push(estimate);
          return false;
        },
      },
    ).catch((e) => e);
    expect(error).toBeInstanceOf(TransyncError);
    expect(error).toMatchObject({ status: 409, code: "confirmation_required", estimate: { characters: 1200, requires_confirmation: true } });
    expect(error.detail).toMatch(/confirm/);
    expect(asked).toEqual([error.estimate]);
    // No policy at all: the same refusal.
    await expect(runJob(api, {})).rejects.toMatchObject({ status: 409, code: "confirmation_required" });
    expect((await api.GET("/v1/jobs")).data).toEqual([]);
  });

  it("hands a job that needs confirmation to the caller's policy: true sends it again confirmed and runs it", async () => {
    const site = await createSite({ plan: "pro", included_characters: 1000 });
    const api = createTransyncClient({ baseUrl: BASE, key: site.key, fetch: (req: Request) => exports.default.fetch(req) });
    await pushUnits(api, [unit("post:1", [{ key: "a", text: "abcdefghij".repeat(60) }]) as Unit]);
    const asked: number[] = [];
    const job = await runJob(
      api,
      {},
      {
        confirm: async (estimate) => {
          asked.push(estimate.characters);
          return true;
        },
        sleep: alarmOf(site.siteId),
      },
    );
    expect(asked).toEqual([1200]);
    expect(job).toMatchObject({ status: "succeeded", characters: 1200 });
    expect((await api.GET("/v1/jobs")).data).toHaveLength(1);
  });

  it("retries creating a job only after a 429, never after a 5xx (a job is not idempotent)", async () => {
    const site = await createSite();
    let failWith = 429;
    const { sent, fetch } = recorder((req, n) => (req.method === "POST" && n === 1 ? new Response("{}", { status: failWith, headers: { "retry-after": "1" } }) : undefined));
    const api = createTransyncClient({ baseUrl: BASE, key: site.key, fetch });
    await api.PUT("/v1/units", { body: units(1)[0]! });
    sent.length = 0;
    const { waits, retry } = noSleep();
    const job = await runJob(api, {}, { retry, sleep: alarmOf(site.siteId) });
    expect(job.status).toBe("succeeded");
    expect(waits).toEqual([1_000]);
    expect(sent.filter((s) => s.method === "POST")).toHaveLength(2);

    failWith = 503;
    sent.length = 0;
    const error = await runJob(api, { force: true }, { retry }).catch((e) => e);
    expect(error).toMatchObject({ name: "TransyncError", status: 503 });
    expect(sent.filter((s) => s.method === "POST")).toHaveLength(1);
  });

  it("stops waiting when the signal is aborted, and the job keeps its place", async () => {
    const site = await createSite();
    const api = createTransyncClient({ baseUrl: BASE, key: site.key, fetch: (req: Request) => exports.default.fetch(req) });
    await pushUnits(api, units(2));
    const controller = new AbortController();
    const error = await runJob(api, {}, { signal: controller.signal, sleep: async () => controller.abort(new Error("stopped by the caller")) }).catch((e) => e);
    expect(error).toMatchObject({ message: "stopped by the caller" });
    expect((await api.GET("/v1/jobs", { params: { query: { active: true } } })).data).toHaveLength(1);
  });

  it("refuses an estimate-only request (it creates no job)", async () => {
    const site = await createSite();
    const api = createTransyncClient({ baseUrl: BASE, key: site.key, fetch: (req: Request) => exports.default.fetch(req) });
    await expect(runJob(api, { estimate_only: true })).rejects.toThrow(TypeError);
  });
});

describe("pendingResults, ack and review", () => {
  it("pages through the results, acknowledges them and reports reviews", async () => {
    const site = await createSite();
    const api = createTransyncClient({ baseUrl: BASE, key: site.key, fetch: (req: Request) => exports.default.fetch(req) });
    await pushUnits(api, units(3));
    await runJob(api, {}, { sleep: alarmOf(site.siteId) });

    const pages: Schemas["ResultOut"][][] = [];
    for await (const page of pendingResults(api, { limit: 4 })) pages.push(page);
    expect(pages.map((p) => p.length)).toEqual([4, 2]);
    const all = pages.flat();
    expect(new Set(all.map((r) => r.id)).size).toBe(6);

    const one: Schemas["ResultOut"][] = [];
    for await (const page of pendingResults(api, { unit: "post:1" })) one.push(...page);
    expect(one.map((r) => r.unit)).toEqual(["post:1", "post:1"]);
    const german: Schemas["ResultOut"][] = [];
    for await (const page of pendingResults(api, { language: "de", limit: 2 })) german.push(...page);
    expect(german.map((r) => r.language)).toEqual(["de", "de", "de"]);

    expect(
      await ack(
        api,
        all.map((r) => r.id),
      ),
    ).toBe(6);
    const left: unknown[] = [];
    for await (const page of pendingResults(api)) left.push(...page);
    expect(left).toEqual([]);

    const decided = await review(api, [
      { id: all[0]!.id, outcome: "approved", text: "Endgültig" },
      { id: all[1]!.id, outcome: "rejected" },
      { id: "999999", outcome: "approved" },
    ]);
    expect(decided).toEqual({ updated: 2, ignored: ["999999"] });
  });

  it("sends acks of more than 1,000 ids and reviews of more than 500 in chunks within the bounds", async () => {
    const site = await createSite();
    const { sent, fetch } = recorder();
    const api = createTransyncClient({ baseUrl: BASE, key: site.key, fetch });
    expect(
      await ack(
        api,
        Array.from({ length: 2_500 }, (_, i) => String(900_000 + i)),
      ),
    ).toBe(0);
    const out = await review(
      api,
      Array.from({ length: 1_200 }, (_, i) => ({ id: String(900_000 + i), outcome: "rejected" as const })),
    );
    expect(out.updated).toBe(0);
    expect(out.ignored).toHaveLength(1_200);
    expect(sent.map((s) => s.path)).toEqual(["/v1/results/ack", "/v1/results/ack", "/v1/results/ack", "/v1/reviews", "/v1/reviews", "/v1/reviews"]);
  });
});

describe("TransyncError", () => {
  it("carries status, detail and code of a refused call (402 without a subscription, 401 without a body)", async () => {
    const site = await createSite({ plan: null });
    const api = createTransyncClient({ baseUrl: BASE, key: site.key, fetch: (req: Request) => exports.default.fetch(req) });
    await api.PUT("/v1/units", { body: units(1)[0]! });
    const error = await runJob(api).catch((e) => e);
    expect(error).toBeInstanceOf(TransyncError);
    expect(error).toMatchObject({ name: "TransyncError", status: 402, code: "subscription_required", estimate: undefined });
    expect(error.detail.length).toBeGreaterThan(10);
    expect(error.message).toBe(`402: ${error.detail}`);

    const anonymous = createTransyncClient({ baseUrl: BASE, key: "tsk_wrong", fetch: (req: Request) => exports.default.fetch(req) });
    const unauthorized = await ack(anonymous, ["1"]).catch((e) => e);
    expect(unauthorized).toMatchObject({ name: "TransyncError", status: 401 });
    expect(unauthorized.detail).not.toBe("");
  });

  it("carries the 422's detail and is not retried", async () => {
    const site = await createSite();
    const { sent, fetch } = recorder();
    const api = createTransyncClient({ baseUrl: BASE, key: site.key, fetch });
    const error = await runJob(api, { languages: ["xx"] }).catch((e) => e);
    expect(error).toMatchObject({ name: "TransyncError", status: 422 });
    expect(error.detail).toMatch(/language/i);
    expect(sent).toHaveLength(1);
  });
});
