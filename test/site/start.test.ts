// A job's one start step (src/site/jobs/runner.ts, start): it takes the estimate stored when the job
// was created unless something its scope reads was written since (jobs.ts, storedEstimate: the
// site's scope tables, and on a sharing site the organization's memory), so a
// start does not read the whole scope again; an estimate taken again may lower the job's
// estimated characters, never raise them, and never fails the job; and a job cancelled while
// running is settled once, by the runner (the cancel route releases only a queued job's reservation).
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { orgMemoryName } from "../../src/memory/stub";
import { STEP_WORK } from "../../src/site/jobs/invocation";
import { runAlarm, runJobs } from "../../src/site/jobs/runner";
import { LOAD_ITEMS } from "../../src/site/jobs/slice-items";
import type { SiteObject } from "../../src/site/object";
import { fakeEngine } from "../helpers/fake-engine";
import { arm, flakyDb, keyed, siteWithPage, texts } from "../helpers/faults";
import { inObject, runnerDeps, stubOf } from "../helpers/site";

const engine = fakeEngine();

/** One runner invocation inside the site object, with the injected engine and at most `maxSlices` slices. */
function invocation(siteId: number, maxSlices: number, db: D1Database = env.DB) {
  return inObject(siteId, (deps) => runAlarm(deps, { budgetMs: 60_000, maxSlices, sliceItems: 50 }), { engineFor: () => engine, env: { DB: db } });
}

async function siteWithJob(n: number, share_memory = false) {
  const { site, c } = await siteWithPage(["de"], keyed(texts(n, "Start entry")), { share_memory });
  const created = (await c.post("/v1/jobs", { confirm: true })).body;
  expect(created.status).toBe("queued");
  return { site, c, created, jobId: created.id as number };
}

/**
 * Changes every segment's billable characters by `by`: through the Store (counted as a write to
 * the scope) or behind its back (invisible to the mark: only a start that read the scope again sees it).
 */
const recount = (siteId: number, through: "store" | "raw", by: number) =>
  runInDurableObject(stubOf(siteId), async (o: SiteObject, state) => {
    const sql = `UPDATE segments SET characters = characters + ${by}`;
    if (through === "store") o.store.run(sql);
    else state.storage.sql.exec(sql);
  });

describe("the job's start step", () => {
  it("takes the estimate stored at creation when nothing in the scope was written since: the scope is not read again", async () => {
    const { site, c, created, jobId } = await siteWithJob(60);
    // Written behind the Store's back, the change is invisible to the mark: a start that read the scope again would see it.
    await recount(site.siteId, "raw", -5);
    await invocation(site.siteId, 0);
    const job = (await c.get(`/v1/jobs/${jobId}`)).body;
    expect(job.status).toBe("running");
    expect(job).toMatchObject({ estimated_segments: 60, estimated_characters: created.estimated_characters });
  });

  it("on a site that shares memory, takes it too when the organization's memory answers the version it had at creation", async () => {
    const { site, c, created, jobId } = await siteWithJob(60, true);
    await recount(site.siteId, "raw", -5);
    await invocation(site.siteId, 0);
    const job = (await c.get(`/v1/jobs/${jobId}`)).body;
    expect(job.status).toBe("running");
    expect(job).toMatchObject({ estimated_segments: 60, estimated_characters: created.estimated_characters });
  });

  it("on a site that shares memory, estimates again when the organization's memory was written since (another site shared)", async () => {
    const { site, c, created, jobId } = await siteWithJob(60, true);
    await recount(site.siteId, "raw", -5);
    const change = { source_language: "en", source_fingerprint: "elsewhere", target_language: "de", text: "Anderswo", origin: "human", updated_at: new Date().toISOString() };
    expect(await env.ORG_MEMORY.getByName(orgMemoryName(site.orgId)).share(site.siteId + 1_000, [change])).toBeGreaterThan(0);
    await invocation(site.siteId, 0);
    const job = (await c.get(`/v1/jobs/${jobId}`)).body;
    expect(job).toMatchObject({ status: "running", estimated_segments: 60, estimated_characters: created.estimated_characters - 60 * 5 });
  });

  it("estimates again when the scope was written since the job was created: a smaller cost lowers the estimate and the reservation", async () => {
    const { site, c, created, jobId } = await siteWithJob(60);
    await recount(site.siteId, "store", -5);
    await invocation(site.siteId, 0);
    const job = (await c.get(`/v1/jobs/${jobId}`)).body;
    expect(job).toMatchObject({ status: "running", estimated_segments: 60, estimated_characters: created.estimated_characters - 60 * 5 });
    const reserved = await env.DB.prepare("SELECT characters FROM reservations WHERE site_id = ? AND job_id = ?").bind(site.siteId, jobId).first<{ characters: number }>();
    expect(reserved?.characters).toBe(created.estimated_characters - 60 * 5);
  });

  it("a cost grown beyond the estimate at creation (texts it covers got longer) does not fail the job: its estimated characters stay, the most it bills", async () => {
    const { site, c, created, jobId } = await siteWithJob(60);
    await recount(site.siteId, "store", 1000);
    await invocation(site.siteId, 0);
    const job = (await c.get(`/v1/jobs/${jobId}`)).body;
    expect(job).toMatchObject({ status: "running", estimated_segments: 60, estimated_characters: created.estimated_characters, errors: [] });
    const reserved = await env.DB.prepare("SELECT characters FROM reservations WHERE site_id = ? AND job_id = ?").bind(site.siteId, jobId).first<{ characters: number }>();
    expect(reserved?.characters).toBe(created.estimated_characters);
  });
});

