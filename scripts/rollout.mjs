#!/usr/bin/env node
/**
 * `npm run deploy -- --env staging|production`: the gradual rollout of docs/ops/deploy.md, as the
 * deploy workflow runs it (.github/workflows/deploy.yml) and as an operator can from a laptop.
 *
 *   1. The current deployment (`wrangler deployments status --json`): one version at 100 %, or stop.
 *   2. Upload the new version (`wrangler versions upload`; its id from wrangler's output file). A
 *      refused upload stops here and says why: never a fallback to a full deploy. A pending Durable
 *      Object migration exits 3: that release takes the migration path (below), by hand.
 *   3. Split: `wrangler versions deploy <new>@10% <current>@90%` (the shares must add up to 100).
 *   4. Smoke test pinned to the new version (scripts/smoke.mjs `--version`: every request carries
 *      `Cloudflare-Workers-Version-Overrides: <worker>="<new>"`).
 *   5. Watch: the new version's 5xx rate from Analytics Engine (the `http.request` points, blob5 =
 *      version), every --interval seconds for --watch seconds.
 *   6. `wrangler versions deploy <new>@100%`.
 *   Any failure after the split goes back: `wrangler versions deploy <current>@100%`.
 *
 * `--durable-object-migration`: the other path, for a release that adds a Durable Object class or
 * migration (`[[migrations]]`), which versions cannot carry: a plain `wrangler deploy` (all traffic
 * at once, in a quiet hour), then the smoke test. It cannot be rolled back across the migration.
 *
 * Needs `wrangler` on PATH (npm run puts node_modules/.bin there), CLOUDFLARE_API_TOKEN and
 * CLOUDFLARE_ACCOUNT_ID (the watch reads the Analytics Engine SQL API with them: the token needs
 * Account Analytics Read), and for the smoke test TRANSYNC_KEY (the smoke site's key) and
 * ADMIN_TOKEN. Exit 0: rolled out; 1: failed (gone back when the split had happened); 2: usage;
 * 3: a Durable Object migration is pending, nothing changed.
 */
import { spawn } from "node:child_process";
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { parse } from "smol-toml";

const ROOT = join(import.meta.dirname, "..");
const NEW_SHARE = 10;

function usage(message) {
  if (message) console.error(`rollout: ${message}`);
  console.error(
    "usage: npm run deploy -- --env staging|production [--url https://<host>] [--tag <tag>] [--message <text>]\n" +
      "         [--watch <seconds>] [--interval <seconds>] [--max-error-rate 0.02] [--min-requests 50] [--no-watch] [--no-smoke]\n" +
      "       npm run deploy -- --env staging|production --durable-object-migration [--url https://<host>]",
  );
  process.exit(2);
}

function parseArgs(argv) {
  const opts = {
    env: undefined,
    url: undefined,
    tag: undefined,
    message: undefined,
    watch: undefined,
    interval: 60,
    maxErrorRate: 0.02,
    minRequests: 50,
    noWatch: false,
    noSmoke: false,
    migration: false,
  };
  const value = (i, name) => {
    const v = argv[i + 1];
    if (v === undefined || v.startsWith("--")) usage(`${name} needs a value`);
    return v;
  };
  const number = (v, name) => {
    const n = Number(v);
    if (!Number.isFinite(n) || n < 0) usage(`${name} must be a number of at least 0`);
    return n;
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--env") opts.env = value(i++, arg);
    else if (arg === "--url") opts.url = value(i++, arg);
    else if (arg === "--tag") opts.tag = value(i++, arg);
    else if (arg === "--message") opts.message = value(i++, arg);
    else if (arg === "--watch") opts.watch = number(value(i++, arg), arg);
    else if (arg === "--interval") opts.interval = number(value(i++, arg), arg);
    else if (arg === "--max-error-rate") opts.maxErrorRate = number(value(i++, arg), arg);
    else if (arg === "--min-requests") opts.minRequests = number(value(i++, arg), arg);
    else if (arg === "--no-watch") opts.noWatch = true;
    else if (arg === "--no-smoke") opts.noSmoke = true;
    else if (arg === "--durable-object-migration") opts.migration = true;
    else usage(`unknown argument ${arg}`);
  }
  if (!opts.env) usage("--env is required: a deploy always names its environment (staging or production)");
  return opts;
}

