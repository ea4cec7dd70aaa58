/**
 * The site object answers while a job works, whatever the engine: CPU-bound job work (a
 * zero-latency engine, memory hits, QA, commits) goes in short steps, and requests that arrive
 * meanwhile are answered between them. Every request here is a real one (through the Worker),
 * sent while the job runs in the object; with a zero-latency engine nothing in the job awaits
 * real I/O but its ledger writes, so without the steps each answer would wait for the job.
 */
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { Engine } from "../../src/engines/types";
import type { TurnPoint } from "../../src/site/jobs/invocation";
import { runJobs } from "../../src/site/jobs/runner";
import type { SiteObject } from "../../src/site/object";
import { unit } from "../helpers/api";
import { fakeEngine } from "../helpers/fake-engine";
import { keyed, ledger, siteWithPage, sumCharacters, texts } from "../helpers/faults";
import { allResults } from "../helpers/jobs";
import { recounted, runnerDeps, stubOf } from "../helpers/site";

async function siteWithUnit(languages: string[], n: number, prefix = "Answering entry") {
  const segments = keyed(texts(n, prefix));
  return { ...(await siteWithPage(languages, segments)), segments };
}

/**
 * Runs the site's jobs inside the object with the given engine, counting the turns of the
 * event loop the runner gives waiting requests (`turns.count`). `between(at)` runs at each turn
 * before it is given (a test seam standing for a request that arrives then) until it answers
 * true; `stepWork` 1 turns at every step.
 */
function runInObject(siteId: number, engine: Engine, opts: { between?: (at: TurnPoint) => Promise<boolean>; stepWork?: number; turns?: { count: number } } = {}) {
  return runInDurableObject(stubOf(siteId), async (o: SiteObject) => {
    let between = opts.between;
    const nextTurn = async (at: TurnPoint) => {
      if (opts.turns) opts.turns.count++;
      if (between && (await between(at))) between = undefined;
      await scheduler.wait(0);
    };
    return runJobs(runnerDeps(o, { engineFor: () => engine, nextTurn }), { budgetMs: 60_000, stepWork: opts.stepWork });
  });
}

const countsAndRecount = (siteId: number) =>
  recounted(siteId, (o) => ({
    unitCounts: o.store.all("SELECT * FROM unit_counts ORDER BY unit_id, language"),
    site: o.store.all("SELECT * FROM site_counts ORDER BY language"),
  }));

describe("requests during a job with a zero-latency engine", () => {
  it("status, job, result and push requests sent while the job runs are answered before it ends; the job's counts stay exact", async () => {
    const { site, c, segments } = await siteWithUnit(["de", "fr"], 3_000);
    const jobId = (await c.post("/v1/jobs", { confirm: true })).body.id as number;
    const engine = fakeEngine();
    const turns = { count: 0 };
    const running = runInObject(site.siteId, engine, { turns });

    // Requests sent while the job runs; each notes how many turns the runner had given when it was answered.
    const answeredAt: Record<string, number> = {};
    const note = async <T>(name: string, call: Promise<T>) => {
      const res = await call;
      answeredAt[name] = turns.count;
      return res;
    };
    let seen: any;
    for (let i = 0; i < 5_000; i++) {
      seen = (await note("job", c.get(`/v1/jobs/${jobId}`))).body;
      if (seen.status === "running" && seen.done_segments > 0) break;
    }
    expect(seen.done_segments).toBeLessThan(6_000);
    const [status, page, pushed] = await Promise.all([
      note("status", c.get("/v1/status")),
      note("results", c.get("/v1/results?limit=100")),
      note("push", c.put("/v1/units", unit("page:2", [{ key: "a", text: "Pushed during the job" }]))),
    ]);
    expect(status.status).toBe(200);
    expect(page.status).toBe(200);
    expect(pushed.body).toMatchObject({ unit_created: true, added: 1 });

    expect(await running).toBe(false);
    // The job went on turning after every answer: each was given while it was still at work.
    for (const [name, at] of Object.entries(answeredAt)) expect(at, name).toBeLessThan(turns.count);
    const job = (await c.get(`/v1/jobs/${jobId}`)).body;
    expect(job).toMatchObject({ status: "succeeded", done_segments: 6_000, failed_segments: 0 });
    expect(job.characters).toBe(2 * sumCharacters(segments.map((s) => s.text)));
    expect((await ledger(site.siteId)).sum).toBe(job.characters);
    const results = await allResults(c);
    expect(results).toHaveLength(6_000);
    expect(new Set(results.map((r: any) => `${r.unit}/${r.key}/${r.language}`)).size).toBe(6_000);
    const counts = await countsAndRecount(site.siteId);
    expect(counts.maintained).toEqual(counts.recount);
  });

  it("a job of memory hits only (no engine request at all) lets requests in too", async () => {
    const { site, c, segments } = await siteWithUnit(["de"], 3_000, "Remembered entry");
    // A second unit with the same texts, imported: the memory holds every text, so the job's work is all CPU.
    await c.put(
      "/v1/units",
      unit(
        "page:0",
        segments.map((s) => ({ ...s, translations: { de: `de: ${s.text}` } })),
      ),
    );
    const jobId = (await c.post("/v1/jobs", { confirm: true })).body.id as number;
    const running = runDurableObjectAlarm(stubOf(site.siteId));
    let seen: any;
    for (let i = 0; i < 2_000; i++) {
      seen = (await c.get(`/v1/jobs/${jobId}`)).body;
      if (seen.status !== "queued" && (seen.status !== "running" || seen.done_segments > 0)) break;
    }
    expect(seen.status).toBe("running");
    expect(seen.done_segments).toBeLessThan(3_000);
    await running;
    const job = (await c.get(`/v1/jobs/${jobId}`)).body;
    expect(job).toMatchObject({ status: "succeeded", done_segments: 3_000, tm_segments: 3_000, characters: 0 });
  });
});

