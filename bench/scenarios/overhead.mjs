/**
 * 0. What the harness itself costs: an empty RPC and HTTP round trips (context for the tables
 *    below). Then what a turn of the event loop costs the job runner, and which waits let a
 *    request in (docs/decisions.md, "Answering while a job works"): TURNS turns of each kind after no work
 *    and after a busy loop of about a ms each (less the loop's own time), timed from Node (less
 *    one RPC round trip); and a ping sent to the object 50 ms into a run of 1,000 such rounds,
 *    answered at once where the wait lets it in and only at the run's end where it does not.
 */
import { performance } from "node:perf_hooks";
import { call, createSite } from "../client.mjs";
import { median, Report, sample, time } from "../measure.mjs";

const TURNS = 300;
/** Busy-loop iterations of about 1 ms here (FloorObject.turns). */
const SPIN = 100_000;
const KINDS = { settled: "a settled promise", wait: "the runner's turn (nextTurn: scheduler.wait(0))", timeout: "setTimeout(0)", immediate: "setImmediate" };

export async function overheadScenario(rt, { runs }) {
  const floor = rt.floor("overhead");
  const site = await createSite(rt.mf, { languages: ["de", "fr", "es"] });
  const report = new Report("0. Harness overheads (no goal: context for the figures below)");
  report.timing("RPC round trip Node → FloorObject.ping()", await sample(() => floor.ping(), { runs, warmup: 3 }));
  report.timing("GET /v1/health (HTTP, no key, no object)", await sample(() => call(rt.mf, "GET", "/v1/health"), { runs, warmup: 3 }));
  report.timing("GET /v1/site (HTTP, key lookup in D1, one object RPC)", await sample(() => call(rt.mf, "GET", "/v1/site", { key: site.key }), { runs, warmup: 3 }));

  const turns = new Report(`0b. A turn of the event loop in the object (${TURNS} turns a run), and whether a request gets in meanwhile`);
  const rtt = median(await sample(() => floor.ping(), { runs, warmup: 3 }));
  await floor.turns("wait", 50, SPIN); // warm-up: compiles the loop
  const perRound = async (kind, spin) => (median(await sample(() => floor.turns(kind, TURNS, spin), { runs: 3 })) - rtt) / TURNS;
  const work = await perRound("settled", SPIN);
  turns.figure("the busy loop alone (a settled promise after each round)", `${work.toFixed(3)} ms a round`);
  for (const [kind, label] of Object.entries(KINDS)) {
    const bare = await perRound(kind, 0);
    const busy = await perRound(kind, SPIN);
    const began = performance.now();
    const run = floor.turns(kind, 1_000, SPIN);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const ping = await time(() => floor.ping());
    await run;
    const took = performance.now() - began;
    turns.figure(
      label,
      `a turn costs ${bare.toFixed(3)} ms after no work, ${(busy - work).toFixed(3)} ms after the loop; a ping 50 ms into a run of 1,000 rounds (${took.toFixed(0)} ms): ${ping.ms.toFixed(1)} ms, ${ping.ms < took / 4 ? "let in" : "kept out until the run ended"}`,
    );
  }
  return [report, turns];
}
