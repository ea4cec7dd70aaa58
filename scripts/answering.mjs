#!/usr/bin/env node
/**
 * `node scripts/answering.mjs [--url URL] [--segments 50000]`: the black-box measurements of
 * "always answering" (issue 19) against `wrangler dev --local`, as a connector sees them. Prints
 * figures (not a test); exit code 0 when every goal is met, 1 otherwise.
 *
 * A site (en → de, fr, the offline pseudo engine without latency) gets 50,000 segments
 * (1,000 units × 50, pushed in batches of 100 units), then a delta job over all of them:
 * 100,000 items of CPU-bound work (the pseudo engine answers at once). While it runs:
 *   - `GET /v1/status` and `PUT /v1/units` (a unit of 5 segments, one text changed each time)
 *     are timed, one call every 100 ms, for 20 s (goals: p99 < 300 ms and < 500 ms);
 *   - a second job is requested (it queues behind the first) and cancelled (goal: answered
 *     `cancelled` in < 1 s, whatever the running job is doing);
 *   - the running job is cancelled (goal: answered `cancelled` in < 1 s), then its progress is
 *     read for 3 s: no commit may land later than 1 s after the answer.
 * The same status and push calls on the idle site (before the job) are printed beside them.
 *
 * Server: without --url it starts its own `wrangler dev --local` with a fresh state directory,
 * as `npm run load` does (scripts/load.mjs), and stops it at the end.
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { createTransyncClient } from "@transync/client";
import { loopbackUrl, percentile, startServer, waitForHealth } from "./load.mjs";
import { bold, dim, ensureDevVars, green, ROOT, readDevVars, red, rel } from "./seed.mjs";

const args = process.argv.slice(2);
const arg = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const SEGMENTS = Number(arg("--segments", 50_000));
const SEGMENTS_PER_UNIT = 50;
const UNITS = Math.ceil(SEGMENTS / SEGMENTS_PER_UNIT);
const LANGUAGES = ["de", "fr"];
const PROBE_EVERY_MS = 100;
const PROBE_FOR_MS = 20_000;
const GOALS = { status: 300, push: 500, cancel: 1_000 };

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function main() {
  let server;
  let baseUrl;
  let adminToken;
  const url = arg("--url");
  if (url) {
    baseUrl = loopbackUrl(url);
    adminToken = process.env.ADMIN_TOKEN ?? readDevVars().ADMIN_TOKEN;
    if (!(await waitForHealth(baseUrl, 5_000))) throw new Error(`no service answers GET ${baseUrl}/v1/health`);
  } else {
    ensureDevVars();
    adminToken = readDevVars().ADMIN_TOKEN;
    const runDir = join(ROOT, ".wrangler", "answering", Date.now().toString(36));
    console.log(dim(`starting wrangler dev --local with a fresh state in ${rel(runDir)} …`));
    server = await startServer(runDir);
    baseUrl = server.baseUrl;
  }
  try {
    return await measure(baseUrl, adminToken);
  } finally {
    if (server) {
      await server.stop();
      rmSync(server.persist, { recursive: true, force: true });
    }
  }
}

/** One call through the generated client, timed; throws on an answer outside 2xx. */
async function timed(api, method, path, body) {
  const started = performance.now();
  const res = await api.request(method, path, { body });
  const ms = performance.now() - started;
  if (res.response.status < 200 || res.response.status > 299) throw new Error(`${method} ${path}: ${res.response.status} ${JSON.stringify(res.error)}`);
  return { ms, body: res.data };
}