describe("a push that lands between a slice's load and its commit, with a zero-latency engine", () => {
  /**
   * The same scenario twice: the unit's first pending segment changes its text and the next
   * one gets an imported translation while the slice holding them is between its load and its
   * commit. `slow` makes the push from inside the engine's call (the slow-engine path the older
   * tests take); otherwise it is a real request let in at one of the runner's steps.
   */
  async function scenario(slow: boolean) {
    const { site, c, segments } = await siteWithUnit(["de"], 600, "Landing entry");
    const jobId = (await c.post("/v1/jobs", { confirm: true })).body.id as number;
    const engine = fakeEngine();
    let changed: { key: string; imported: string } | undefined;
    const push = async () => {
      // The slice being worked on: the lowest items still pending (a slice's items leave job_items with its commit).
      const pending = await runInDurableObject(stubOf(site.siteId), (o: SiteObject) =>
        o.store.all<{ key: string }>("SELECT s.key FROM job_items ji JOIN segments s ON s.id = ji.segment_id ORDER BY ji.segment_id LIMIT 2"),
      );
      changed = { key: pending[0].key, imported: pending[1].key };
      const snapshot = segments.map((s) =>
        s.key === changed!.key ? { key: s.key, text: `${s.text}, changed` } : s.key === changed!.imported ? { ...s, translations: { de: "Importiert" } } : s,
      );
      expect((await c.put("/v1/units", unit("page:1", snapshot))).body).toMatchObject({ changed: 1, imported_translations: 1 });
    };
    if (slow) {
      let first = true;
      const slowEngine: Engine = {
        ...engine,
        translate: async (request) => {
          if (first) {
            first = false;
            await push();
          }
          return engine.translate(request);
        },
      };
      await runInObject(site.siteId, slowEngine);
    }
    // At every step a turn; the push comes at the first turn after a slice's items were loaded and sorted.
    else
      await runInObject(site.siteId, engine, {
        stepWork: 1,
        between: async (at) => {
          if (at !== "slice") return false;
          await push();
          return true;
        },
      });
    expect(changed).toBeDefined();

    const job = (await c.get(`/v1/jobs/${jobId}`)).body;
    const results = await allResults(c);
    const unitStatus = (await c.get("/v1/units/page:1/status")).body;
    const counts = await countsAndRecount(site.siteId);
    expect(counts.maintained).toEqual(counts.recount);
    const stateOf = (key: string) => unitStatus.segments.find((s: any) => s.key === key).states.de;
    return {
      job: { status: job.status, done_segments: job.done_segments, characters: job.characters, ledger: (await ledger(site.siteId)).sum },
      results: results.map((r: any) => `${r.key}:${r.text}`).sort(),
      changedState: stateOf(changed!.key),
      importedState: stateOf(changed!.imported),
      importedDelivered: results.some((r: any) => r.key === changed!.imported),
      unitCounts: counts.maintained.unitCounts.map(({ unit_id: _u, ...row }: any) => row),
    };
  }

  it("leaves the state it leaves with a slow engine: the changed text's result is stale and not listed, the import wins, counts exact", async () => {
    const fast = await scenario(false);
    const slow = await scenario(true);
    expect(fast.changedState).toBe("stale");
    expect(fast.importedState).toBe("ok");
    expect(fast.importedDelivered).toBe(false);
    expect(fast.job.ledger).toBe(fast.job.characters);
    expect(fast).toEqual(slow);
  });
});

