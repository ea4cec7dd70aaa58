// Billing equals what is stored (docs/decisions.md "Billing equals what is stored"; faults 1–4):
// for every way a job ends and every fault around a commit's transaction and its ledger row's
// write, the month's usage a job causes equals its `characters`. A commit queues its ledger row
// in its own transaction and the row reaches D1 after it (src/site/jobs/ledger.ts). Engines are
// injected; D1 faults come from flakyDb.
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { type Engine, EngineError } from "../../src/engines/types";
import { persist } from "../../src/site/jobs/commit";
import { cancelJob, unsettledJobs } from "../../src/site/jobs/jobs";
import { runAlarm } from "../../src/site/jobs/runner";
import type { SiteObject } from "../../src/site/object";
import { client, createSite, unit } from "../helpers/api";
import { fakeEngine } from "../helpers/fake-engine";
import { arm, flakyDb, keyed, ledger, siteWithPage, sumCharacters, texts } from "../helpers/faults";
import { allResults } from "../helpers/jobs";
import { inObject, stubOf } from "../helpers/site";

/** The fake engine, tagging each text with its source and target language. */
const taggingEngine = () => fakeEngine({ translation: (text, request) => `${request.sourceLanguage}>${request.targetLanguage}: ${text}` });

/** Alarms (with the injected engine) until the runner has nothing left to do. */
async function runAll(siteId: number, engine: Engine) {
  for (let i = 0; i < 20; i++) if ((await inObject(siteId, (deps) => runAlarm(deps, 60_000), { engineFor: () => engine })) === null) return;
  throw new Error("the runner did not finish");
}

const isLedgerInsert = (sql: string) => /^insert into "usage_ledger"/i.test(sql);

async function siteWithUnits(n: number) {
  const segments = keyed(texts(n, "Billing entry"));
  return { ...(await siteWithPage(["de"], segments)), segments };
}

const jobRows = async (siteId: number, jobId: number) => (await ledger(siteId)).rows.filter((r) => r.job_id === jobId);

