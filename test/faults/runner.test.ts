// The runner's own rules, through the site object with injected engines: concurrency per
// engine shared across languages, the deadline checked between batches, internal errors
// abandoning a job (and removing the ledger rows of commits that never landed).
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { Engine } from "../../src/engines/types";
import { COMMIT_ITEMS } from "../../src/site/jobs/committer";
import { MAX_INTERNAL_FAILURES, type RunnerDeps, runAlarm, runJobs } from "../../src/site/jobs/runner";
import type { SiteObject } from "../../src/site/object";
import { client, createSite, unit } from "../helpers/api";
import { fakeEngine } from "../helpers/fake-engine";
import { flakyDb, keyed, ledger, siteWithPage, sumCharacters, texts } from "../helpers/faults";
import { allResults } from "../helpers/jobs";
import { inObject, stubOf } from "../helpers/site";

/** The fake engine, waiting `delayMs` per call (a macrotask even at 0) and recording how many calls overlap. */
function recordingEngine(delayMs = 0) {
  const stats = { inFlight: 0, maxInFlight: 0 };
  const engine = fakeEngine({
    during: async () => {
      stats.inFlight++;
      stats.maxInFlight = Math.max(stats.maxInFlight, stats.inFlight);
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      stats.inFlight--;
    },
  });
  return { engine, stats };
}

async function siteWithJob(languages: string[], n: number) {
  const segments = keyed(texts(n, "Runner entry"));
  const { site, c } = await siteWithPage(languages, segments);
  const created = await c.post("/v1/jobs", { confirm: true });
  expect(created.status).toBe(202);
  return { site, c, jobId: created.body.id as number, segments };
}

describe("concurrency", () => {
  it("engine requests run side by side up to ENGINE_CONCURRENCY_<ENGINE>, across a slice's batches and the job's languages", async () => {
    const { site, c, jobId } = await siteWithJob(["de", "fr", "es"], 300);
    const { engine, stats } = recordingEngine(20);
    const more = await inObject(site.siteId, (deps) => runJobs(deps, 60_000), { engineFor: () => engine, env: { ENGINE_CONCURRENCY_PSEUDO: "5" } as unknown as Env });
    expect(more).toBe(false);
    // 3 languages × 300 texts in batches of 50: 18 requests, never more than 5 at once, and more than one language's worth at once.
    expect(engine.requests.length).toBe(18);
    expect(stats.maxInFlight).toBe(5);
    const job = (await c.get(`/v1/jobs/${jobId}`)).body;
    expect(job).toMatchObject({ status: "succeeded", done_segments: 900, failed_segments: 0 });
    expect(await allResults(c)).toHaveLength(900);
  });

  it("without a var, the registry's default applies (pseudo: 8)", async () => {
    const { site } = await siteWithJob(["de", "fr", "es", "it"], 400);
    const { engine, stats } = recordingEngine(20);
    await inObject(site.siteId, (deps) => runJobs(deps, 60_000), { engineFor: () => engine });
    expect(stats.maxInFlight).toBe(8);
  });
});

/** D1 whose usage-ledger writes take `delayMs` more, logged with their start and end. */
const slowLedger = (delayMs: number, log: { start: number; end: number }[]) =>
  flakyDb(env.DB, { slow: { matches: (sql) => /^insert into "usage_ledger"/i.test(sql), delayMs, log } });

describe("commits landing while the next slice works", () => {
  it("a slice's ledger write does not hold up the language's next slice; a repeat of a text whose commit is still landing is reused, not sent again", async () => {
    // Slices of 250 (the engine takes 50 a request): A, then B, then A again.
    const a = texts(250, "Landing A");
    const b = texts(250, "Landing B");
    const { site, c } = await siteWithPage(["de"], keyed([...a, ...b, ...a]));
    const jobId = (await c.post("/v1/jobs", { confirm: true })).body.id as number;
    const calls: { start: number; texts: string[] }[] = [];
    const engine = fakeEngine({
      during: (request) => {
        calls.push({ start: Date.now(), texts: request.segments.map((s) => s.text) });
      },
    });
    const writes: { start: number; end: number }[] = [];
    await inObject(site.siteId, (deps) => runJobs(deps, 60_000), { engineFor: () => engine, env: { DB: slowLedger(300, writes) } });

    const job = (await c.get(`/v1/jobs/${jobId}`)).body;
    expect(job).toMatchObject({ status: "succeeded", done_segments: 750, failed_segments: 0, reused_segments: 250, characters: sumCharacters([...a, ...b]) });
    // Each distinct text went to the engine once: A's repeats were reused while A's commit could still be landing.
    const sent = calls.flatMap((call) => call.texts);
    expect(sent).toHaveLength(500);
    expect(new Set(sent)).toEqual(new Set([...a, ...b]));
    // B's first request went out before slice A's ledger write had come back.
    const firstB = calls.find((call) => call.texts.includes(b[0]))!;
    expect(firstB.start).toBeLessThan(writes[0].end);
    expect(await allResults(c)).toHaveLength(750);
    expect((await ledger(site.siteId)).sum).toBe(job.characters);
  });
});