async function measure(baseUrl, adminToken) {
  const admin = createTransyncClient({ baseUrl, key: adminToken });
  const org = (await timed(admin, "POST", "/admin/v1/organizations", { name: "Answering org" })).body;
  const site = (
    await timed(admin, "POST", "/admin/v1/sites", {
      organization_id: org.id,
      name: "Answering site",
      source_language: "en",
      target_languages: LANGUAGES.map((code) => ({ code, engine: "pseudo" })),
    })
  ).body;
  await timed(admin, "PUT", `/admin/v1/organizations/${org.id}/subscription`, { plan: "scale", status: "active", site_ids: [site.id] });
  const { key } = (await timed(admin, "POST", `/admin/v1/sites/${site.id}/keys`, { name: "answering" })).body;
  const api = createTransyncClient({ baseUrl, key });
  await timed(api, "POST", "/v1/handshake", { connector_version: "answering/1.0", source_language: "en", languages: LANGUAGES, adapters: ["wordpress"] });

  // 50,000 segments in batches of 100 units (one after another, as the contract asks).
  const pushStarted = performance.now();
  for (let from = 0; from < UNITS; from += 100) {
    const units = [];
    for (let u = from; u < Math.min(UNITS, from + 100); u++)
      units.push({
        external_key: `post:${String(u).padStart(6, "0")}`,
        adapter: "wordpress",
        segments: Array.from({ length: SEGMENTS_PER_UNIT }, (_, s) => ({ key: `field_${s}`, text: `Paragraph ${s} of post ${u}: the quick brown fox jumps over the lazy dog.` })),
      });
    const res = await timed(api, "PUT", "/v1/units/batch", { units });
    if (res.body.results.some((r) => !r.ok)) throw new Error("a unit of the batch was refused");
  }
  console.log(dim(`site ${site.id}: ${SEGMENTS.toLocaleString("en")} segments pushed in ${((performance.now() - pushStarted) / 1000).toFixed(1)} s`));

  let version = 0;
  const probeUnit = () => ({
    external_key: "probe:1",
    adapter: "wordpress",
    segments: Array.from({ length: 5 }, (_, i) => ({ key: `s${i}`, text: i === 0 ? `Probe text, version ${++version}` : `Probe text ${i}` })),
  });
  /** Status and push in turn, one call every PROBE_EVERY_MS, while `going()` and for at most `forMs`. */
  async function probe(forMs, going = () => true) {
    const times = { status: [], push: [] };
    const until = performance.now() + forMs;
    while (performance.now() < until && going()) {
      for (const [name, call] of [
        ["status", () => timed(api, "GET", "/v1/status")],
        ["push", () => timed(api, "PUT", "/v1/units", probeUnit())],
      ]) {
        const { ms } = await call();
        times[name].push(ms);
        if (ms < PROBE_EVERY_MS) await sleep(PROBE_EVERY_MS - ms);
      }
    }
    return times;
  }
  const idle = await probe(3_000);

  // The job: 100,000 items (pseudo engine, no latency: CPU all the way).
  const job = (await timed(api, "POST", "/v1/jobs", { type: "delta", confirm: true, languages: LANGUAGES })).body;
  let seen = job;
  const jobPath = `/v1/jobs/${job.id}`;
  const waitStarted = performance.now();
  while (seen.status === "queued" || (seen.status === "running" && seen.done_segments === 0)) {
    if (performance.now() - waitStarted > 120_000) throw new Error(`job ${job.id} did not start working within 120 s`);
    await sleep(50);
    seen = (await timed(api, "GET", jobPath)).body;
  }
  if (seen.status !== "running") throw new Error(`job ${job.id} is ${seen.status} before the measurements (too small a job for this machine?)`);
  console.log(dim(`job ${job.id}: ${job.estimated_segments.toLocaleString("en")} items, running`));
  // Probe until the job is 70 % done (or PROBE_FOR_MS passed), so that it is still running when it
  // is cancelled below: on an idle machine a 100,000-item job can end within the probing time.
  let done = seen.done_segments;
  let watching = true;
  const watch = (async () => {
    while (watching) {
      done = (await timed(api, "GET", jobPath)).body.done_segments;
      await sleep(250);
    }
  })();
  const during = await probe(PROBE_FOR_MS, () => done < 0.7 * job.estimated_segments);
  watching = false;
  await watch;
  const beforeQueue = (await timed(api, "GET", jobPath)).body;

  // A second job queues behind the first; cancelling it must not wait for the first.
  const queued = (await timed(api, "POST", "/v1/jobs", { type: "delta", confirm: true, languages: ["de"] })).body;
  const cancelQueued = await timed(api, "POST", `/v1/jobs/${queued.id}/cancel`);
  // Then the running one.
  const cancelRunning = await timed(api, "POST", `${jobPath}/cancel`);
  const cancelledAt = performance.now();
  const afterCancel = [];
  while (performance.now() - cancelledAt < 3_000) {
    await sleep(250);
    const j = (await timed(api, "GET", jobPath)).body;
    afterCancel.push({ at: performance.now() - cancelledAt, done: j.done_segments, status: j.status });
  }
  const landedLate = afterCancel.filter((p) => p.at > 1_000 && p.done !== afterCancel.find((q) => q.at > 1_000)?.done);
  const firstAfterSecond = afterCancel.find((p) => p.at > 1_000);
  const lastDone = afterCancel[afterCancel.length - 1].done;
  // Billing equals what is stored: the cancelled job's characters are the month's usage of this fresh site (its ledger rows
  // reach D1 behind its commits, and the runner settles the job once they have).
  const cancelled = (await timed(api, "GET", jobPath)).body;
  const usage = (await timed(api, "GET", "/v1/usage")).body;

  const fmt = (ms) => `${ms.toFixed(0)} ms`;
  const line = (label, xs) =>
    `${label.padEnd(28)} n=${String(xs.length).padStart(3)}  p50 ${fmt(
      percentile(
        [...xs].sort((a, b) => a - b),
        50,
      ),
    ).padStart(7)}  p99 ${fmt(
      percentile(
        [...xs].sort((a, b) => a - b),
        99,
      ),
    ).padStart(7)}  max ${fmt(Math.max(...xs)).padStart(7)}`;
  console.log(`\n${bold("Answering while a job works")} (${baseUrl}; job of ${job.estimated_segments.toLocaleString("en")} items, pseudo engine without latency)`);
  console.log(`  ${line("GET /v1/status, idle", idle.status)}`);
  console.log(`  ${line("GET /v1/status, during", during.status)}`);
  console.log(`  ${line("PUT /v1/units, idle", idle.push)}`);
  console.log(`  ${line("PUT /v1/units, during", during.push)}`);
  console.log(
    `  job progress while probed: ${beforeQueue.done_segments.toLocaleString("en")} of ${job.estimated_segments.toLocaleString("en")} done when the probes ended (${beforeQueue.status})`,
  );
  console.log(`  cancel of a queued job (behind the running one): ${fmt(cancelQueued.ms)}, answered ${cancelQueued.body.status}`);
  console.log(`  cancel of the running job: ${fmt(cancelRunning.ms)}, answered ${cancelRunning.body.status} with ${cancelRunning.body.done_segments.toLocaleString("en")} done`);
  console.log(`  after the cancel: ${afterCancel.map((p) => `${(p.at / 1000).toFixed(2)} s ${p.done}`).join(", ")}`);
  console.log(`  billed: the cancelled job ${cancelled.characters.toLocaleString("en")} characters, the month's usage ${usage.used_characters.toLocaleString("en")}`);

  const p99 = (xs) =>
    percentile(
      [...xs].sort((a, b) => a - b),
      99,
    );
  const checks = [
    [`GET /v1/status p99 during the job < ${GOALS.status} ms`, p99(during.status) < GOALS.status],
    [`PUT /v1/units p99 during the job < ${GOALS.push} ms`, p99(during.push) < GOALS.push],
    [`cancel of the running job answered in < ${GOALS.cancel} ms, cancelled`, cancelRunning.ms < GOALS.cancel && cancelRunning.body.status === "cancelled"],
    [`cancel of a queued job answered in < ${GOALS.cancel} ms, cancelled`, cancelQueued.ms < GOALS.cancel && cancelQueued.body.status === "cancelled"],
    [`no commit later than ${GOALS.cancel} ms after the cancel`, !!firstAfterSecond && landedLate.length === 0 && lastDone === firstAfterSecond.done],
    ["the month's usage equals the cancelled job's characters", cancelled.characters > 0 && usage.used_characters === cancelled.characters],
  ];
  for (const [label, ok] of checks) console.log(`  ${ok ? green("PASS") : red("FAIL")}  ${label}`);
  return checks.every(([, ok]) => ok) ? 0 : 1;
}

process.exitCode = await main().catch((err) => {
  console.error(red(`answering: ${err?.stack ?? err}`));
  return 1;
});
