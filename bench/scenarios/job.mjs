/**
 * d. A delta job over 20,000 segments × 3 languages, run by the real runJobs with a
 *    zero-latency engine injected through RunnerDeps.engineFor, against the floor of writing
 *    as many result rows (60,000 INSERTs in a FloorObject). Each run: a fresh site seeded in
 *    bulk (every segment missing), the job created through POST /v1/jobs, then
 *    BenchSiteObject.runJob() called from Node in steps of STEP_MS (runJobs' own budget, as
 *    the alarm runs it) until the job is done; the job's time is the sum of the steps.
 *
 *    The steps give the job's throughput as it progresses (a cost per result that grows with
 *    the job shows up as a falling rate). A job still running after CAP_MS is left there and
 *    reported as a lower bound (BENCH_JOB_CAP_S changes the cap), and a run slower than
 *    SLOW_MS is not repeated, so the bench stays within minutes whatever the runner costs.
 */
import { call, createSite } from "../client.mjs";
import { median, Report, time, workerdCpuMs } from "../measure.mjs";

const LANGUAGES = ["de", "fr", "es"];
const SEGMENTS_PER_UNIT = 50;
const UNITS = 400;
const SEGMENTS = UNITS * SEGMENTS_PER_UNIT;
const ITEMS = SEGMENTS * LANGUAGES.length;
const STEP_MS = 2_000;
/** BENCH_JOB_CAP_S=0 lets a job run to the end however long it takes. */
const CAP_MS = (Number(process.env.BENCH_JOB_CAP_S ?? 40) || Number.POSITIVE_INFINITY) * 1000;
const SLOW_MS = 15_000;
/** Items per slice the runner takes for this engine (1,000 texts a request): SLICE_ITEMS_MAX in src/site/jobs/slice.ts. */
const SLICE = 1_000;
/** Items per commit at most: COMMIT_ITEMS in src/site/jobs/commit.ts. */
const COMMIT = 500;

const perSecond = (count, ms) => Math.round(count / (ms / 1000)).toLocaleString("en");

/** One job on a fresh site: POST /v1/jobs, then steps until done or CAP_MS. */
async function jobOnce(rt, units) {
  const items = units * SEGMENTS_PER_UNIT * LANGUAGES.length;
  const site = await createSite(rt.mf, { languages: LANGUAGES });
  const stub = rt.site(site.id);
  await stub.seed({ prefix: "post:", units, segmentsPerUnit: SEGMENTS_PER_UNIT, translations: "none" });
  const created = await time(() => call(rt.mf, "POST", "/v1/jobs", { key: site.key, body: { type: "delta", confirm: true } }));
  if (created.value.estimated_segments !== items) throw new Error(`job estimate: ${JSON.stringify(created.value)}`);
  const steps = [];
  let elapsed = 0;
  let job;
  const cpuBefore = workerdCpuMs();
  do {
    // With TURNS=1 the event loop's lag is measured too, which slows the job (its time then says less).
    const step = await time(() => stub.runJob(STEP_MS, true, Boolean(process.env.TURNS)));
    job = step.value;
    elapsed += step.ms;
    steps.push({ ms: step.ms, done: job.done_segments });
    if (process.env.TURNS)
      console.log(
        "TURNS",
        job.turns,
        "waited",
        job.waitedMs,
        "ms",
        Math.round(step.ms),
        "engine texts",
        job.engineTexts,
        "requests",
        job.engineRequests,
        "commits so far",
        job.slices,
        "loop lag",
        JSON.stringify(job.lag),
        JSON.stringify(job.longestByStep),
      );
  } while (job.status === "running" && elapsed < CAP_MS);
  const cpuMs = cpuBefore === null ? null : workerdCpuMs() - cpuBefore;
  const finished = job.status !== "running" && job.status !== "queued";
  if (finished && (job.status !== "succeeded" || job.done_segments !== items)) throw new Error(`job: ${JSON.stringify(job)}`);
  return { createMs: created.ms, runMs: elapsed, cpuMs, finished, done: job.done_segments, steps };
}

/**
 * One floor run: ITEMS result rows into a fresh FloorObject, in one transaction or in
 * transactions of `slice`; with `turns`, a turn of the event loop after each transaction.
 */
async function floorOnce(rt, slice, i, turns = false) {
  const stub = rt.floor(`results-floor-${slice ?? "one"}-${turns ? "turns-" : ""}${i}`);
  await stub.stageResults(SEGMENTS, LANGUAGES);
  const { ms, value } = await time(() => stub.insertResults(slice, turns));
  if (value !== ITEMS) throw new Error(`floor wrote ${value} rows`);
  return ms;
}

/**
 * The steps' rates, at most 8 of them spread over the job: "results/s @ % done". Languages run
 * one after the other, so a rate that falls within each third and recovers at the next is a
 * cost that grows with the results a language already has. The closing step (no new result)
 * is left out.
 */
