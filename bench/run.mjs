/**
 * npm run bench: performance figures for the push, status, job and delivery paths, measured
 * from Node against the bench Worker in Miniflare (see bench/README.md). Prints tables of raw
 * times, floors or baselines, ratios and goals; asserts nothing about timing.
 *
 *   npm run bench              every scenario
 *   npm run bench -- a c       only scenarios a and c (b runs with a)
 *   npm run bench -- j         hostile JSON shapes, single and batch
 *   BENCH_RUNS=9 npm run bench more runs for the slow scenarios (default 5; fast reads take 4×)
 *   BENCH_JOB_CAP_S=0 npm run bench -- d   let scenario d's job run to the end (default cap 40 s)
 *   npm run bench -- h         answering while a 100,000-item job works (each endpoint's p99 over at least 300 calls)
 *   npm run bench -- i         memory and context: fuzzy look-up of a 250-text slice against 100,000 entries (part 1);
 *                              a 20,000-segment job with context on against off (part 2)
 *   npm run bench -- k         long segments (100,000 characters) through protect, restore and QA, in Node
 */
import os from "node:os";
import { performance } from "node:perf_hooks";
import { moonshotText } from "./measure.mjs";
import { startRuntime } from "./runtime.mjs";
import { answeringScenario } from "./scenarios/answering.mjs";
import { hostileScenario } from "./scenarios/hostile.mjs";
import { contextScenario } from "./scenarios/i-context.mjs";
import { jobScenario } from "./scenarios/job.mjs";
import { markupScenario } from "./scenarios/k-markup.mjs";
import { largeScenario } from "./scenarios/large.mjs";
import { latencyScenario } from "./scenarios/latency.mjs";
import { memoryScenario } from "./scenarios/memory.mjs";
import { overheadScenario } from "./scenarios/overhead.mjs";
import { pushScenarios } from "./scenarios/push.mjs";
import { resultsScenario } from "./scenarios/results.mjs";
import { statusScenario } from "./scenarios/status.mjs";

const runs = Number(process.env.BENCH_RUNS ?? 5);
const wanted = new Set(process.argv.slice(2).map((a) => a.toLowerCase()));
const want = (...ids) => wanted.size === 0 || ids.some((id) => wanted.has(id));

const started = performance.now();
console.log(`transync bench: Node ${process.version}, ${os.cpus().length} × ${os.cpus()[0]?.model ?? "cpu"}, ${runs} runs per slow operation`);
const rt = await startRuntime();
console.log(`Miniflare ready in ${((performance.now() - started) / 1000).toFixed(1)} s (Worker bundle built with esbuild, D1 migrated)`);

const reports = [];
const show = (list) => {
  for (const r of list) {
    r.print();
    reports.push(r);
  }
};
try {
  if (want("0")) show(await overheadScenario(rt, { runs: runs * 4 }));
  if (want("a", "b")) show(await pushScenarios(rt, { runs }));
  if (want("c")) show(await statusScenario(rt, { runs: runs * 4 }));
  if (want("d")) show(await jobScenario(rt, { runs }));
  if (want("e")) show(await resultsScenario(rt, { runs: runs * 4 }));
  if (want("f")) show(await latencyScenario(rt));
  if (want("g")) show(await largeScenario(rt));
  if (want("h")) show(await answeringScenario(rt, { runs }));
  if (want("i")) {
    show(await memoryScenario(rt, { runs }));
    show(await contextScenario(rt, { runs }));
  }
  if (want("j")) show(await hostileScenario(rt));
  if (want("k")) show(await markupScenario({ runs: Math.min(runs, 3) }));
} finally {
  await rt.dispose();
}

const verdicts = reports.flatMap((r) => r.verdicts());
console.log(`\nSummary (goals)`);
for (const v of verdicts)
  console.log(
    `  ${v.verdict.padEnd(5)} ${v.scenario.slice(0, 2).padEnd(3)} ${v.label.padEnd(62)} ${`${v.value.toFixed(2)}×`.padStart(8)}  goal ≤ ${v.goal}×${v.moonshot === undefined ? "" : `, moonshot ${moonshotText(v)}`}`,
  );
console.log(`\nTotal ${((performance.now() - started) / 1000).toFixed(1)} s`);