describe("a failed commit", () => {
  it("refuses the invocation's later commits, which could succeed: texts reused from it are not delivered unbilled; the job then ends billed once", async () => {
    // Slices of 250: A, B, then A again (reused from A's commits, landed or still landing).
    const a = texts(250, "Refused A");
    const b = texts(250, "Refused B");
    const { site, c } = await siteWithPage(["de"], keyed([...a, ...b, ...a]));
    const jobId = (await c.post("/v1/jobs", { confirm: true })).body.id as number;
    const { engine } = recordingEngine();
    // Only the first commit's transaction fails (the object's storage is reset under it); every later one would succeed.
    let commits = 0;
    const once = (deps: RunnerDeps) =>
      new Proxy(deps.store, {
        get(target, prop) {
          if (prop === "asRunner")
            return <T>(write: () => T): T => {
              if (++commits === 1) throw Object.assign(new Error("Durable Object storage reset"), { retryable: true });
              return target.asRunner(write);
            };
          const value = (target as any)[prop];
          return typeof value === "function" ? value.bind(target) : value;
        },
      });
    expect(await inObject(site.siteId, (deps) => runAlarm({ ...deps, store: once(deps) }, 60_000), { engineFor: () => engine })).toBeGreaterThan(0);
    expect(commits).toBe(1); // no later commit was tried…
    expect(engine.requests.length).toBeGreaterThan(1); // …though later batches were translated, their commits offered…
    const mid = (await c.get(`/v1/jobs/${jobId}`)).body;
    expect(mid).toMatchObject({ status: "running", done_segments: 0, characters: 0 }); // …and refused
    expect(await allResults(c)).toEqual([]);
    expect((await ledger(site.siteId)).sum).toBe(0);
    expect(await inObject(site.siteId, async (deps) => deps.store.all("SELECT * FROM ledger_outbox"))).toEqual([]);

    for (let i = 0; i < 10 && (await inObject(site.siteId, (deps) => runAlarm(deps, 60_000), { engineFor: () => engine })) !== null; i++);
    const job = (await c.get(`/v1/jobs/${jobId}`)).body;
    expect(job).toMatchObject({ status: "succeeded", done_segments: 750, failed_segments: 0, characters: sumCharacters([...a, ...b]) });
    expect(await allResults(c)).toHaveLength(750);
    expect((await ledger(site.siteId)).sum).toBe(job.characters);
  });
});

describe("large commits", () => {
  it("a commit that gathers several slices' results stores them all: each statement stays under SQLite's 2 MB per value", async () => {
    const site = await createSite({ target_languages: [{ code: "de" }] });
    const c = client(site.key);
    // 1,200 texts of 10,000 characters: slices of 20 (200,000 characters); with a slow ledger they gather into commits of up to 12 MB.
    const long = texts(1_200, "Long entry").map((t) => t.padEnd(10_000, " lorem ipsum"));
    const segments = keyed(long);
    // Two units: a request body may not pass 10 MB.
    expect((await c.put("/v1/units", unit("page:1", segments.slice(0, 600)))).status).toBe(200);
    expect((await c.put("/v1/units", unit("page:2", segments.slice(600)))).status).toBe(200);
    const jobId = (await c.post("/v1/jobs", { confirm: true })).body.id as number;
    const engine = fakeEngine({ limits: { maxSegments: 1000, maxCharacters: 1_000_000 } });
    const writes: { start: number; end: number }[] = [];
    await inObject(site.siteId, (deps) => runJobs(deps, 60_000), { engineFor: () => engine, env: { DB: slowLedger(300, writes) } });
    const job = (await c.get(`/v1/jobs/${jobId}`)).body;
    expect(job).toMatchObject({ status: "succeeded", done_segments: 1_200, failed_segments: 0, characters: sumCharacters(long) });
    expect(writes.length).toBeLessThan(15); // slices' outcomes were gathered into commits
    const results = await allResults(c);
    expect(results).toHaveLength(1_200);
    expect(results.every((r: any) => r.text.length === 10_004)).toBe(true);
  });
});

