// Billing equals what is stored (DESIGN.md "Jobs against real engines"; issue 19, faults 1–4):
// for every way a job ends and every fault between a commit's ledger write and its transaction,
// the month's usage a job causes equals its `characters`. Engines are injected; D1 faults come
// from flakyDb.
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { SiteSettings } from "../../src/control/sites";
import type { Engine } from "../../src/engines/types";
import { persist } from "../../src/site/commit";
import { cancelJob, unsettledJobs } from "../../src/site/jobs";
import type { SiteObject } from "../../src/site/object";
import { type RunnerDeps, runAlarm } from "../../src/site/runner";
import { client, createSite, unit } from "../helpers/api";
import { fakeEngine } from "../helpers/fake-engine";
import { arm, flakyDb, ledger, stubOf, sumCharacters, texts } from "../helpers/faults";
import { allResults } from "../helpers/jobs";

/** The fake engine, tagging each text with its source and target language. */
const taggingEngine = () => fakeEngine({ translation: (text, request) => `${request.sourceLanguage}>${request.targetLanguage}: ${text}` });

/** Runs `fn` inside the site object with runner deps built from its own state. */
function inObject<T>(siteId: number, fn: (deps: RunnerDeps, o: SiteObject) => Promise<T>, extra: Omit<Partial<RunnerDeps>, "env"> & { env?: Partial<Env> } = {}) {
  return runInDurableObject(stubOf(siteId), async (o: SiteObject) => {
    const self = o as unknown as { env: Env };
    const deps: RunnerDeps = { store: o.store, settings: o.store.getMeta<SiteSettings>("settings")!, ...extra, env: { ...self.env, DB: env.DB, ...extra.env } };
    return fn(deps, o);
  });
}

/** Alarms (with the injected engine) until the runner has nothing left to do. */
async function runAll(siteId: number, engine: Engine) {
  for (let i = 0; i < 20; i++) if ((await inObject(siteId, (deps) => runAlarm(deps, 60_000), { engineFor: () => engine })) === null) return;
  throw new Error("the runner did not finish");
}

const isLedgerInsert = (sql: string) => /^insert into "usage_ledger"/i.test(sql);

async function siteWithUnits(n: number) {
  const site = await createSite({ target_languages: [{ code: "de" }] });
  const c = client(site.key);
  const segments = texts(n, "Billing entry").map((text, i) => ({ key: `s${String(i).padStart(4, "0")}`, text }));
  expect((await c.put("/v1/units", unit("page:1", segments))).status).toBe(200);
  return { site, c, segments };
}

const jobRows = async (siteId: number, jobId: number) => (await ledger(siteId)).rows.filter((r) => r.job_id === jobId);

describe("a job cancelled with a commit metered but not stored (fault 1)", () => {
  it("keeps no ledger row for that commit: the month's usage equals the job's characters", async () => {
    const { site, c, segments } = await siteWithUnits(120);
    const jobId = (await c.post("/v1/jobs", { confirm: true })).body.id as number;
    const engine = taggingEngine();
    // Batch 1 commits; batch 2's ledger row lands in D1 but its answer is lost, so its transaction never runs.
    let inserts = 0;
    const lossy = flakyDb(env.DB, { lose: (sql) => isLedgerInsert(sql) && ++inserts === 2 });
    expect(await inObject(site.siteId, (deps) => runAlarm(deps, 60_000), { engineFor: () => engine, env: { DB: lossy } })).toBeGreaterThan(0);
    expect(await jobRows(site.siteId, jobId)).toHaveLength(2);

    // Backing off, the job is cancelled; no alarm is pending when the cancel arrives.
    await runInDurableObject(stubOf(site.siteId), (_o: SiteObject, state) => state.storage.deleteAlarm());
    expect((await c.post(`/v1/jobs/${jobId}/cancel`)).body.status).toBe("cancelled");
    // The cancel asks for an alarm: the runner settles the job's billing.
    expect(await runInDurableObject(stubOf(site.siteId), (_o: SiteObject, state) => state.storage.getAlarm())).not.toBeNull();
    await runAll(site.siteId, engine);

    const job = (await c.get(`/v1/jobs/${jobId}`)).body;
    expect(job).toMatchObject({ status: "cancelled", done_segments: 50, characters: sumCharacters(segments.slice(0, 50).map((s) => s.text)) });
    expect(await jobRows(site.siteId, jobId)).toEqual([{ job_id: jobId, slice: 1, characters: job.characters }]);
    expect((await ledger(site.siteId)).sum).toBe(job.characters);
    expect(await allResults(c)).toHaveLength(50);
    const reserved = await env.DB.prepare("SELECT job_id FROM reservations WHERE site_id = ?").bind(site.siteId).all();
    expect(reserved.results).toEqual([]);
  });
});

