// Platform faults during a job: the site object evicted between alarms, D1 failing while the
// job's ledger rows are written (the work stays stored, its rows wait in the object and the
// alarm backs off), a ledger write whose answer is lost, and D1 failing as the job finishes. Engines are DeepL (de) and an OpenAI-compatible
// model (fr), mocked at the HTTP level.
import { evictDurableObject, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { http } from "msw";
import { describe, expect, it, vi } from "vitest";
import type { SiteObject } from "../../src/site/object";
import { unit } from "../helpers/api";
import {
  alarm,
  DEEPL_URL,
  deeplError,
  expectConsistent,
  flakyDb,
  keyed,
  languageCounts,
  ledger,
  mockEngines,
  runToEnd,
  slice,
  startJob,
  sumCharacters,
  texts,
  translatedOnce,
} from "../helpers/faults";
import { allResults } from "../helpers/jobs";
import { stubOf } from "../helpers/site";

const DISTINCT = texts(500, "Durable entry");
const SEGMENTS = keyed([...DISTINCT, ...DISTINCT.slice(0, 40)], 3);
const PER_LANGUAGE = SEGMENTS.length;
const CHARS = sumCharacters(DISTINCT);

/** The job over SEGMENTS, confirmed, with its estimate checked. */
const start = () => startJob(SEGMENTS, { estimated_characters: 2 * CHARS });

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

/** The alarm the object has set (ms), and the runner's fault record. */
async function armed(siteId: number) {
  return runInDurableObject(stubOf(siteId), async (o: SiteObject, state) => ({
    alarm: await state.storage.getAlarm(),
    faults: o.store.getMeta<{ infrastructure: number; internal: number }>("runner_faults") ?? null,
  }));
}

describe("D1 failures", () => {
  it("D1 down while the job's ledger rows are written: the alarm backs off and re-arms itself; the work stays stored, and is billed exactly once when D1 is back", async () => {
    let down = false;
    // D1 goes down during DeepL's second slice, after its engine calls began.
    const engines = mockEngines({ deepl: (n) => void (n === 7 && (down = true)) });
    const { site, c, jobId } = await start();
    const db = flakyDb(env.DB, { down: () => down });

    const before = Date.now();
    expect(await alarm(site.siteId, { DB: db })).toBe(true); // the alarm does not throw
    const first = await armed(site.siteId);
    expect(first.faults).toMatchObject({ infrastructure: 1, internal: 0 });
    // Re-armed after a back-off (tests add JOB_ALARM_DELAY_MS, an hour, to every alarm).
    expect(first.alarm).toBeGreaterThanOrEqual(before + 3_600_000 + 1_600);
    const callsBefore = engines.deepl.calls.length;
    const mid = await runInDurableObject(stubOf(site.siteId), (o: SiteObject) => ({
      job: o.store.one<any>("SELECT status, characters, done_segments FROM jobs WHERE id = ?", jobId)!,
      queued: o.store.one<{ n: number }>("SELECT coalesce(sum(characters), 0) AS n FROM ledger_outbox")!.n,
    }));
    expect(mid.job).toMatchObject({ status: "running" });
    // What was stored is billed: in D1, or in the object's outbox until D1 takes it.
    expect(mid.queued).toBeGreaterThan(0);
    expect((await ledger(site.siteId)).sum + mid.queued).toBe(mid.job.characters);

    // Still down: the next alarm fails before it calls the engine again, and backs off longer.
    expect(await alarm(site.siteId, { DB: db })).toBe(true);
    expect(engines.deepl.calls.length).toBe(callsBefore);
    expect((await armed(site.siteId)).faults).toMatchObject({ infrastructure: 2, internal: 0 });
    expect((await c.get(`/v1/jobs/${jobId}`)).body).toMatchObject({ status: "running", done_segments: mid.job.done_segments, characters: mid.job.characters });

    down = false;
    const job = await runToEnd(c, site.siteId, jobId);
    expect(job).toMatchObject({ status: "succeeded", done_segments: 2 * PER_LANGUAGE, failed_segments: 0, errors: [] });
    // Nothing stored was lost, so nothing was asked for again: every text translated, billed and delivered once.
    expect(engines.deepl.accepted.flat().length).toBe(DISTINCT.length);
    await expectConsistent(c, site.siteId, job, 2 * CHARS);
    expect((await armed(site.siteId)).faults).toBeNull();
  });

  it("a D1 outage of a minute and more delays the job but never fails it; no client request is needed to go on", async () => {
    let down = true;
    mockEngines();
    const { site, c, jobId } = await start();
    const db = flakyDb(env.DB, { down: () => down });
    let waited = 0;
    for (let i = 1; i <= 8; i++) {
      const now = Date.now();
      expect(await alarm(site.siteId, { DB: db })).toBe(true);
      const { alarm: at, faults } = await armed(site.siteId);
      // Infrastructure faults never count towards abandoning the job (that takes 5 internal errors).
      expect(faults).toMatchObject({ infrastructure: i, internal: 0 });
      waited += at! - now - 3_600_000;
    }
    expect(waited).toBeGreaterThan(60_000); // the back-offs add up to more than a minute
    const mid = await runInDurableObject(stubOf(site.siteId), (o: SiteObject) => o.store.one<any>("SELECT status, errors FROM jobs WHERE id = ?", jobId)!);
    expect(mid).toMatchObject({ status: "queued", errors: "[]" }); // D1 was needed to check its cost

    down = false;
    // Only alarms from here on: the object keeps its own alarm set.
    let job: any;
    for (let i = 0; i < 20; i++) {
      const ran = await alarm(site.siteId);
      job = await runInDurableObject(stubOf(site.siteId), (o: SiteObject) => o.store.one<any>("SELECT status FROM jobs WHERE id = ?", jobId)!);
      if (job.status !== "running") break;
      expect(ran).toBe(true);
    }
    expect(job.status).toBe("succeeded");
    await expectConsistent(c, site.siteId, (await c.get(`/v1/jobs/${jobId}`)).body, 2 * CHARS);
  });

  it("the ledger write commits but its answer is lost: the rows are written again, nothing is redone or billed twice", async () => {
    let lose = false;
    let lost = 0;
    const engines = mockEngines({ deepl: (n) => void (n === 7 && (lose = true)) });
    const { site, c, jobId } = await start();
    const db = flakyDb(env.DB, { lose: (sql) => isLedgerInsert(sql) && lose && !(lose = false) && ++lost > 0 });

    // The write that lost its answer stops the invocation's new slices; its end writes the rows again, and D1 takes them.
    expect(await alarm(site.siteId, { DB: db })).toBe(true);
    expect(lost).toBe(1);
    expect((await armed(site.siteId)).faults).toBeNull();
    const mid = (await c.get(`/v1/jobs/${jobId}`)).body;
    expect(mid.characters).toBeGreaterThan(0);
    expect((await ledger(site.siteId)).sum).toBe(mid.characters);

    const job = await runToEnd(c, site.siteId, jobId);
    expect(job).toMatchObject({ status: "succeeded", done_segments: 2 * PER_LANGUAGE, failed_segments: 0 });
    expect(engines.deepl.accepted.flat().length).toBe(DISTINCT.length);
    await expectConsistent(c, site.siteId, job, 2 * CHARS);
  });

  it("the ledger write commits but its answer is lost, and the scope shrinks before the job goes on: the ledger bills only what was kept", async () => {
    let lose = 0;
    const engines = mockEngines({ deepl: (n) => void (n === 7 && (lose = 1)) });
    const { site, c, jobId } = await start();
    const db = flakyDb(env.DB, { lose: (sql) => isLedgerInsert(sql) && lose-- > 0 });
    expect(await alarm(site.siteId, { DB: db })).toBe(true);

    // Before the alarm runs again, the connector removes 100 segments of slice 2.
    const kept = SEGMENTS.filter((_, i) => i < 250 || i >= 350);
    expect((await c.put("/v1/units", unit("product:1", kept))).body.removed).toBe(100);
    const job = await runToEnd(c, site.siteId, jobId);

    expect(job).toMatchObject({ status: "succeeded", failed_segments: 0 });
    const results = await allResults(c);
    expect(new Set(results.map((r) => r.id)).size).toBe(results.length);
    // Work committed before the removal counts as done (its results are no longer listed).
    expect(job.done_segments).toBeGreaterThanOrEqual(results.length);
    // Billed: at least what is delivered, at most what the engines translated; nothing twice.
    const delivered = (language: string) => sumCharacters(new Set(results.filter((r) => r.language === language).map((r) => SEGMENTS.find((s) => s.key === r.key)!.text)));
    expect(job.characters).toBeGreaterThanOrEqual(delivered("de") + delivered("fr"));
    expect(job.characters).toBeLessThanOrEqual(engines.deepl.acceptedCharacters + engines.openai.acceptedCharacters);
    expect(job.characters).toBeLessThanOrEqual(2 * CHARS);
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
    expect(await alarm(site.siteId, { DB: db })).toBe(true);
    expect((await armed(site.siteId)).faults).toMatchObject({ infrastructure: 1 });
    down = false;
    const job = await runToEnd(c, site.siteId, jobId);
    expect(job).toMatchObject({ status: "succeeded", failed_segments: PER_LANGUAGE });
    // A later alarm finds nothing left to do and sets none.
    expect(await alarm(site.siteId)).toBe(false);

    const estimate = (await c.post("/v1/jobs", { estimate_only: true })).body;
    expect(estimate.cost.reserved_characters).toBe(0);
    const rows = await env.DB.prepare("SELECT job_id, characters FROM reservations WHERE site_id = ?").bind(site.siteId).all();
    expect(rows.results).toEqual([]);
  });
});

describe("cancel while a slice is at the engine", () => {
  it("cancel wins: the batch at the engine is neither stored nor billed, no further request goes out, and the cancelled job holds no reservation afterwards", async () => {
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
    // DeepL's batch was at the engine when the job was cancelled: its answer is dropped, and no other DeepL request followed.
    expect(engines.deepl.calls).toHaveLength(1);
    expect(results.filter((r: any) => r.language === "de")).toEqual([]);
    // What is kept is what the model answered before the cancel, billed exactly.
    expect(job.characters).toBeLessThanOrEqual(engines.openai.acceptedCharacters);
    expect(job.characters).toBe(sumCharacters(new Set(results.map((r: any) => SEGMENTS.find((s) => r.text === `[fr] ${s.text}`)!.text))));
    // No job is queued or running: nothing may stay reserved.
    const rows = await env.DB.prepare("SELECT job_id, characters FROM reservations WHERE site_id = ?").bind(site.siteId).all();
    expect(rows.results).toEqual([]);
    expect((await c.post("/v1/jobs", { estimate_only: true })).body.cost.reserved_characters).toBe(0);
  });
});