describe("commits as short steps", () => {
  it(`an engine batch larger than COMMIT_ITEMS is stored as several commits, each billed for the texts it holds`, async () => {
    // 1,000 distinct texts, then 200 repeats of them (the engine takes 1,000 texts a request, so a slice is 1,000 items).
    const distinct = texts(1_000, "Split entry");
    const { site, c } = await siteWithPage(["de"], keyed([...distinct, ...distinct.slice(0, 200)]));
    const jobId = (await c.post("/v1/jobs", { confirm: true })).body.id as number;
    const engine = fakeEngine({ limits: { maxSegments: 1_000, maxCharacters: 1_000_000 } });
    await inObject(site.siteId, (deps) => runJobs(deps, 60_000), { engineFor: () => engine });
    const job = (await c.get(`/v1/jobs/${jobId}`)).body;
    expect(job).toMatchObject({ status: "succeeded", done_segments: 1_200, reused_segments: 200, characters: sumCharacters(distinct) });
    expect(engine.texts).toHaveLength(1_000);
    const rows = await env.DB.prepare("SELECT slice, characters FROM usage_ledger WHERE site_id = ? AND job_id = ? ORDER BY slice")
      .bind(site.siteId, jobId)
      .all<{ slice: number; characters: number }>();
    // No commit stored more than COMMIT_ITEMS results, and the ledger rows add up to exactly what was translated.
    expect(rows.results.length).toBeGreaterThanOrEqual(Math.ceil(1_200 / COMMIT_ITEMS));
    expect(rows.results.reduce((n, r) => n + r.characters, 0)).toBe(job.characters);
    // The engine's 1,000 texts (the first slice) went as two commits of 500; the 200 repeats (the next slice, reused) as a third, unbilled.
    expect(rows.results.filter((r) => r.characters > 0).map((r) => r.characters)).toEqual([sumCharacters(distinct.slice(0, 500)), sumCharacters(distinct.slice(500))]);
    const commits = await inObject(site.siteId, async (deps) => deps.store.one<{ slices: number }>("SELECT slices FROM jobs WHERE id = ?", jobId)!.slices);
    expect(commits).toBe(rows.results.length);
    expect(await allResults(c)).toHaveLength(1_200);
  });
});

describe("bounded invocations", () => {
  it("the deadline is checked between engine batches: batches not launched stay pending, nothing is lost or billed twice", async () => {
    const { site, c, jobId } = await siteWithJob(["de"], 250);
    // The invocation's clock moves only when the engine works: 40 ms a request.
    let clock = 1_000_000;
    const engine = fakeEngine({
      during: () => {
        clock += 40;
      },
    });
    await inObject(site.siteId, (deps) => runJobs(deps, { budgetMs: 0, batchWindowMs: 60 }), {
      engineFor: () => engine,
      now: () => clock,
      env: { ENGINE_CONCURRENCY_PSEUDO: "1" } as unknown as Env,
    });
    // One batch at a time, 40 ms each: the window of 60 ms lets the second start (at 40 ms), not the third (at 80 ms).
    expect(engine.requests.length).toBe(2);
    const mid = (await c.get(`/v1/jobs/${jobId}`)).body;
    expect(mid).toMatchObject({ status: "running", done_segments: 50 * engine.requests.length });
    expect((await ledger(site.siteId)).sum).toBe(mid.characters);

    await inObject(site.siteId, (deps) => runJobs(deps, 60_000), { engineFor: () => engine });
    const job = (await c.get(`/v1/jobs/${jobId}`)).body;
    expect(job).toMatchObject({ status: "succeeded", done_segments: 250 });
    expect(new Set(engine.texts).size).toBe(engine.texts.length); // each text sent once
    expect((await ledger(site.siteId)).sum).toBe(job.characters);
  });
});

