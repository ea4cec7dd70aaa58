// Platform faults during a job: the site object evicted between alarms, D1 failing while a
// slice is metered (the alarm throws and the slice is redone), a ledger write whose answer is
// lost, and D1 failing as the job finishes. Engines are DeepL (de) and an OpenAI-compatible
// model (fr), mocked at the HTTP level.
import { evictDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { http } from "msw";
import { describe, expect, it, vi } from "vitest";
import { client, createSite, unit } from "../helpers/api";
import { allResults } from "../helpers/jobs";
import {
  alarm,
  expectConsistent,
  flakyDb,
  languageCounts,
  ledger,
  mockEngines,
  DEEPL_URL,
  deeplError,
  runToEnd,
  slice,
  stubOf,
  sumCharacters,
  texts,
  translatedOnce,
} from "./support";

const DISTINCT = texts(500, "Durable entry");
const SEGMENTS = [...DISTINCT, ...DISTINCT.slice(0, 40)].map((text, i) => ({ key: `s${String(i).padStart(3, "0")}`, text }));
const PER_LANGUAGE = SEGMENTS.length;
const CHARS = sumCharacters(DISTINCT);

async function start() {
  const site = await createSite({ target_languages: [{ code: "de", engine: "deepl" }, { code: "fr", engine: "openai" }] });
  const c = client(site.key);
  expect((await c.put("/v1/units", unit("product:1", SEGMENTS))).status).toBe(200);
  const created = await c.post("/v1/jobs", { confirm: true });
  expect(created.status).toBe(202);
  expect(created.body.estimated_characters).toBe(2 * CHARS);
  return { site, c, jobId: created.body.id as number };
}

const isLedgerInsert = (sql: string) => /^insert into "usage_ledger"/i.test(sql);

describe("eviction", () => {
  it("an object evicted between alarms resumes where the last slice ended: each text translated once, exact counters", async () => {
    const engines = mockEngines();
    // callUpstream's per-attempt AbortSignal.timeout() timers are never cleared; a pending one
    // keeps evictDurableObject() waiting until it fires (30 s for DeepL, 120 s for the model).
    vi.spyOn(AbortSignal, "timeout").mockImplementation(() => new AbortController().signal);
    const { site, c, jobId } = await start();
    const stub = stubOf(site.siteId);
    const progress: number[] = [];
    for (let i = 0; i < 3; i++) {
      expect(await slice(site.siteId)).toBe(true);
      await evictDurableObject(stub);
      const mid = (await c.get(`/v1/jobs/${jobId}`)).body;
      expect(mid.status).toBe("running");
      progress.push(mid.done_segments);
    }
    expect(progress).toEqual([250, 500, 540]);
    // The rest runs on the alarm of a fresh instance.
    await evictDurableObject(stub);
    const job = await runToEnd(c, site.siteId, jobId);

    expect(job).toMatchObject({ status: "succeeded", done_segments: 2 * PER_LANGUAGE, failed_segments: 0, reused_segments: 80, errors: [] });
    expect([...translatedOnce(engines.deepl)].sort()).toEqual([...DISTINCT].sort());
    expect([...translatedOnce(engines.openai)].sort()).toEqual([...DISTINCT].sort());
    await expectConsistent(c, site.siteId, job, engines.deepl.acceptedCharacters + engines.openai.acceptedCharacters);
    expect(await languageCounts(c)).toMatchObject({ de: { review: PER_LANGUAGE, missing: 0 }, fr: { review: PER_LANGUAGE, missing: 0 } });
  });
});

describe("D1 failures", () => {
  it("D1 down while a slice is metered: the alarm throws, the slice is redone later and billed exactly once", async () => {
    let down = false;
    // D1 goes down during DeepL's second slice (calls 6–10), after its engine calls began.
    const engines = mockEngines({ deepl: (n) => void (n === 7 && (down = true)) });
    const { site, c, jobId } = await start();
    const db = flakyDb(env.DB, { down: () => down });

    await expect(alarm(site.siteId, { DB: db })).rejects.toThrow(/D1_ERROR|Failed query/);
    const callsBefore = engines.deepl.calls.length;
    expect(callsBefore).toBe(10);
    const mid = (await c.get(`/v1/jobs/${jobId}`)).body; // also re-arms the alarm
    expect(mid).toMatchObject({ status: "running" });
    const billedMid = (await ledger(site.siteId)).sum;
    expect(mid.characters).toBe(billedMid);

    // Still down: the next alarm fails before it calls the engine again.
    await expect(alarm(site.siteId, { DB: db })).rejects.toThrow(/D1_ERROR|Failed query/);
    expect(engines.deepl.calls.length).toBe(callsBefore);
    expect((await c.get(`/v1/jobs/${jobId}`)).body).toMatchObject({ done_segments: mid.done_segments, characters: mid.characters });

    down = false;
    const job = await runToEnd(c, site.siteId, jobId);
    expect(job).toMatchObject({ status: "succeeded", done_segments: 2 * PER_LANGUAGE, failed_segments: 0, errors: [] });
    // DeepL translated slice 2 twice (the first answer was lost with the failed alarm) …
    expect(engines.deepl.accepted).toHaveLength(15);
    expect(engines.deepl.accepted.slice(5, 10)).toEqual(engines.deepl.accepted.slice(10, 15));
    // … but every text is billed once, and delivered once.
    expect(new Set(engines.deepl.accepted.flat()).size).toBe(DISTINCT.length);
    translatedOnce(engines.openai);
    await expectConsistent(c, site.siteId, job, 2 * CHARS);
  });

  it("the ledger write commits but its answer is lost: the redone slice is not billed again", async () => {
    let lose = 0;
    const engines = mockEngines({ deepl: (n) => void (n === 7 && (lose = 1)) });
    const { site, c, jobId } = await start();
    const db = flakyDb(env.DB, { lose: (sql) => isLedgerInsert(sql) && lose-- > 0 });

    await expect(alarm(site.siteId, { DB: db })).rejects.toThrow(/D1_ERROR|Failed query/);
    const mid = (await c.get(`/v1/jobs/${jobId}`)).body;
    // The ledger already holds the slice the object did not persist.
    expect((await ledger(site.siteId)).sum).toBe(mid.characters + sumCharacters(engines.deepl.accepted.slice(5, 10).flat()));

    const job = await runToEnd(c, site.siteId, jobId);
    expect(job).toMatchObject({ status: "succeeded", done_segments: 2 * PER_LANGUAGE, failed_segments: 0 });
    expect(engines.deepl.accepted.slice(5, 10)).toEqual(engines.deepl.accepted.slice(10, 15));
    await expectConsistent(c, site.siteId, job, 2 * CHARS);
  });

  it("the ledger write commits but its answer is lost, and the slice shrinks before it is redone: the ledger bills only what was translated", async () => {
    let lose = 0;
    const engines = mockEngines({ deepl: (n) => void (n === 7 && (lose = 1)) });
    const { site, c, jobId } = await start();
    const db = flakyDb(env.DB, { lose: (sql) => isLedgerInsert(sql) && lose-- > 0 });
    await expect(alarm(site.siteId, { DB: db })).rejects.toThrow(/D1_ERROR|Failed query/);

    // Before the alarm is retried, the connector removes 100 segments of the lost slice.
    const kept = SEGMENTS.filter((_, i) => i < 250 || i >= 350);
    expect((await c.put("/v1/units", unit("product:1", kept))).body.removed).toBe(100);
    const job = await runToEnd(c, site.siteId, jobId);

    expect(job).toMatchObject({ status: "succeeded", failed_segments: 0 });
    const results = await allResults(c);
    expect(new Set(results.map((r) => r.id)).size).toBe(results.length);
    expect(job.done_segments).toBe(results.length);
    const translated = sumCharacters(new Set(engines.deepl.accepted.slice(10).flat().concat(engines.deepl.accepted.slice(0, 5).flat())));
    const delivered = translated + engines.openai.acceptedCharacters;
    expect(job.characters).toBe(delivered);
    // The customer is billed for what was translated and delivered, not for the lost attempt.
    expect((await ledger(site.siteId)).sum).toBe(job.characters);
  });

  it("D1 failing as the job finishes leaves no reservation behind (later estimates are not inflated)", async () => {
    let down = false;
    // de fails on quota: its characters stay reserved until the job finishes.
    mockEngines({ deepl: () => deeplError(456, "Quota exceeded") });
    const { site, c, jobId } = await start();
    const db = flakyDb(env.DB, {
      down: (sql) => down && /^delete from "reservations"/i.test(sql),
    });
    down = true;
    await expect(alarm(site.siteId, { DB: db })).rejects.toThrow(/D1_ERROR|Failed query/);
    down = false;
    const job = await runToEnd(c, site.siteId, jobId);
    expect(job).toMatchObject({ status: "succeeded", failed_segments: PER_LANGUAGE });
    // A retried alarm (the runtime retries one that threw) finds nothing left to do.
    expect(await alarm(site.siteId)).toBe(false);

    const estimate = (await c.post("/v1/jobs", { estimate_only: true })).body;
    expect(estimate.cost.reserved_characters).toBe(0);
    const rows = await env.DB.prepare("SELECT job_id, characters FROM reservations WHERE site_id = ?").bind(site.siteId).all();
    expect(rows.results).toEqual([]);
  });
});

describe("cancel while a slice is at the engine", () => {
  it("the in-flight slice is kept and billed consistently, and the cancelled job holds no reservation afterwards", async () => {
    let arrived!: () => void;
    const atEngine = new Promise<void>((resolve) => (arrived = resolve));
    let proceed!: () => void;
    const released = new Promise<void>((resolve) => (proceed = resolve));
    const engines = mockEngines();
    // DeepL's first call waits until the test has cancelled the job.
    engines.fetch.use(
      http.post(DEEPL_URL, async () => {
        if (engines.deepl.calls.length > 0) return undefined;
        arrived();
        await released;
        return undefined;
      }),
    );
    const { site, c, jobId } = await start();
    const running = alarm(site.siteId);
    await atEngine;
    const cancelled = await c.post(`/v1/jobs/${jobId}/cancel`);
    expect(cancelled.body).toMatchObject({ status: "cancelled" });
    proceed();
    await running;

    const job = (await c.get(`/v1/jobs/${jobId}`)).body;
    expect(job.status).toBe("cancelled");
    const results = await allResults(c);
    expect(results).toHaveLength(job.done_segments);
    expect((await ledger(site.siteId)).sum).toBe(job.characters);
    expect(job.characters).toBe(engines.deepl.acceptedCharacters + engines.openai.acceptedCharacters);
    // No job is queued or running: nothing may stay reserved.
    const rows = await env.DB.prepare("SELECT job_id, characters FROM reservations WHERE site_id = ?").bind(site.siteId).all();
    expect(rows.results).toEqual([]);
    expect((await c.post("/v1/jobs", { estimate_only: true })).body.cost.reserved_characters).toBe(0);
  });
});