/** The environment's Worker name and Analytics Engine dataset, from wrangler.toml. */
function environment(name) {
  const config = parse(readFileSync(join(ROOT, "wrangler.toml"), "utf8"));
  const env = config.env?.[name];
  if (!env) usage(`--env ${name}: wrangler.toml has no [env.${name}] (it has ${Object.keys(config.env ?? {}).join(", ")})`);
  return { name, worker: env.name, dataset: env.analytics_engine_datasets?.[0]?.dataset };
}

class Stop extends Error {
  constructor(message, code = 1) {
    super(message);
    this.code = code;
  }
}

const say = (line) => console.log(`rollout: ${line}`);

/** Runs `wrangler …` (from PATH) with its output file; answers the exit code, the output and wrangler's output-file entries. */
function wrangler(args, { quiet = false } = {}) {
  const dir = mkdtempSync(join(tmpdir(), "rollout-"));
  const file = join(dir, "wrangler-output.json");
  return new Promise((resolve, reject) => {
    const child = spawn("wrangler", args, { env: { ...process.env, WRANGLER_OUTPUT_FILE_PATH: file, WRANGLER_SEND_METRICS: "false" }, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c) => {
      stdout += c;
      if (!quiet) process.stdout.write(c);
    });
    child.stderr.on("data", (c) => {
      stderr += c;
      process.stderr.write(c);
    });
    child.on("error", (err) =>
      reject(err.code === "ENOENT" ? new Stop("wrangler is not on PATH: run this through `npm run deploy -- --env …` (npm puts node_modules/.bin on PATH)") : err),
    );
    child.on("close", (code) => {
      let entries = [];
      try {
        entries = readFileSync(file, "utf8")
          .split("\n")
          .filter(Boolean)
          .map((line) => JSON.parse(line));
      } catch {
        // no output file (a wrangler that failed early)
      }
      rmSync(dir, { recursive: true, force: true });
      resolve({ code, stdout, stderr, entries });
    });
  });
}

const failure = (run) => run.entries.find((e) => e.type === "command-failed")?.message ?? run.stderr.trim().split("\n").slice(-3).join(" ");

/** The version serving 100 % now; a deployment split between versions stops the rollout. */
async function currentVersion(env) {
  const run = await wrangler(["deployments", "status", "--env", env.name, "--json"], { quiet: true });
  if (run.code !== 0) {
    const why = failure(run);
    if (/has no deployments/i.test(why))
      throw new Stop(
        `${env.worker} has no deployment yet: the first deploy creates the Durable Object classes (a migration), so it takes the migration path: npm run deploy -- --env ${env.name} --durable-object-migration`,
        3,
      );
    throw new Stop(`wrangler deployments status failed: ${why}`);
  }
  const deployment = JSON.parse(run.stdout);
  const versions = deployment.versions ?? [];
  if (versions.length !== 1 || versions[0].percentage !== 100) {
    const split = versions.map((v) => `${v.version_id}@${v.percentage}%`).join(" ");
    throw new Stop(
      `${env.worker} is split between versions (${split}): a rollout is under way or was left half-way. Finish it (npx wrangler versions deploy <version>@100% --env ${env.name} -y) or go back the same way, then deploy again.`,
    );
  }
  return versions[0].version_id;
}

/** Uploads the version; a refusal stops the rollout (a pending Durable Object migration with exit 3). */
async function upload(env, opts) {
  const args = ["versions", "upload", "--env", env.name];
  if (opts.tag) args.push("--tag", opts.tag);
  if (opts.message) args.push("--message", opts.message);
  const run = await wrangler(args);
  const entry = run.entries.find((e) => e.type === "version-upload");
  if (run.code === 0 && entry?.version_id) return entry.version_id;
  const why = failure(run);
  if (/Durable Object migration|migrations? must be applied|10211/i.test(why))
    throw new Stop(
      `versions upload refused: ${why}\nThis release carries a Durable Object migration, which a gradual deployment cannot: nothing was deployed. Take the migration path in a quiet hour (docs/ops/deploy.md "A release with a Durable Object migration"): run the deploy workflow by hand with durable_object_migration, or npm run deploy -- --env ${env.name} --durable-object-migration.`,
      3,
    );
  throw new Stop(`versions upload failed (nothing was deployed): ${why || `exit ${run.code}`}`);
}