describe("a running job that is cancelled", () => {
  it("is settled once, by the runner: one ledger clean-up and one release of its reservation", async () => {
    const { site, c, jobId } = await siteWithJob(120);
    await invocation(site.siteId, 1);
    expect((await c.get(`/v1/jobs/${jobId}`)).body).toMatchObject({ status: "running", done_segments: 50 });

    const seen: string[] = [];
    const counting = flakyDb(env.DB, {
      down: (sql) => {
        const deleted = /^delete from "(reservations|usage_ledger)"/i.exec(sql);
        if (deleted) seen.push(deleted[1]!);
        return false;
      },
    });
    await arm(site.siteId, { DB: counting });
    expect((await c.post(`/v1/jobs/${jobId}/cancel`)).body.status).toBe("cancelled");
    // The route leaves the running job's reservation to the runner's settle step.
    expect(seen).toEqual([]);
    for (let i = 0; i < 5 && (await invocation(site.siteId, 1, counting)) !== null; i++);
    expect(seen).toEqual(["usage_ledger", "reservations"]);
    const reserved = await env.DB.prepare("SELECT job_id FROM reservations WHERE site_id = ?").bind(site.siteId).all();
    expect(reserved.results).toEqual([]);
  });

  it("keeps its reservation until the runner has written its ledger rows: the estimate a client sees never drops the characters it committed", async () => {
    const { site, c } = await siteWithPage(["de"], keyed(texts(120, "Held entry")), { plan: "scale", included_characters: 1_000_000 });
    const jobId = (await c.post("/v1/jobs", { confirm: true })).body.id as number;
    const cost = async () => (await c.post("/v1/jobs", { estimate_only: true })).body.cost as { used_characters: number; reserved_characters: number };
    const reservation = (await cost()).reserved_characters;
    expect(reservation).toBeGreaterThan(0);
    // One slice commits; D1 refuses its ledger row, which waits in the object's outbox.
    const ledgerDown = flakyDb(env.DB, { down: (sql) => /^insert into "usage_ledger"/i.test(sql) });
    expect(await invocation(site.siteId, 1, ledgerDown)).toBeGreaterThan(0);
    const running = (await c.get(`/v1/jobs/${jobId}`)).body;
    expect(running).toMatchObject({ status: "running", done_segments: 50 });
    expect(running.characters).toBeGreaterThan(0);

    expect((await c.post(`/v1/jobs/${jobId}/cancel`)).body.status).toBe("cancelled");
    // Not billed yet (its row is not in D1), still reserved: the characters it committed count against the plan.
    expect(await cost()).toMatchObject({ used_characters: 0, reserved_characters: reservation });

    // D1 is back: the runner writes the row, then releases the reservation.
    for (let i = 0; i < 5 && (await invocation(site.siteId, 1)) !== null; i++);
    expect(await cost()).toMatchObject({ used_characters: running.characters, reserved_characters: 0 });
    expect((await c.get("/v1/usage")).body.used_characters).toBe(running.characters);
  });

  it("a queued job's reservation goes with the cancel itself", async () => {
    const { site, c, jobId } = await siteWithJob(10);
    const reserved = () => env.DB.prepare("SELECT job_id FROM reservations WHERE site_id = ?").bind(site.siteId).all();
    expect((await reserved()).results).toEqual([{ job_id: jobId }]);
    expect((await c.post(`/v1/jobs/${jobId}/cancel`)).body.status).toBe("cancelled");
    expect((await reserved()).results).toEqual([]);
  });
});

describe("a slice's load", () => {
  it("goes in pieces of LOAD_ITEMS items, with a turn for waiting requests after each (at steps shorter than a piece)", async () => {
    const { site, c, jobId } = await siteWithJob(1_000);
    const turns = await runInDurableObject(stubOf(site.siteId), async (o: SiteObject) => {
      const at: string[] = [];
      const deps = runnerDeps(o, {
        engineFor: () => engine,
        env: { DB: env.DB },
        // Without the engines' unit context, whose read is a step of its own (also at "slice").
        engineContext: false,
        nextTurn: async (point) => {
          at.push(point);
        },
      });
      // Steps of STEP_WORK (below LOAD_ITEMS), not paced: a turn after every piece.
      await runJobs(deps, { budgetMs: 60_000, maxSlices: 1, sliceItems: 1_000, stepWork: STEP_WORK });
      return at;
    });
    // One slice of 1,000 items: four pieces, each followed by a turn (the last one before the engine batches).
    expect(LOAD_ITEMS).toBe(250);
    expect(turns.filter((t) => t === "slice")).toHaveLength(4);
    expect((await c.get(`/v1/jobs/${jobId}`)).body).toMatchObject({ done_segments: 1_000 });
  });
});
