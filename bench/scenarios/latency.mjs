/**
 * f. A delta job over 20,000 segments × 3 languages against the pseudo engine waiting 200 ms
 *    per request of up to 50 texts (as PSEUDO_LATENCY_MS=200 makes it): the real runJobs with
 *    engine requests running concurrently. Printed against the serial time (every request one
 *    after another) and the ideal for the configured concurrency (requests / concurrency
 *    rounds of 200 ms); goal: within 1.5× of the ideal.
 */
import { call, createSite } from "../client.mjs";
import { Report, time } from "../measure.mjs";

const LANGUAGES = ["de", "fr", "es"];
const UNITS = 400;
const SEGMENTS_PER_UNIT = 50;
const ITEMS = UNITS * SEGMENTS_PER_UNIT * LANGUAGES.length;
const LATENCY_MS = 200;
const TEXTS_PER_REQUEST = 50;
/** The pseudo engine's default concurrency (docs/decisions.md "Constants"); ENGINE_CONCURRENCY_PSEUDO changes it. */
const CONCURRENCY = Number(process.env.ENGINE_CONCURRENCY_PSEUDO ?? 8);

export async function latencyScenario(rt) {
  const site = await createSite(rt.mf, { languages: LANGUAGES });
  const stub = rt.site(site.id);
  await stub.seed({ prefix: "post:", units: UNITS, segmentsPerUnit: SEGMENTS_PER_UNIT, translations: "none" });
  const created = await call(rt.mf, "POST", "/v1/jobs", { key: site.key, body: { type: "delta", confirm: true } });
  if (created.estimated_segments !== ITEMS) throw new Error(`job estimate: ${JSON.stringify(created)}`);
  // Invocations as the alarm runs them (each ends at its budgets and the next one goes on).
  const run = await time(async () => {
    let job;
    let invocations = 0;
    do {
      job = await stub.runJobWithLatency(LATENCY_MS, 10_000);
      invocations++;
    } while (job.status === "running" && invocations < 1_000);
    return { ...job, invocations };
  });
  const job = run.value;
  if (job.status !== "succeeded" || job.done_segments !== ITEMS) throw new Error(`job: ${JSON.stringify(job)}`);

  // Slices of 250 items in batches of 50: every request carries 50 texts.
  const requests = Math.ceil(ITEMS / TEXTS_PER_REQUEST);
  const serial = requests * LATENCY_MS;
  const ideal = Math.ceil(requests / CONCURRENCY) * LATENCY_MS;
  const report = new Report(
    `f. Delta job: ${(UNITS * SEGMENTS_PER_UNIT).toLocaleString("en")} segments × ${LANGUAGES.length} languages, pseudo engine at ${LATENCY_MS} ms per request of ${TEXTS_PER_REQUEST} texts (PSEUDO_LATENCY_MS)`,
    [
      `${requests.toLocaleString("en")} engine requests; engine concurrency ${CONCURRENCY} (ENGINE_CONCURRENCY_PSEUDO${process.env.ENGINE_CONCURRENCY_PSEUDO ? "" : ", default"})`,
      `serial = ${requests} × ${LATENCY_MS} ms; ideal = ⌈${requests} / ${CONCURRENCY}⌉ × ${LATENCY_MS} ms (nothing but waiting, perfectly packed)`,
      `one run, the real runJobs to the end in ${job.invocations} invocations (budget 10 s each), timed from Node; ${job.slices} commits`,
    ].join("\n"),
  );
  const wall = report.timing("runJobs to the end (real runner, real pseudo engine with latency)", [run.ms]);
  report.figure("serial (every request after the other)", `${(serial / 1000).toFixed(1)} s`);
  report.figure(`ideal at concurrency ${CONCURRENCY}`, `${(ideal / 1000).toFixed(1)} s`);
  report.figure("throughput", `${Math.round(ITEMS / (wall / 1000)).toLocaleString("en")} results/s`);
  report.ratio("wall / serial", wall, serial);
  report.ratio(`wall / ideal (concurrency ${CONCURRENCY})`, wall, ideal, 1.5);
  return [report];
}