describe("cancel wins", () => {
  it("cancelling a running zero-latency job is answered while it works; no engine request or commit follows, and it bills exactly what it stored", async () => {
    const { site, c } = await siteWithUnit(["de", "fr"], 3_000, "Cancelled entry");
    const jobId = (await c.post("/v1/jobs", { confirm: true })).body.id as number;
    const engine = fakeEngine();
    const running = runInObject(site.siteId, engine);
    let seen: any;
    for (let i = 0; i < 5_000; i++) {
      seen = (await c.get(`/v1/jobs/${jobId}`)).body;
      if (seen.status === "running" && seen.done_segments > 0) break;
    }
    const cancelled = await c.post(`/v1/jobs/${jobId}/cancel`);
    const callsAtCancel = engine.requests.length;
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.status).toBe("cancelled");
    expect(cancelled.body.done_segments).toBeLessThan(6_000);
    await running;

    expect(engine.requests.length).toBe(callsAtCancel);
    const job = (await c.get(`/v1/jobs/${jobId}`)).body;
    expect(job).toMatchObject({ status: "cancelled", done_segments: cancelled.body.done_segments, characters: cancelled.body.characters });
    expect(await allResults(c)).toHaveLength(job.done_segments);
    expect((await ledger(site.siteId)).sum).toBe(job.characters);
    const left = await runInDurableObject(stubOf(site.siteId), (o: SiteObject) => o.store.one<{ n: number }>("SELECT count(*) AS n FROM job_items")!.n);
    expect(left).toBe(0);
    const reserved = await env.DB.prepare("SELECT count(*) AS n FROM reservations WHERE site_id = ?").bind(site.siteId).first<{ n: number }>();
    expect(reserved?.n).toBe(0);
    const counts = await countsAndRecount(site.siteId);
    expect(counts.maintained).toEqual(counts.recount);
  });

  it("a queued job is cancelled while another job works; the running one goes on to the end", async () => {
    const { site, c, segments } = await siteWithUnit(["de", "fr"], 3_000, "Queued entry");
    const first = (await c.post("/v1/jobs", { confirm: true, languages: ["de"] })).body.id as number;
    const second = (await c.post("/v1/jobs", { confirm: true, languages: ["fr"] })).body.id as number;
    const engine = fakeEngine();
    const turns = { count: 0 };
    const running = runInObject(site.siteId, engine, { turns });
    let seen: any;
    for (let i = 0; i < 5_000; i++) {
      seen = (await c.get(`/v1/jobs/${first}`)).body;
      if (seen.status === "running" && seen.done_segments > 0) break;
    }
    const cancelled = await c.post(`/v1/jobs/${second}/cancel`);
    const answeredAt = turns.count;
    expect(cancelled.body).toMatchObject({ status: "cancelled", done_segments: 0 });
    expect(await running).toBe(false);
    // The first job turned again after the answer: it was still at work.
    expect(answeredAt).toBeLessThan(turns.count);

    const one = (await c.get(`/v1/jobs/${first}`)).body;
    const two = (await c.get(`/v1/jobs/${second}`)).body;
    expect(one).toMatchObject({ status: "succeeded", done_segments: 3_000, characters: sumCharacters(segments.map((s) => s.text)) });
    expect(two).toMatchObject({ status: "cancelled", done_segments: 0, characters: 0, started_at: null });
    expect((await ledger(site.siteId)).sum).toBe(one.characters);
    const reserved = await env.DB.prepare("SELECT count(*) AS n FROM reservations WHERE site_id = ?").bind(site.siteId).first<{ n: number }>();
    expect(reserved?.n).toBe(0);
  });
});