describe("a job cancelled with a commit billed but not stored (fault 1)", () => {
  it("a commit whose transaction fails queues no ledger row: the ledger never bills it, and the month's usage equals the job's characters", async () => {
    const { site, c, segments } = await siteWithUnits(120);
    const jobId = (await c.post("/v1/jobs", { confirm: true })).body.id as number;
    const engine = taggingEngine();
    // Batch 1 commits; the transaction of the commit that holds batch 2 fails (the storage refuses its results).
    const failing = `en>de: ${segments[50].text}`;
    await inObject(site.siteId, async (deps) => {
      deps.store.run(`CREATE TRIGGER fail_commit BEFORE INSERT ON results WHEN NEW.text = '${failing}' BEGIN SELECT RAISE(ABORT, 'storage refused the commit'); END`);
    });
    expect(await inObject(site.siteId, (deps) => runAlarm(deps, 60_000), { engineFor: () => engine })).toBeGreaterThan(0);
    await inObject(site.siteId, async (deps) => void deps.store.run("DROP TRIGGER fail_commit"));
    // Only what is stored is billed, already while the job runs: the failed commit left no row, in D1 or waiting to go there.
    const mid = (await c.get(`/v1/jobs/${jobId}`)).body;
    const stored = await allResults(c);
    expect(stored.some((r) => r.text === failing)).toBe(false);
    expect(mid).toMatchObject({ status: "running", done_segments: stored.length });
    expect(mid.done_segments).toBeGreaterThanOrEqual(20); // the batches that ended in other commits (50, 50 and 20 texts)
    expect(mid.done_segments).toBeLessThanOrEqual(70);
    expect(mid.characters).toBe(sumCharacters(stored.map((r) => r.text.slice("en>de: ".length))));
    expect((await ledger(site.siteId)).sum).toBe(mid.characters);
    expect(await inObject(site.siteId, async (deps) => deps.store.all("SELECT * FROM ledger_outbox"))).toEqual([]);

    // Backing off, the job is cancelled; no alarm is pending when the cancel arrives.
    await runInDurableObject(stubOf(site.siteId), (_o: SiteObject, state) => state.storage.deleteAlarm());
    expect((await c.post(`/v1/jobs/${jobId}/cancel`)).body.status).toBe("cancelled");
    // The cancel asks for an alarm: the runner settles the job's billing.
    expect(await runInDurableObject(stubOf(site.siteId), (_o: SiteObject, state) => state.storage.getAlarm())).not.toBeNull();
    await runAll(site.siteId, engine);

    const job = (await c.get(`/v1/jobs/${jobId}`)).body;
    expect(job).toMatchObject({ status: "cancelled", done_segments: mid.done_segments, characters: mid.characters });
    expect((await ledger(site.siteId)).sum).toBe(job.characters);
    expect(await allResults(c)).toHaveLength(mid.done_segments);
    const reserved = await env.DB.prepare("SELECT job_id FROM reservations WHERE site_id = ?").bind(site.siteId).all();
    expect(reserved.results).toEqual([]);
  });

  it("a ledger row written ahead of a commit that never landed (as the runner did before its rows were queued) goes when the job is settled", async () => {
    const { site, c, segments } = await siteWithUnits(120);
    const jobId = (await c.post("/v1/jobs", { confirm: true })).body.id as number;
    const engine = taggingEngine();
    expect(await inObject(site.siteId, (deps) => runAlarm(deps, { budgetMs: 60_000, maxSlices: 1, sliceItems: 50 }), { engineFor: () => engine })).toBe(0);
    const mid = (await c.get(`/v1/jobs/${jobId}`)).body;
    expect(mid).toMatchObject({ status: "running", done_segments: 50 });
    // Row 2, for work that was never stored.
    await env.DB.prepare(
      "INSERT INTO usage_ledger (organization_id, site_id, job_id, slice, characters, month, created_at) SELECT organization_id, site_id, job_id, 2, 999, month, created_at FROM usage_ledger WHERE site_id = ? AND job_id = ?",
    )
      .bind(site.siteId, jobId)
      .run();
    expect((await ledger(site.siteId)).sum).toBe(mid.characters + 999);

    expect((await c.post(`/v1/jobs/${jobId}/cancel`)).body.status).toBe("cancelled");
    await runAll(site.siteId, engine);
    const job = (await c.get(`/v1/jobs/${jobId}`)).body;
    expect(job).toMatchObject({ status: "cancelled", done_segments: 50, characters: sumCharacters(segments.slice(0, 50).map((s) => s.text)) });
    expect(await jobRows(site.siteId, jobId)).toEqual([{ job_id: jobId, slice: 1, characters: job.characters }]);
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
    const segs = keyed(same);
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
  it("is not stored, queues no ledger row and is not counted as landed: its items are redone, and the ledger keeps what the job kept", async () => {
    const { site, c, segments } = await siteWithUnits(120);
    const jobId = (await c.post("/v1/jobs", { confirm: true })).body.id as number;
    const engine = taggingEngine();
    // Right after the committer read the job's counter for its first commit, another attempt commits number 1.
    let raced = false;
    const delay = await inObject(
      site.siteId,
      (deps) => {
        const real = deps.store;
        const racing = new Proxy(real, {
          get(target, prop) {
            if (prop === "one")
              return (query: string, ...args: unknown[]) => {
                const row = target.one(query, ...(args as []));
                if (!raced && query.startsWith("SELECT slices FROM jobs WHERE id = ? AND status = 'running'")) {
                  raced = true;
                  expect(persist(target, deps.settings, jobId, 1, [])).toBe(true);
                }
                return row;
              };
            const value = (target as any)[prop];
            return typeof value === "function" ? value.bind(target) : value;
          },
        });
        return runAlarm({ ...deps, store: racing }, 60_000);
      },
      { engineFor: () => engine },
    );
    expect(raced).toBe(true);
    // The attempt that lost backs off (not the job's fault) instead of going on as if its commit had landed.
    expect(delay).toBeGreaterThan(0);
    const mid = (await c.get(`/v1/jobs/${jobId}`)).body;
    expect(mid).toMatchObject({ status: "running", done_segments: 0, characters: 0 });
    // Only the racing commit's row is queued (it stored nothing, so it bills nothing); the lost commit queued none.
    expect(await inObject(site.siteId, async (deps) => deps.store.all("SELECT job_id, n, characters FROM ledger_outbox"))).toEqual([{ job_id: jobId, n: 1, characters: 0 }]);
    expect((await ledger(site.siteId)).sum).toBe(0);

    await runAll(site.siteId, engine);
    const job = (await c.get(`/v1/jobs/${jobId}`)).body;
    const chars = sumCharacters(segments.map((s) => s.text));
    expect(job).toMatchObject({ status: "succeeded", done_segments: 120, failed_segments: 0, characters: chars });
    expect(await allResults(c)).toHaveLength(120);
    expect((await ledger(site.siteId)).sum).toBe(chars);
  });
});

describe("a cancel that arrives while the job's ledger rows are written (cancel wins)", () => {
  it("what was stored stays billed, nothing is stored after it, and the job is settled in the same invocation once its commits have landed", async () => {
    const { site, c } = await siteWithUnits(120);
    const jobId = (await c.post("/v1/jobs", { confirm: true })).body.id as number;
    // Batches 1 and 2 (50 texts each) are answered at once; batch 3 waits at the engine until the job is cancelled, which
    // happens while the first ledger rows are written to D1.
    let cancelled: () => void = () => {};
    const cancel = new Promise<void>((resolve) => {
      cancelled = resolve;
    });
    const engine = fakeEngine({
      translation: (text, request) => `${request.sourceLanguage}>${request.targetLanguage}: ${text}`,
      during: (_request, n) => (n === 3 ? cancel : undefined),
    });
    let inserts = 0;
    const answer = await inObject(
      site.siteId,
      (deps) => {
        const cancelling = flakyDb(env.DB, {
          lose: (sql) => {
            if (isLedgerInsert(sql) && ++inserts === 1) {
              expect(cancelJob(deps.store, jobId).status).toBe("cancelled");
              cancelled();
            }
            return false;
          },
        });
        return runAlarm({ ...deps, env: { ...deps.env, DB: cancelling } }, 60_000);
      },
      { engineFor: () => engine },
    );
    expect(inserts).toBe(1);
    // The invocation's commits have landed when its slices end: the runner settles the cancelled job there and then (meta
    // unsettled_jobs emptied) and has nothing left to do. (A cancel it cannot settle before its budget ends keeps the need:
    // moreWork.)
    expect(answer).toBeNull();
    expect(await runInDurableObject(stubOf(site.siteId), async (o: SiteObject) => unsettledJobs(o.store))).toEqual([]);

    await runAll(site.siteId, engine);
    expect(engine.requests).toHaveLength(3);
    const job = (await c.get(`/v1/jobs/${jobId}`)).body;
    // Batches 1 and 2 were stored before the cancel and stay billed; batch 3, answered after it, is neither stored nor billed.
    expect(job).toMatchObject({ status: "cancelled", done_segments: 100 });
    const results = await allResults(c);
    expect(results).toHaveLength(100);
    expect(job.characters).toBe(sumCharacters(results.map((r) => r.text.slice("en>de: ".length))));
    expect((await ledger(site.siteId)).sum).toBe(job.characters);
    expect(await inObject(site.siteId, async (deps) => deps.store.all("SELECT * FROM ledger_outbox"))).toEqual([]);
    expect((await env.DB.prepare("SELECT job_id FROM reservations WHERE site_id = ?").bind(site.siteId).all()).results).toEqual([]);
  });
});

describe("a job that reaches its estimate (budget.ts: texts changed since its creation would bill more)", () => {
  /** 120 segments, 60 texts each twice (estimated once each); then 30 second copies change to texts of their own, no longer. */
  async function siteWithBrokenRepeats() {
    const base = texts(60, "Budget entry");
    const segments = keyed([...base, ...base]);
    const { site, c } = await siteWithPage(["de"], segments);
    const created = (await c.post("/v1/jobs", { confirm: true })).body;
    expect(created).toMatchObject({ estimated_segments: 120, estimated_characters: sumCharacters(base) });
    const changed = segments.map((s, i) => (i >= 60 && i < 90 ? { ...s, text: s.text.replace("Budget entry", "Budget other") } : s));
    expect((await c.put("/v1/units", unit("page:1", changed))).status).toBe(200);
    return { site, c, created, changed };
  }

  it("cancelled midway: what it stored is billed, never more than its estimate, and nothing after the cancel", async () => {
    const { site, c, created } = await siteWithBrokenRepeats();
    const engine = taggingEngine();
    // Slices of 40 items: the first two send the 60 texts of the first copies (the estimate's worth); the 20 changed
    // texts in the second do not fit and are left to the next job.
    expect(await inObject(site.siteId, (deps) => runAlarm(deps, { budgetMs: 60_000, maxSlices: 2, sliceItems: 40 }), { engineFor: () => engine })).toBe(0);
    const mid = (await c.get(`/v1/jobs/${created.id}`)).body;
    expect(mid).toMatchObject({ status: "running", done_segments: 60, characters: created.estimated_characters });
    expect(engine.texts).toHaveLength(60);
    expect((await c.post(`/v1/jobs/${created.id}/cancel`)).body.status).toBe("cancelled");
    await runAll(site.siteId, engine);
    const job = (await c.get(`/v1/jobs/${created.id}`)).body;
    expect(job).toMatchObject({ status: "cancelled", done_segments: 60, characters: mid.characters });
    expect(engine.texts).toHaveLength(60);
    const results = await allResults(c);
    expect(results).toHaveLength(60);
    expect(job.characters).toBe(sumCharacters(results.map((r) => r.text.slice("en>de: ".length))));
    expect((await ledger(site.siteId)).sum).toBe(job.characters);
    expect((await env.DB.prepare("SELECT job_id FROM reservations WHERE site_id = ?").bind(site.siteId).all()).results).toEqual([]);
  });

  it("to the end: the texts beyond its estimate are left to the next job, which bills them; nothing is billed twice", async () => {
    const { site, c, created, changed } = await siteWithBrokenRepeats();
    const engine = taggingEngine();
    await runAll(site.siteId, engine);
    const job = (await c.get(`/v1/jobs/${created.id}`)).body;
    // The 60 first copies and the 30 repeats that stayed fill the estimate; the 30 changed texts do not fit.
    expect(job).toMatchObject({ status: "succeeded", done_segments: 90, failed_segments: 0, characters: created.estimated_characters, errors: [] });
    expect((await ledger(site.siteId)).sum).toBe(job.characters);
    const next = (await c.post("/v1/jobs", { confirm: true })).body;
    expect(next).toMatchObject({ estimated_segments: 30, estimated_characters: sumCharacters(changed.slice(60, 90).map((s) => s.text)) });
    await runAll(site.siteId, engine);
    const second = (await c.get(`/v1/jobs/${next.id}`)).body;
    expect(second).toMatchObject({ status: "succeeded", done_segments: 30, characters: next.estimated_characters });
    expect(await allResults(c)).toHaveLength(120);
    expect((await ledger(site.siteId)).sum).toBe(job.characters + second.characters);
  });

  it("a batch the engine refuses bills nothing and gives back what it took: a later text fits", async () => {
    const { site, c } = await siteWithPage(
      ["de"],
      [
        { key: "a", text: "Hello" },
        { key: "b", text: "Hello" },
        { key: "c", text: "World" },
      ],
    );
    const created = (await c.post("/v1/jobs", { confirm: true })).body;
    expect(created.estimated_characters).toBe(10);
    // b no longer repeats a: the job's texts would bill 15.
    expect(
      (
        await c.put(
          "/v1/units",
          unit("page:1", [
            { key: "a", text: "Hello" },
            { key: "b", text: "Bye.." },
            { key: "c", text: "World" },
          ]),
        )
      ).status,
    ).toBe(200);
    // The first request (a's text) is refused; one item a slice, all in one invocation (which holds the budget).
    const engine = fakeEngine({
      during: (_request, n) => {
        if (n === 1) throw new EngineError("rejected", "refused for the test");
      },
    });
    expect(await inObject(site.siteId, (deps) => runAlarm(deps, { budgetMs: 60_000, sliceItems: 1 }), { engineFor: () => engine })).toBeNull();
    const job = (await c.get(`/v1/jobs/${created.id}`)).body;
    expect(job).toMatchObject({ status: "succeeded", done_segments: 2, failed_segments: 1, characters: 10 });
    expect(engine.requests).toHaveLength(3);
    expect((await ledger(site.siteId)).sum).toBe(10);
  });
});