describe("the reservation write failing when a job is created (fault 2)", () => {
  it("leaves no queued job behind, and the retry creates the only job: a forced job bills once", async () => {
    const { site, c, segments } = await siteWithUnits(60);
    await arm(site.siteId, { DB: flakyDb(env.DB, { down: (sql) => /^insert into "reservations"/i.test(sql) }) });
    const failed = await c.post("/v1/jobs", { confirm: true, force: true });
    expect(failed.status).toBe(500);
    expect((await c.get("/v1/jobs")).body).toEqual([]);

    await arm(site.siteId, { DB: env.DB });
    const created = await c.post("/v1/jobs", { confirm: true, force: true });
    expect(created.status).toBe(202);
    const engine = taggingEngine();
    await runAll(site.siteId, engine);

    const jobs = (await c.get("/v1/jobs")).body;
    expect(jobs.map((j: any) => [j.id, j.status])).toEqual([[created.body.id, "succeeded"]]);
    const chars = sumCharacters(segments.map((s) => s.text));
    expect(jobs[0].characters).toBe(chars);
    expect((await ledger(site.siteId)).sum).toBe(chars);
  });
});

describe("the same text in two source languages (fault 3)", () => {
  it("is two translations, each delivered for its own units and billed, across slices; the estimate counts both", async () => {
    const site = await createSite({ target_languages: [{ code: "de" }] });
    const c = client(site.key);
    // 250 texts (one slice) in the site's source language, then the same texts in French: the second slice.
    const same = texts(250, "Bonjour");
    const segs = same.map((text, i) => ({ key: `s${String(i).padStart(4, "0")}`, text }));
    expect((await c.put("/v1/units", unit("page:en", segs))).status).toBe(200);
    expect((await c.put("/v1/units", unit("page:fr", segs, { source_language: "fr" }))).status).toBe(200);
    const chars = sumCharacters(same);

    const estimate = (await c.post("/v1/jobs", { estimate_only: true })).body;
    expect(estimate).toMatchObject({ estimated_segments: 500, estimated_characters: 2 * chars });
    const jobId = (await c.post("/v1/jobs", { confirm: true })).body.id as number;
    const engine = taggingEngine();
    await runAll(site.siteId, engine);

    const job = (await c.get(`/v1/jobs/${jobId}`)).body;
    expect(job).toMatchObject({ status: "succeeded", done_segments: 500, reused_segments: 0, characters: 2 * chars });
    const sentFrom = (source: string) =>
      engine.requests
        .filter((r) => r.sourceLanguage === source)
        .flatMap((r) => r.segments.map((s) => s.text))
        .sort();
    expect(sentFrom("en")).toEqual([...same].sort());
    expect(sentFrom("fr")).toEqual([...same].sort());
    const results = await allResults(c);
    expect(results).toHaveLength(500);
    for (const r of results) expect(r.text).toBe(`${r.unit === "page:fr" ? "fr" : "en"}>de: ${segs.find((s) => s.key === r.key)!.text}`);
    expect((await ledger(site.siteId)).sum).toBe(job.characters);
  });
});