function rates(steps) {
  const out = [];
  let before = 0;
  for (const s of steps) {
    if (s.done > before) out.push({ rate: (s.done - before) / (s.ms / 1000), at: s.done / ITEMS });
    before = s.done;
  }
  const pick = out.length <= 8 ? out : [0, 1, 2, 3, 4, 5, 6, 7].map((k) => out[Math.round((k * (out.length - 1)) / 7)]);
  return pick.map((r) => `${Math.round(r.rate).toLocaleString("en")} @${Math.round(r.at * 100)}%`).join(", ");
}

export async function jobScenario(rt, { runs }) {
  await jobOnce(rt, 20); // warm-up: compiles the code paths
  // Job and floors in turn, round after round, so drift and load fall on both alike.
  const jobs = [];
  const floorOne = [];
  const floorSliced = [];
  const floorTurns = [];
  for (let i = 0; i < runs; i++) {
    const run = jobs.length && (!jobs[jobs.length - 1].finished || jobs[jobs.length - 1].runMs > SLOW_MS) ? undefined : await jobOnce(rt, UNITS);
    if (run) jobs.push(run);
    floorOne.push(await floorOnce(rt, undefined, i));
    floorSliced.push(await floorOnce(rt, SLICE, i));
    floorTurns.push(await floorOnce(rt, COMMIT, i, true));
  }

  const unfinished = jobs.find((j) => !j.finished);
  const report = new Report(
    `d. Delta job: ${SEGMENTS.toLocaleString("en")} segments × ${LANGUAGES.length} languages (${ITEMS.toLocaleString("en")} results), zero-latency engine; a fresh site per run`,
    [
      `floor = ${ITEMS.toLocaleString("en")} result rows (same table and indexes as results) inserted by a FloorObject, rows staged first`,
      `the job runs in steps of runJobs(budget ${STEP_MS / 1000} s), timed from Node; runs slower than ${SLOW_MS / 1000} s are not repeated`,
      ...(unfinished
        ? [
            `NOT FINISHED: stopped after ${(unfinished.runMs / 1000).toFixed(1)} s with ${unfinished.done.toLocaleString("en")} of ${ITEMS.toLocaleString("en")} results; the time and ratio below are lower bounds`,
          ]
        : []),
    ].join("\n"),
  );
  report.timing(
    "POST /v1/jobs (estimate, billing, create; HTTP)",
    jobs.map((j) => j.createMs),
  );
  const job = report.timing(
    `runJobs to the end (real runner, zero-latency engine)${unfinished ? " ≥" : ""}`,
    jobs.map((j) => j.runMs),
  );
  const floor = report.timing(`floor: ${ITEMS.toLocaleString("en")} INSERTs into results, one transactionSync`, floorOne);
  const sliced = report.timing(`floor: the same in transactions of ${SLICE.toLocaleString("en")} (as this job's slices)`, floorSliced);
  // Each turn of the event loop commits the storage's implicit transaction: every page the rows touched since the last one
  // is written again (the results' indexes spread a commit's rows over many pages), a cost a job that lets requests in pays.
  const turned = report.timing(`floor: in commits of ${COMMIT}, a turn of the event loop after each`, floorTurns);
  const last = jobs[jobs.length - 1];
  report.figure(
    "job throughput",
    unfinished
      ? `${perSecond(last.done, last.runMs)} results/s over the ${(last.runMs / 1000).toFixed(0)} s it ran (${perSecond(last.done / LANGUAGES.length, last.runMs)} segments/s)`
      : `${perSecond(ITEMS, job)} results/s = ${perSecond(SEGMENTS, job)} segments/s (each into ${LANGUAGES.length} languages)`,
  );
  report.figure("job throughput as it progresses (last run)", `results/s: ${rates(last.steps)}`);
  // How much of the job's wall time the runtime worked (the rest it waited: timers of the runner's turns, D1's answers).
  const cpu = jobs.filter((j) => j.cpuMs !== null);
  if (cpu.length) {
    const busy = median(cpu.map((j) => j.cpuMs / j.runMs));
    report.figure(
      "job CPU (workerd, user + system, from /proc)",
      `${Math.round(median(cpu.map((j) => j.cpuMs))).toLocaleString("en")} ms, ${Math.round(busy * 100)} % of the job's wall time (median of ${cpu.length})`,
    );
  }
  report.figure("floor throughput", `${perSecond(ITEMS, floor)} rows/s`);
  report.ratio(`job / floor${unfinished ? " (lower bound)" : ""}`, job, floor);
  report.ratio(`job / floor in slices of ${SLICE.toLocaleString("en")}${unfinished ? " (lower bound)" : ""}`, job, sliced);
  // The goal: against the floor that answers (a job must let requests in between its commits, and on this runtime only a
  // timer does, at about 1.1 ms a turn: docs/decisions.md, "Answering while a job works").
  report.ratio(`job / floor in commits of ${COMMIT} with turns${unfinished ? " (lower bound)" : ""}`, job, turned, 3, { moonshot: 2 });
  return [report];
}