async function deployVersions(env, traffic, message) {
  const run = await wrangler(["versions", "deploy", ...traffic.map(([id, share]) => `${id}@${share}%`), "--env", env.name, "--message", message, "-y"]);
  if (run.code !== 0) throw new Stop(`versions deploy ${traffic.map(([id, share]) => `${id}@${share}%`).join(" ")} failed: ${failure(run)}`);
}

/** Runs the smoke test (scripts/smoke.mjs, or SMOKE_SCRIPT), pinned to a version when given. */
function smoke(url, pin) {
  const script = process.env.SMOKE_SCRIPT ?? join(ROOT, "scripts/smoke.mjs");
  const args = [script, url, ...(pin ? ["--version", pin] : [])];
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { stdio: "inherit" });
    child.on("close", (code) => resolve(code === 0));
  });
}

/** The 5xx rate of each version's `http.request` points since `since` (Analytics Engine SQL API). */
async function errorRates(env, versions, since) {
  const base = (process.env.CLOUDFLARE_API_BASE_URL ?? "https://api.cloudflare.com/client/v4").replace(/\/+$/, "");
  const minutes = Math.max(1, Math.ceil((Date.now() - since) / 60_000));
  const sql = `SELECT blob5 AS version, SUM(_sample_interval) AS requests, SUM(IF(blob4 >= '500', _sample_interval, 0)) AS errors
FROM ${env.dataset}
WHERE blob1 = 'http.request' AND blob5 IN (${versions.map((v) => `'${v.replace(/[^0-9a-f-]/gi, "")}'`).join(", ")}) AND timestamp > NOW() - INTERVAL '${minutes}' MINUTE
GROUP BY version FORMAT JSON`;
  const res = await fetch(`${base}/accounts/${process.env.CLOUDFLARE_ACCOUNT_ID}/analytics_engine/sql`, {
    method: "POST",
    headers: { authorization: `Bearer ${process.env.CLOUDFLARE_API_TOKEN}` },
    body: sql,
    signal: AbortSignal.timeout(30_000),
  });
  const text = await res.text();
  if (!res.ok) throw new Stop(`the Analytics Engine SQL API answered ${res.status}: ${text.slice(0, 300)}`);
  const rows = JSON.parse(text).data ?? [];
  return Object.fromEntries(
    versions.map((v) => {
      const row = rows.find((r) => r.version === v);
      const requests = Number(row?.requests ?? 0);
      const errors = Number(row?.errors ?? 0);
      return [v, { requests, errors, rate: requests ? errors / requests : 0 }];
    }),
  );
}

const pct = (rate) => `${(rate * 100).toFixed(2)} %`;

/**
 * Watches the new version beside the current one; throws when its 5xx rate is above the limit and
 * twice the current version's (an outage of D1 fails both: going back would not help) with enough requests.
 */
async function watch(env, opts, fresh, current, since) {
  const watchSeconds = opts.watch ?? (env.name === "production" ? 600 : 120);
  const deadline = Date.now() + watchSeconds * 1000;
  say(
    `watching ${fresh} at ${NEW_SHARE} % for ${watchSeconds} s: back if its 5xx rate passes ${pct(opts.maxErrorRate)} (and twice ${current}'s) over ${opts.minRequests}+ requests`,
  );
  for (;;) {
    const wait = Math.min(opts.interval * 1000, Math.max(0, deadline - Date.now()));
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const rates = await errorRates(env, [fresh, current], since);
    const n = rates[fresh];
    const o = rates[current];
    say(`new ${n.errors}/${n.requests} (${pct(n.rate)}), current ${o.errors}/${o.requests} (${pct(o.rate)})`);
    if (n.requests >= opts.minRequests && n.rate > opts.maxErrorRate && n.rate > 2 * o.rate)
      throw new Stop(`the new version's 5xx rate is ${pct(n.rate)} over ${n.requests} requests (the current version's: ${pct(o.rate)})`);
    if (Date.now() >= deadline) {
      if (n.requests < opts.minRequests)
        say(`only ${n.requests} requests reached the new version while watching (fewer than ${opts.minRequests}): its pinned smoke test passed; going on`);
      return;
    }
  }
}