describe("a commit another attempt committed first (fault 4)", () => {
  it("is not counted as landed: its items are redone, and the ledger keeps what the job kept", async () => {
    const { site, c, segments } = await siteWithUnits(120);
    const jobId = (await c.post("/v1/jobs", { confirm: true })).body.id as number;
    const engine = taggingEngine();
    // While the first commit is metered, another attempt commits number 1 (its ledger row written before this one's).
    let raced = false;
    const delay = await inObject(
      site.siteId,
      (deps) => {
        const racing = flakyDb(env.DB, {
          lose: (sql) => {
            if (isLedgerInsert(sql) && !raced) {
              raced = true;
              expect(persist(deps.store, deps.settings, jobId, 1, [])).toBe(true);
            }
            return false;
          },
        });
        return runAlarm({ ...deps, env: { ...deps.env, DB: racing } }, 60_000);
      },
      { engineFor: () => engine },
    );
    expect(raced).toBe(true);
    // The attempt that lost backs off (not the job's fault) instead of going on as if its commit had landed.
    expect(delay).toBeGreaterThan(0);
    const mid = (await c.get(`/v1/jobs/${jobId}`)).body;
    expect(mid).toMatchObject({ status: "running", done_segments: 0, characters: 0 });
    expect((await ledger(site.siteId)).sum).toBe(0);

    await runAll(site.siteId, engine);
    const job = (await c.get(`/v1/jobs/${jobId}`)).body;
    const chars = sumCharacters(segments.map((s) => s.text));
    expect(job).toMatchObject({ status: "succeeded", done_segments: 120, failed_segments: 0, characters: chars });
    expect(await allResults(c)).toHaveLength(120);
    expect((await ledger(site.siteId)).sum).toBe(chars);
  });
});

describe("a cancel that arrives while a commit's ledger row is written (cancel wins)", () => {
  it("the commit is not stored, and its ledger row goes with the runner's one settle step, in the same invocation once its commits have landed", async () => {
    const { site, c, segments } = await siteWithUnits(120);
    const jobId = (await c.post("/v1/jobs", { confirm: true })).body.id as number;
    const engine = taggingEngine();
    // Commit 1 lands; the job is cancelled once commit 2's ledger row has been written, before its transaction.
    let inserts = 0;
    const answer = await inObject(
      site.siteId,
      (deps) => {
        const cancelling = flakyDb(env.DB, {
          lose: (sql) => {
            if (isLedgerInsert(sql) && ++inserts === 2) expect(cancelJob(deps.store, jobId).status).toBe("cancelled");
            return false;
          },
        });
        return runAlarm({ ...deps, env: { ...deps.env, DB: cancelling } }, 60_000);
      },
      { engineFor: () => engine },
    );
    expect(inserts).toBe(2);
    // The invocation's commits have landed when its slices end: the runner settles the cancelled job there and then (meta
    // unsettled_jobs emptied) and has nothing left to do. (A cancel it cannot settle before its budget ends keeps the need:
    // moreWork.)
    expect(answer).toBeNull();
    expect(await runInDurableObject(stubOf(site.siteId), async (o: SiteObject) => unsettledJobs(o.store))).toEqual([]);

    await runAll(site.siteId, engine);
    expect(await runInDurableObject(stubOf(site.siteId), async (o: SiteObject) => unsettledJobs(o.store))).toEqual([]);
    const job = (await c.get(`/v1/jobs/${jobId}`)).body;
    // Only commit 1 is stored and billed: commit 2's row, written before the cancel, was removed by settleJob.
    expect(job).toMatchObject({ status: "cancelled", done_segments: 50, characters: sumCharacters(segments.slice(0, 50).map((s) => s.text)) });
    expect(await jobRows(site.siteId, jobId)).toEqual([{ job_id: jobId, slice: 1, characters: job.characters }]);
    expect((await ledger(site.siteId)).sum).toBe(job.characters);
    expect(await allResults(c)).toHaveLength(50);
    expect((await env.DB.prepare("SELECT job_id FROM reservations WHERE site_id = ?").bind(site.siteId).all()).results).toEqual([]);
  });
});