describe("large scopes", () => {
  it("a started job's items are fixed in chunks across invocations; slices start once the scope is fixed, and every item is done once", async () => {
    const { site, c, jobId } = await siteWithJob(["de", "fr"], 250);
    const { engine } = recordingEngine();
    const cursor = () =>
      runInDurableObject(
        stubOf(site.siteId),
        (o: SiteObject) => o.store.one<{ scope_cursor: number | null; status: string }>("SELECT scope_cursor, status FROM jobs WHERE id = ?", jobId)!,
      );
    const items = () => runInDurableObject(stubOf(site.siteId), (o: SiteObject) => o.store.one<{ n: number }>("SELECT count(*) AS n FROM job_items WHERE job_id = ?", jobId)!.n);
    // An invocation with no time left: the job starts and fixes one chunk of 100 segments (× 2 languages), then yields.
    expect(await inObject(site.siteId, (deps) => runJobs(deps, { budgetMs: 0, maxSlices: 0, scopeChunk: 100 }), { engineFor: () => engine })).toBe(true);
    expect(await cursor()).toMatchObject({ status: "running", scope_cursor: expect.any(Number) });
    expect(await items()).toBe(200);
    expect(await inObject(site.siteId, (deps) => runJobs(deps, { budgetMs: 0, maxSlices: 0, scopeChunk: 100 }), { engineFor: () => engine })).toBe(true);
    expect(await items()).toBe(400);
    expect(engine.requests.length).toBe(0); // no slice before the scope is fixed
    await inObject(site.siteId, (deps) => runJobs(deps, { budgetMs: 60_000, scopeChunk: 100 }), { engineFor: () => engine });
    expect(await cursor()).toMatchObject({ status: "succeeded", scope_cursor: null });
    const job = (await c.get(`/v1/jobs/${jobId}`)).body;
    expect(job).toMatchObject({ status: "succeeded", estimated_segments: 500, done_segments: 500, failed_segments: 0 });
    expect(await allResults(c)).toHaveLength(500);
  });
});

describe("internal errors", () => {
  it(`a job failing ${MAX_INTERNAL_FAILURES} times in a row for a bug is abandoned: its queued ledger rows written, rows of uncommitted work removed, reservation released, the queue moves on`, async () => {
    const { site, c, jobId, segments } = await siteWithJob(["de"], 120);
    const next = (await c.post("/v1/jobs", { type: "delta", confirm: true })).body;
    const { engine } = recordingEngine();
    // First invocation: one slice of 50 commits, and D1 refuses its ledger row, which waits in the object.
    const down = flakyDb(env.DB, { down: (sql) => /^insert into "usage_ledger"/i.test(sql) });
    const delay = await inObject(site.siteId, (deps) => runAlarm(deps, { budgetMs: 60_000, maxSlices: 1, sliceItems: 50 }), { engineFor: () => engine, env: { DB: down } });
    expect(delay).toBeGreaterThan(0);
    const mid = (await c.get(`/v1/jobs/${jobId}`)).body;
    expect(mid.done_segments).toBe(50);
    expect((await ledger(site.siteId)).sum).toBe(0);
    // A row for work that was never stored, as the runner wrote ahead of its commits before it queued its rows.
    await env.DB.prepare(
      "INSERT INTO usage_ledger (organization_id, site_id, job_id, slice, characters, month, created_at) SELECT organization_id, id, ?, 2, 999, '2026-01-01', '2026-01-01T00:00:00.000Z' FROM sites WHERE id = ?",
    )
      .bind(jobId, site.siteId)
      .run();
    expect((await ledger(site.siteId)).sum).toBe(999);

    // Then a bug: the engine throws something that is not an EngineError, every time.
    const broken: Engine = { ...engine, translate: async () => Promise.reject(new TypeError("cannot read properties of undefined")) };
    for (let i = 1; i < MAX_INTERNAL_FAILURES; i++) {
      expect(await inObject(site.siteId, (deps) => runAlarm(deps, 60_000), { engineFor: () => broken })).toBeGreaterThan(0);
      expect((await c.get(`/v1/jobs/${jobId}`)).body.status).toBe("running");
    }
    expect(await inObject(site.siteId, (deps) => runAlarm(deps, 60_000), { engineFor: () => broken })).toBe(0);
    const failed = (await c.get(`/v1/jobs/${jobId}`)).body;
    expect(failed).toMatchObject({ status: "failed", done_segments: 50 });
    expect(failed.errors.at(-1).message).toMatch(/repeated internal errors/);
    // The ledger keeps exactly what the job committed.
    const after = await ledger(site.siteId);
    expect(after.rows.filter((r) => r.job_id === jobId)).toEqual([{ job_id: jobId, slice: 1, characters: failed.characters }]);
    expect(failed.characters).toBe(sumCharacters(segments.slice(0, 50).map((s) => s.text)));
    const reserved = await env.DB.prepare("SELECT job_id FROM reservations WHERE site_id = ? AND job_id = ?").bind(site.siteId, jobId).all();
    expect(reserved.results).toEqual([]);

    // The next job takes over the rest.
    expect(await inObject(site.siteId, (deps) => runAlarm(deps, 60_000), { engineFor: () => engine })).toBeNull();
    expect((await c.get(`/v1/jobs/${next.id}`)).body).toMatchObject({ status: "succeeded", done_segments: 70 });
  });
});