function output(values) {
  if (process.env.GITHUB_OUTPUT)
    appendFileSync(
      process.env.GITHUB_OUTPUT,
      Object.entries(values)
        .map(([k, v]) => `${k}=${v}\n`)
        .join(""),
    );
}

function summary(line) {
  if (process.env.GITHUB_STEP_SUMMARY) appendFileSync(process.env.GITHUB_STEP_SUMMARY, `${line}\n`);
}

async function migrationDeploy(env, opts) {
  say(`${env.worker}: a plain deploy, all traffic at once (a Durable Object migration cannot ship as a version)`);
  const args = ["deploy", "--env", env.name];
  if (opts.message) args.push("--message", opts.message);
  const run = await wrangler(args);
  if (run.code !== 0) throw new Stop(`wrangler deploy failed: ${failure(run)}`);
  if (!opts.noSmoke && opts.url && !(await smoke(opts.url, null)))
    throw new Stop('the smoke test failed after the migration deploy: a rollback across a Durable Object migration is refused; fix forward (docs/runbook.md "Bad deploy")');
  summary(`${env.worker}: deployed with its Durable Object migration`);
  say("done");
}

async function rollout(env, opts) {
  if (!opts.noWatch && !(process.env.CLOUDFLARE_ACCOUNT_ID && process.env.CLOUDFLARE_API_TOKEN && env.dataset))
    throw new Stop("the watch needs CLOUDFLARE_ACCOUNT_ID, CLOUDFLARE_API_TOKEN (Account Analytics Read) and the environment's Analytics Engine dataset; --no-watch skips it");
  if (!opts.noSmoke && !opts.url) throw new Stop("--url is needed for the smoke test (--no-smoke skips it)");
  const current = await currentVersion(env);
  say(`${env.worker} serves ${current} at 100 %`);
  const fresh = await upload(env, opts);
  say(`uploaded ${fresh}`);
  output({ version: fresh, previous: current });
  await deployVersions(
    env,
    [
      [fresh, NEW_SHARE],
      [current, 100 - NEW_SHARE],
    ],
    `rollout ${opts.tag ?? fresh}: ${NEW_SHARE} %`,
  );
  const since = Date.now();
  try {
    if (!opts.noSmoke && !(await smoke(opts.url, `${env.worker}=${fresh}`))) throw new Stop("the smoke test pinned to the new version failed");
    if (!opts.noWatch) await watch(env, opts, fresh, current, since);
    else say("no error-rate watch (--no-watch)");
    await deployVersions(env, [[fresh, 100]], `rollout ${opts.tag ?? fresh}: 100 %`);
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    say(`going back to ${current}: ${why}`);
    try {
      await deployVersions(env, [[current, 100]], `rollback: ${why}`.slice(0, 100));
    } catch (back) {
      throw new Stop(`${why}; and going back failed too (${back.message}): run npx wrangler versions deploy ${current}@100% --env ${env.name} -y`);
    }
    summary(`${env.worker}: ${fresh} went back to ${current}: ${why}`);
    throw new Stop(`rolled back to ${current}: ${why}`);
  }
  summary(`${env.worker}: ${fresh} at 100 % (was ${current})`);
  say(`${fresh} serves 100 %`);
}

const opts = parseArgs(process.argv.slice(2));
const env = environment(opts.env);
try {
  await (opts.migration ? migrationDeploy(env, opts) : rollout(env, opts));
} catch (err) {
  console.error(`rollout: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(err instanceof Stop ? err.code : 1);
}
