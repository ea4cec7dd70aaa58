// Metering after the commit (src/site/jobs/ledger.ts): a commit queues its ledger row in its own
// transaction, and the rows reach D1 behind the commits, several in one statement. D1 is the
// test pool's, wrapped by flakyDb to count, refuse or lose its ledger writes.
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { FLUSH_ROWS, flushUsage, LedgerWriter, queueUsage } from "../../src/site/jobs/ledger";
import { runJobs } from "../../src/site/jobs/runner";
import type { SiteObject } from "../../src/site/object";
import { fakeEngine } from "../helpers/fake-engine";
import { flakyDb, keyed, ledger, siteWithPage, sumCharacters, texts } from "../helpers/faults";
import { inObject, runnerDeps, stubOf } from "../helpers/site";

const isLedgerInsert = (sql: string) => /^insert into "usage_ledger"/i.test(sql);

/** A D1 that counts the ledger writes it is asked for, and refuses them while `down()`. */
function countingDb(down: () => boolean = () => false) {
  const log = { inserts: 0 };
  const db = flakyDb(env.DB, {
    down: (sql) => {
      if (!isLedgerInsert(sql)) return false;
      log.inserts++;
      return down();
    },
  });
  return { db, log };
}

async function siteWithJob(n: number) {
  const segments = keyed(texts(n, "Metered entry"));
  const { site, c } = await siteWithPage(["de"], segments);
  const jobId = (await c.post("/v1/jobs", { confirm: true })).body.id as number;
  return { site, c, jobId, chars: sumCharacters(segments.map((s) => s.text)) };
}

describe("the job's ledger rows", () => {
  it("are written behind the commits, several in one statement: one row per stored commit, none twice, the outbox emptied", async () => {
    const { site, c, jobId, chars } = await siteWithJob(240);
    const { db, log } = countingDb();
    // Slices of 10 texts: 24 commits, each queueing its row.
    await inObject(site.siteId, (deps) => runJobs(deps, { budgetMs: 60_000, sliceItems: 10 }), { engineFor: () => fakeEngine(), env: { DB: db } });
    const job = (await c.get(`/v1/jobs/${jobId}`)).body;
    expect(job).toMatchObject({ status: "succeeded", done_segments: 240, characters: chars });
    const { rows, sum } = await ledger(site.siteId);
    // Outcomes that queue up while a commit is written go into the next one: about 24 commits.
    const commits = await inObject(site.siteId, async (deps) => deps.store.one<{ slices: number }>("SELECT slices FROM jobs WHERE id = ?", jobId)!.slices);
    expect(commits).toBeGreaterThan(10);
    expect(rows.map((r) => r.slice)).toEqual(Array.from({ length: commits }, (_, i) => i + 1));
    expect(sum).toBe(chars);
    // The rows of commits that landed while a write was gathering or under way went together.
    expect(log.inserts).toBeGreaterThan(0);
    expect(log.inserts).toBeLessThan(commits / 2);
    expect(await inObject(site.siteId, async (deps) => deps.store.all("SELECT * FROM ledger_outbox"))).toEqual([]);
  });
});

describe("LedgerWriter", () => {
  it("a flush cuts the gathering wait short, writes every queued row, and a write refused by D1 stops the invocation until D1 takes the rows", async () => {
    const { site, jobId } = await siteWithJob(1);
    let down = true;
    const { db, log } = countingDb(() => down);
    await runInDurableObject(stubOf(site.siteId), async (o: SiteObject) => {
      const at = new Date("2026-11-30T23:59:59.000Z");
      const stops: number[] = [];
      // A gathering wait of an hour: only flush() ends it.
      const writer = new LedgerWriter(runnerDeps(o, { env: { DB: db } }), () => stops.push(1), 3_600_000);
      o.store.tx(() => queueUsage(o.store, jobId, 1, 10, at));
      writer.written();
      o.store.tx(() => queueUsage(o.store, jobId, 2, 20, at));
      writer.written(); // joins the write under way
      await expect(writer.flush()).rejects.toThrow(/metering a job's progress: D1_ERROR/);
      expect(stops).toEqual([1]);
      expect(log.inserts).toBe(2); // the background write and the flush's
      writer.written(); // refused writes wait for a flush
      await writer.idle();
      expect(log.inserts).toBe(2);
      down = false;
      await writer.flush();
      expect(log.inserts).toBe(3);
      expect(o.store.all("SELECT * FROM ledger_outbox")).toEqual([]);
    });
    const { rows } = await ledger(site.siteId);
    expect(rows).toEqual([
      { job_id: jobId, slice: 1, characters: 10 },
      { job_id: jobId, slice: 2, characters: 20 },
    ]);
    // Each row keeps the month its commit was stored in, whenever it reaches D1.
    const months = await env.DB.prepare("SELECT DISTINCT month FROM usage_ledger WHERE site_id = ?").bind(site.siteId).all<{ month: string }>();
    expect(months.results).toEqual([{ month: "2026-11-01" }]);
  });

  it(`writes a large outbox ${FLUSH_ROWS} rows a statement, and a row written twice (its answer lost) is billed once`, async () => {
    const { site, jobId } = await siteWithJob(1);
    let lost = 0;
    const lossy = flakyDb(env.DB, { lose: (sql) => isLedgerInsert(sql) && ++lost === 1 });
    const { db, log } = countingDb();
    await runInDurableObject(stubOf(site.siteId), async (o: SiteObject) => {
      const at = new Date();
      o.store.tx(() => {
        for (let n = 1; n <= FLUSH_ROWS + 1; n++) queueUsage(o.store, jobId, n, 1, at);
      });
      // The first statement lands but its answer is lost: its rows stay queued.
      await expect(flushUsage(runnerDeps(o, { env: { DB: lossy } }))).rejects.toThrow(/metering/);
      expect(o.store.one<{ n: number }>("SELECT count(*) AS n FROM ledger_outbox")!.n).toBe(FLUSH_ROWS + 1);
      expect(await flushUsage(runnerDeps(o, { env: { DB: db } }))).toBe(2);
      expect(log.inserts).toBe(2);
    });
    expect(await ledger(site.siteId)).toMatchObject({ sum: FLUSH_ROWS + 1 });
  });
});
