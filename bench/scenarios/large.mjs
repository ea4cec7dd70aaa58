/**
 * g. Large scopes: a site of 1,000,000 segments × 10 languages (every pair missing). Times the
 *    estimate of a delta job over the whole site (object side, what POST /v1/jobs runs in the
 *    site object), POST /v1/jobs with estimate_only through HTTP, and the job's start in real
 *    alarm invocations of the runner (no slice): the first one (estimate again, subscription check,
 *    reservation, then fixing items in chunks for its 10 s budget) and the ones after it, until
 *    the whole scope (10,000,000 items) is fixed. Each must stay inside one invocation's CPU
 *    limit (30 s by default). BENCH_G_SEGMENTS changes the size.
 */
import { call, createSite } from "../client.mjs";
import { Report, time } from "../measure.mjs";

const LANGUAGES = ["de", "fr", "es", "it", "nl", "pt", "pl", "sv", "da", "fi"];
const SEGMENTS = Number(process.env.BENCH_G_SEGMENTS ?? 1_000_000);
const SEGMENTS_PER_UNIT = 50;
const UNITS = Math.ceil(SEGMENTS / SEGMENTS_PER_UNIT);
const BUDGET_MS = 10_000;
const CPU_LIMIT_MS = 30_000;

export async function largeScenario(rt) {
  const site = await createSite(rt.mf, { languages: LANGUAGES });
  const stub = rt.site(site.id);
  const seeded = await time(async () => {
    // Seeded in parts: one transaction per 2,000 units keeps the seeding itself bounded.
    for (let u = 0; u < UNITS; u += 2_000)
      await stub.seed({ prefix: `post:${String(u).padStart(6, "0")}:`, units: Math.min(2_000, UNITS - u), segmentsPerUnit: SEGMENTS_PER_UNIT, translations: "none" });
  });
  const items = UNITS * SEGMENTS_PER_UNIT * LANGUAGES.length;

  const estimate = await time(() => stub.estimateAll());
  if (estimate.value.estimated_segments !== items) throw new Error(`estimate: ${JSON.stringify(estimate.value)}`);
  const http = await time(() => call(rt.mf, "POST", "/v1/jobs", { key: site.key, body: { type: "delta", estimate_only: true } }));
  await call(rt.mf, "POST", "/v1/jobs", { key: site.key, body: { type: "delta", confirm: true } });

  const steps = [];
  let state;
  do {
    const step = await time(() => stub.startStep(BUDGET_MS));
    state = { ...step.value, items: await stub.jobItems(step.value.id) };
    steps.push({ ms: step.ms, items: state.items });
    if (steps.length > 200) throw new Error("the scope was not fixed after 200 invocations");
  } while (state.scope_cursor !== null || state.status === "queued");
  if (state.items !== items) throw new Error(`fixed ${state.items} of ${items} items`);

  const report = new Report(
    `g. Large scope: ${(UNITS * SEGMENTS_PER_UNIT).toLocaleString("en")} segments × ${LANGUAGES.length} languages (${items.toLocaleString("en")} items), every pair missing`,
    [
      `seeded in ${(seeded.ms / 1000).toFixed(1)} s (bulk SQL, not timed below)`,
      `start = real runJobs invocations with no slice (budget ${BUDGET_MS / 1000} s each): estimate, subscription check and reservation, then items fixed in chunks`,
      `inside workerd the wall time of synchronous SQLite is its CPU time; limit per invocation ${CPU_LIMIT_MS / 1000} s (default)`,
    ].join("\n"),
  );
  report.timing("estimate over the whole scope (object side)", [estimate.ms]);
  report.timing("POST /v1/jobs estimate_only (HTTP, D1 cost check)", [http.ms]);
  report.timing("first invocation: start + first chunks", [steps[0].ms]);
  report.timing(
    "each later invocation (fixing chunks)",
    steps.slice(1).map((s) => s.ms),
  );
  report.figure("invocations until the scope is fixed", `${steps.length} (${items.toLocaleString("en")} items)`);
  report.ratio("estimate / CPU limit", estimate.ms, CPU_LIMIT_MS, 1);
  report.ratio("slowest invocation / CPU limit", Math.max(...steps.map((s) => s.ms)), CPU_LIMIT_MS, 1);
  return [report];
}
