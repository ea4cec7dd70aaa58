/**
 * i (part 2). A delta job over 20,000 segments (400 units × 50, one language) with engine
 * context on (each text sent with its unit's label, path and neighbours, read per unit once for
 * the job's languages: src/site/jobs/neighbours.ts, UnitContexts) against the same job with context off (RunnerDeps.engineContext = false), real
 * runJobs, zero-latency engine (it accepts the contextual request and counts the texts that
 * came with context, so a run that sent none, or one that should not have sent any, fails).
 * Each run: a fresh site seeded in bulk, the job created through POST /v1/jobs, then
 * BenchSiteObject.runJob() from Node in steps of STEP_MS until done. On and off alternate,
 * round after round, so load from elsewhere falls on both alike. Part 1 (the fuzzy look-up)
 * is a scenario of its own.
 */
import { call, createSite } from "../client.mjs";
import { Report, time } from "../measure.mjs";

const LANGUAGES = ["de"];
const SEGMENTS_PER_UNIT = 50;
const UNITS = 400;
const SEGMENTS = UNITS * SEGMENTS_PER_UNIT;
const STEP_MS = 2_000;

/** One job on a fresh site, context on or off: its run time (sum of the steps). */
async function jobOnce(rt, units, context) {
  const items = units * SEGMENTS_PER_UNIT * LANGUAGES.length;
  const site = await createSite(rt.mf, { languages: LANGUAGES });
  const stub = rt.site(site.id);
  await stub.seed({ prefix: "post:", units, segmentsPerUnit: SEGMENTS_PER_UNIT, translations: "none" });
  const created = await call(rt.mf, "POST", "/v1/jobs", { key: site.key, body: { type: "delta", confirm: true } });
  if (created.estimated_segments !== items) throw new Error(`job estimate: ${JSON.stringify(created)}`);
  let elapsed = 0;
  let contextual = 0;
  let job;
  do {
    const step = await time(() => stub.runJob(STEP_MS, context));
    job = step.value;
    elapsed += step.ms;
    contextual += job.contextual;
  } while (job.status === "running" || job.status === "queued");
  if (job.status !== "succeeded" || job.done_segments !== items) throw new Error(`job: ${JSON.stringify(job)}`);
  // Every text sent with context when on (the seeded texts are distinct), none when off.
  if (context ? contextual !== items : contextual !== 0) throw new Error(`context ${context ? "on" : "off"}: ${contextual} of ${items} texts came with context`);
  return elapsed;
}

/** The context read alone: a slice's worth (SLICE texts) read REPEAT times in the object, per slice. */
const SLICE = 1_000;
const REPEAT = 50;
async function contextReadOnce(rt) {
  const site = await createSite(rt.mf, { languages: LANGUAGES });
  const stub = rt.site(site.id);
  await stub.seed({ prefix: "post:", units: SLICE / SEGMENTS_PER_UNIT, segmentsPerUnit: SEGMENTS_PER_UNIT, translations: "none" });
  await stub.contextRead(SLICE, 2); // warm-up
  const { ms, value } = await time(() => stub.contextRead(SLICE, REPEAT));
  if (value !== SLICE) throw new Error(`context read made ${value} of ${SLICE} contexts`);
  return ms / REPEAT;
}

export async function contextScenario(rt, { runs }) {
  // Warm-up: compiles both code paths.
  await jobOnce(rt, 20, true);
  await jobOnce(rt, 20, false);
  const on = [];
  const off = [];
  for (let i = 0; i < runs; i++) {
    // Alternating which goes first, so neither always meets a warmer or colder machine.
    if (i % 2 === 0) {
      on.push(await jobOnce(rt, UNITS, true));
      off.push(await jobOnce(rt, UNITS, false));
    } else {
      off.push(await jobOnce(rt, UNITS, false));
      on.push(await jobOnce(rt, UNITS, true));
    }
  }
  const report = new Report(
    `i. Context for engines: delta job over ${SEGMENTS.toLocaleString("en")} segments (${UNITS} units × ${SEGMENTS_PER_UNIT}), one language, zero-latency engine; a fresh site per run`,
    [
      "context on: each text sent with its unit's label, path and up to 2 neighbours on each side (each unit read once, two queries per slice)",
      "context off: the same job with RunnerDeps.engineContext = false",
      `the job runs in steps of runJobs(budget ${STEP_MS / 1000} s), timed from Node; on and off alternate`,
    ].join("\n"),
  );
  const reads = [];
  for (let i = 0; i < runs; i++) reads.push(await contextReadOnce(rt));
  const onMs = report.timing("runJobs to the end, context on", on);
  const offMs = report.timing("runJobs to the end, context off", off);
  const readMs = report.timing(`the context read alone, per slice of ${SLICE.toLocaleString("en")} texts (${REPEAT} reads timed together)`, reads);
  const slices = SEGMENTS / SLICE;
  report.figure(
    "what the context read adds to the job",
    `${slices} slices × ${readMs.toFixed(2)} ms = ${(slices * readMs).toFixed(0)} ms, ${((100 * slices * readMs) / offMs).toFixed(1)} % of the job without context (steadier than the ratio of two noisy jobs)`,
  );
  report.ratio("job with context / without", onMs, offMs, 1.2);
  return [report];
}
