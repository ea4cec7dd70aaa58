#!/usr/bin/env node
/**
 * `npm run load [-- --sites 2 --clients 4 --seconds 60]`: a bounded load run that prints
 * figures (not a test), against `wrangler dev --local` on loopback only.
 *
 * Server: without --url it applies the migrations to a fresh state directory
 * (.wrangler/load/<run>/state), starts its own `wrangler dev --local` on a free 127.0.0.1
 * port with that state and stops it at the end; with --url it uses a running one, which must
 * be on a loopback address. The admin token comes from .dev.vars (or --admin-token).
 *
 * 1. Provisioning, through the admin API: per site an organization, the site (en → de, fr,
 *    es with the offline pseudo engine), a `scale` subscription covering it, an API key per
 *    client (the per-key rate limit applies to each connector, as in production), and
 *    a handshake (languages de, fr, es; capability qa_errors).
 * 2. Load, for --seconds: --clients connectors per site, each owning 10 units of 20
 *    segments (plain, html and markdown with placeholders), looping: push a batch of 10
 *    units with varied edits (new text, reverted text, structure-only changes, removed and
 *    restored segments), start a delta job (confirm true) unless its previous one is still
 *    active, pull every page of results and acknowledge them. Clients send their batches one
 *    after another; sites and clients run concurrently.
 * 3. Figures: requests per second, p50/p99 latency per endpoint, errors by status.
 * 4. Consistency, per site, once the load has stopped: units whose push had an unknown
 *    outcome are pushed again; active jobs are waited for (GET /v1/jobs?active=true); one last
 *    delta job runs; then
 *      - units_total and segments_total equal what the clients' last snapshots hold;
 *      - no segment is missing or stale in a writable language (every one is review, ok or
 *        attention);
 *      - the final listing of results has no duplicate id, at most one result per segment
 *        and language, and no result the service had counted as acknowledged;
 *      - a result id never changes its unit, segment, language or text;
 *      - results in review = results acknowledged (and still current) + results still
 *        listed: a lost result makes the right side smaller, a duplicate larger. The
 *        acknowledged side is counted by acknowledging again the ids whose acknowledgement
 *        the service had counted (idempotent: nothing changes);
 *      - acknowledging the final listing counts every id, and the listing is empty after;
 *      - no job failed (failed jobs are printed by reason: with the offline engine none has
 *        a reason to fail, and a job is never failed because the site changed after it was
 *        confirmed).
 *    The run ends with "consistency: OK" or "consistency: FAILED (...)"; exit code 0 or 1.
 *
 * Acknowledgements are counted per id: when the service counts fewer ids than were sent
 * (some were superseded between listing and acknowledging), the ids are acknowledged again
 * in halves until each one is known (acknowledging is idempotent).
 */
import { spawn } from "node:child_process";
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { createTransyncClient } from "@transync/client";
import { applyMigrations, bold, cyan, dim, ensureDevVars, green, ROOT, readDevVars, red, rel, SetupError, wranglerBin, wranglerNode, yellow } from "./seed.mjs";

const HELP = `Usage: npm run load [-- options]
A bounded load run against wrangler dev --local on loopback; prints figures and a consistency verdict.
  --sites N           sites to provision (default 2)
  --clients N         concurrent connectors per site (default 4)
  --seconds N         duration of the load phase (default 60)
  --url URL           use a running wrangler dev on a loopback address instead of starting one
  --admin-token T     admin token (default: ADMIN_TOKEN from .dev.vars; with --url the ADMIN_TOKEN
                      environment variable first)
  --drain-seconds N   how long to wait for jobs after the load (default 300)
  --seed N            random seed for the content and edits (default: random)
  --keep              keep the state directory of the server this script starts`;

const LANGUAGES = ["de", "fr", "es"];
const UNITS_PER_CLIENT = 10; // one batch: every push after the first carries edits
const UNITS_PER_BATCH = 10;
const SEGMENTS_PER_UNIT = 20;
const RESULTS_PAGE = 500;
const MAX_PAGES_PER_PULL = 40;
const ACK_CHUNK = 1000;
const REQUEST_TIMEOUT_MS = 60_000;
const PROVISION_CONCURRENCY = 5;

// ── arguments ───────────────────────────────────────────────────────────────────────────
class UsageError extends Error {}

function parseArgs(argv) {
  const opts = { sites: 2, clients: 4, seconds: 60, drainSeconds: 300, keep: false };
  const int = (name, v, min, max) => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < min || n > max) throw new UsageError(`${name} must be an integer from ${min} to ${max} (got ${v})`);
    return n;
  };
  for (let i = 0; i < argv.length; i++) {
    const [name, inline] = argv[i].split(/=(.*)/s);
    const value = () => {
      const v = inline !== undefined ? inline : argv[++i];
      if (v === undefined) throw new UsageError(`${name} needs a value`);
      return v;
    };
    switch (name) {
      case "--sites":
        opts.sites = int(name, value(), 1, 500);
        break;
      case "--clients":
        opts.clients = int(name, value(), 1, 32);
        break;
      case "--seconds":
        opts.seconds = int(name, value(), 1, 3600);
        break;
      case "--drain-seconds":
        opts.drainSeconds = int(name, value(), 1, 7200);
        break;
      case "--seed":
        opts.seed = int(name, value(), 0, 2 ** 31 - 1);
        break;
      case "--url":
        opts.url = value();
        break;
      case "--admin-token":
        opts.adminToken = value();
        break;
      case "--keep":
        opts.keep = true;
        break;
      case "--help":
      case "-h":
        opts.help = true;
        break;
      default:
        throw new UsageError(`unknown argument ${argv[i]}\n${HELP}`);
    }
  }
  return opts;
}

/** Only loopback: this script generates a lot of traffic and carries the admin token. */
function loopbackUrl(raw) {
  let url;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(`--url: not a URL: ${raw}`);
  }
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const loopback = host === "localhost" || host === "::1" || /^127(\.\d{1,3}){3}$/.test(host);
  if (!loopback) throw new UsageError(`--url must point at a loopback address (127.0.0.1, localhost or ::1), not ${url.hostname}: this is a load run.`);
  if (!["http:", "https:"].includes(url.protocol)) throw new UsageError(`--url: unsupported protocol ${url.protocol}`);
  return url.origin;
}

// ── randomness (seeded, so a run can be repeated) ───────────────────────────────────────
function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const pick = (rng, list) => list[Math.floor(rng() * list.length)];

// ── measurements ────────────────────────────────────────────────────────────────────────
class Stats {
  constructor() {
    this.endpoints = new Map();
    this.startedAt = performance.now();
    this.endedAt = undefined;
  }
  record(endpoint, ms, status) {
    let e = this.endpoints.get(endpoint);
    if (!e) this.endpoints.set(endpoint, (e = { times: [], statuses: new Map() }));
    e.times.push(ms);
    e.statuses.set(status, (e.statuses.get(status) ?? 0) + 1);
  }
  get requests() {
    let n = 0;
    for (const e of this.endpoints.values()) n += e.times.length;
    return n;
  }
  seconds() {
    return ((this.endedAt ?? performance.now()) - this.startedAt) / 1000;
  }
}
const stats = { provision: new Stats(), load: new Stats(), final: new Stats() };
let phase = "provision";

function percentile(sorted, p) {
  if (!sorted.length) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

function endpointOf(method, path) {
  const [p, query = ""] = path.split("?");
  let name = p.replace(/\/v1\/jobs\/\d+/, "/v1/jobs/{id}").replace(/\/admin\/v1\/(sites|organizations)\/\d+/, "/admin/v1/$1/{id}");
  if (p === "/v1/jobs" && /active=true/.test(query)) name += "?active=true";
  return `${method} ${name}`;
}

/** The generated API client (client/) per base URL and key. */
const clients = new Map();
function clientFor(baseUrl, token) {
  const id = `${baseUrl}\u0000${token ?? ""}`;
  let api = clients.get(id);
  if (!api) clients.set(id, (api = createTransyncClient({ baseUrl, key: token })));
  return api;
}

/** One HTTP call through the generated client; never throws. `status` 0 means a network error or time-out (`error` says which). */
async function http(baseUrl, method, path, { token, body } = {}) {
  const started = performance.now();
  const endpoint = endpointOf(method, path);
  try {
    const res = await clientFor(baseUrl, token).request(method, path, { body, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
    const status = res.response.status;
    const json = res.data ?? res.error ?? null;
    stats[phase].record(endpoint, performance.now() - started, status);
    if (status === 429) rateLimited[/failed authentications/i.test(json?.detail ?? "") ? "authFailures" : "perKey"]++;
    return { status, body: json };
  } catch (err) {
    const error = err?.name === "TimeoutError" ? "timeout" : (err?.cause?.code ?? err?.cause?.errors?.[0]?.code ?? err?.name ?? "error");
    stats[phase].record(endpoint, performance.now() - started, `network:${error}`);
    return { status: 0, body: null, error };
  }
}

/** 429 answers by the limit that gave them (docs/decisions.md "Requests: keys, limits, hostile input, errors": 600 requests / 60 s per key; 60 failed authentications / 60 s per address). */
const rateLimited = { perKey: 0, authFailures: 0 };

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const detail = (res) =>
  res.status === 0 ? res.error : `${res.status} ${typeof res.body === "object" ? (res.body?.detail ?? JSON.stringify(res.body)) : String(res.body).slice(0, 200)}`;

async function mapLimit(items, limit, fn) {
  const out = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i], i);
      }
    }),
  );
  return out;
}

// ── the server ──────────────────────────────────────────────────────────────────────────
function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

async function waitForHealth(baseUrl, timeoutMs, alive = () => true) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline && alive()) {
    try {
      const res = await fetch(`${baseUrl}/v1/health`, { signal: AbortSignal.timeout(10_000) });
      if (res.ok) return true;
    } catch {
      // not up yet
    }
    await sleep(300);
  }
  return false;
}

/** Starts `wrangler dev --local` on a free loopback port with a fresh state directory. */
async function startServer(runDir) {
  const persist = join(runDir, "state");
  mkdirSync(persist, { recursive: true });
  await applyMigrations(["--persist-to", persist], { quiet: true });
  const port = await freePort();
  const inspectorPort = await freePort();
  const logPath = join(runDir, "wrangler.log");
  const log = openSync(logPath, "a");
  const args = ["dev", "--local", "--ip", "127.0.0.1", "--port", String(port), "--inspector-port", String(inspectorPort), "--persist-to", persist, "--log-level", "warn"];
  // Its own process group, so stopping it also stops workerd and esbuild under it.
  const child = spawn(wranglerNode(), [wranglerBin(), ...args], {
    cwd: ROOT,
    detached: true,
    stdio: ["ignore", log, log],
    env: { ...process.env, CLOUDFLARE_CF_FETCH_ENABLED: "false" },
  });
  closeSync(log);
  let exited = false;
  const exitedPromise = new Promise((resolve) => child.on("exit", () => resolve((exited = true))));
  const killGroup = (signal) => {
    try {
      process.kill(-child.pid, signal);
    } catch {
      // already gone
    }
  };
  const onExit = () => killGroup("SIGKILL");
  process.on("exit", onExit);
  const stop = async () => {
    if (!exited) {
      killGroup("SIGTERM");
      await Promise.race([exitedPromise, sleep(10_000)]);
    }
    killGroup("SIGKILL"); // stragglers of the group (workerd), if any
    process.off("exit", onExit);
  };
  const baseUrl = `http://127.0.0.1:${port}`;
  if (!(await waitForHealth(baseUrl, 120_000, () => !exited))) {
    await stop();
    const tail = existsSync(logPath) ? readFileSync(logPath, "utf8").split("\n").slice(-30).join("\n") : "";
    throw new SetupError(`wrangler dev did not come up on ${baseUrl}; last lines of ${rel(logPath)}:\n${tail}`);
  }
  return { baseUrl, stop, logPath, persist, command: `wrangler ${args.join(" ")}` };
}

// ── provisioning ────────────────────────────────────────────────────────────────────────
async function provisionSite(ctx, i) {
  const admin = (method, path, body) => http(ctx.baseUrl, method, path, { token: ctx.adminToken, body });
  const must = (res, status, what) => {
    if (res.status !== status) throw new SetupError(`provisioning site ${i + 1}: ${what} answered ${detail(res)}`);
    return res.body;
  };
  const org = must(await admin("POST", "/admin/v1/organizations", { name: `Load ${ctx.run} org ${i + 1}` }), 201, "POST /admin/v1/organizations");
  const site = must(
    await admin("POST", "/admin/v1/sites", {
      organization_id: org.id,
      name: `Load ${ctx.run} site ${i + 1}`,
      source_language: "en",
      target_languages: LANGUAGES.map((code) => ({ code, engine: "pseudo" })),
    }),
    201,
    "POST /admin/v1/sites",
  );
  must(await admin("PUT", `/admin/v1/organizations/${org.id}/subscription`, { plan: "scale", status: "active", site_ids: [site.id] }), 200, "PUT subscription");
  // One key per client (a connector instance), so the per-key limit of 600 requests a minute
  // applies to each client as it would in production, not to the site.
  const keys = [];
  for (let c = 0; c < ctx.clients; c++) keys.push(must(await admin("POST", `/admin/v1/sites/${site.id}/keys`, { name: `load client ${c}` }), 201, "POST keys").key);
  const key = keys[0];
  const hs = must(
    await http(ctx.baseUrl, "POST", "/v1/handshake", {
      token: key,
      body: { connector_version: "transync-load/1.0", adapters: ["wordpress"], source_language: "en", languages: LANGUAGES, capabilities: ["qa_errors"] },
    }),
    200,
    "POST /v1/handshake",
  );
  const writable = hs.target_languages.filter((t) => t.writable).map((t) => t.code);
  return {
    index: i,
    id: site.id,
    key,
    keys,
    writable,
    units: [], // every Unit of every client
    delivered: new Map(), // result id → "unit\u0000key\u0000language\u0000text"
    acked: new Set(), // ids whose acknowledgement the service counted
    ackUnresolved: new Set(), // ids of acknowledgements that failed (outcome unknown)
    anomalies: [],
    jobs: new Map(), // job id → the job as last seen
    counters: {
      batches: 0,
      unitsPushed: 0,
      unitsRefused: 0,
      added: 0,
      changed: 0,
      removed: 0,
      unchanged: 0,
      stale: 0,
      jobsStarted: 0,
      pulls: 0,
      delivered: 0,
      ackSent: 0,
      ackCounted: 0,
      ackProbes: 0,
    },
  };
}

// ── content: units of 20 segments whose texts derive from seeds ─────────────────────────
const WORDS = (
  "account update order delivery garden winter coffee travel secure simple team story price free shipping guide support " +
  "review market local fresh modern classic design quality service return policy friendly online store season collection " +
  "offer limited today city mountain river bright quiet strong light green blue warm cold open start finish learn build " +
  "share discover explore create connect protect improve customer product weekly newsletter journey kitchen office summer"
).split(" ");
const PLACEHOLDERS = ["{name}", "%s", ":count", "{{site}}", "%1$s", "%(product)s"];
const KINDS = ["body", "alt_text", "meta_description", "caption", "label"];

function words(rng, n) {
  const out = [];
  for (let i = 0; i < n; i++) out.push(pick(rng, WORDS));
  return out.join(" ");
}
const cap = (s) => s[0].toUpperCase() + s.slice(1);

/** The text of a segment version: deterministic in (format, seed). */
function textFor(format, seed) {
  const r = mulberry32(seed * 2654435761);
  const ph = pick(r, PLACEHOLDERS);
  switch (format) {
    case "title":
      return cap(words(r, 2 + Math.floor(r() * 4)));
    case "html":
      return `<p>${cap(words(r, 4 + Math.floor(r() * 8)))} <strong>${words(r, 1)}</strong> ${ph}, <a href="https://example.com/${words(r, 1)}">${words(r, 2)}</a>.</p>`;
    case "markdown":
      return `**${cap(words(r, 1))}** ${words(r, 3 + Math.floor(r() * 8))} [${words(r, 2)}](https://example.com/${words(r, 1)}) ${ph}.`;
    default:
      return `${cap(words(r, 5 + Math.floor(r() * 12)))} ${ph}.`;
  }
}

class Unit {
  constructor(externalKey, rng) {
    this.key = externalKey;
    this.segments = Array.from({ length: SEGMENTS_PER_UNIT }, (_, i) => {
      const format = i === 0 ? "title" : ["html", "plain", "markdown"][i % 3];
      return {
        key: `s${String(i).padStart(2, "0")}`,
        format,
        kind: i === 0 ? "title" : pick(rng, KINDS),
        position: i,
        seed: Math.floor(rng() * 4000),
        history: [],
        removed: false,
      };
    });
    this.committed = null; // Set of segment keys in the last snapshot the service accepted
    this.dirty = false; // a push of this unit had an unknown outcome
  }
  snapshot() {
    return {
      external_key: this.key,
      adapter: "wordpress",
      label: `Load unit ${this.key}`,
      path: `/${this.key.replace(":", "/")}`,
      segments: this.segments
        .filter((s) => !s.removed)
        .map((s) => ({ key: s.key, text: textFor(s.format, s.seed), format: s.format === "title" ? "plain" : s.format, kind: s.kind, field: s.key, position: s.position })),
    };
  }
  /** Varied edits: new text, reverted text, structure-only change, removal or restoration. */
  edit(rng) {
    const r = rng();
    const n = r < 0.2 ? 0 : r < 0.6 ? 1 : r < 0.85 ? 2 : 3;
    for (let i = 0; i < n; i++) {
      const s = pick(rng, this.segments);
      const what = rng();
      if (s.removed || what < 0.6) {
        if (s.removed) s.removed = false;
        else {
          s.history.push(s.seed);
          if (s.history.length > 4) s.history.shift();
          s.seed = Math.floor(rng() * 4000);
        }
      } else if (what < 0.75) {
        if (s.history.length) [s.seed, s.history[s.history.length - 1]] = [s.history[s.history.length - 1], s.seed];
      } else if (what < 0.87) {
        if (s.format !== "title")
          s.kind = pick(
            rng,
            KINDS.filter((k) => k !== s.kind),
          );
      } else if (this.segments.filter((x) => !x.removed).length > 1) s.removed = true;
    }
  }
}

// ── one connector ───────────────────────────────────────────────────────────────────────
const FINISHED = new Set(["succeeded", "failed", "cancelled"]);

async function pushUnits(ctx, site, units, { retries = 0 } = {}) {
  const body = { units: units.map((u) => u.snapshot()) };
  for (let attempt = 0; ; attempt++) {
    const res = await http(ctx.baseUrl, "PUT", "/v1/units/batch", { token: site.key, body });
    site.counters.batches++;
    if (res.status === 200 && Array.isArray(res.body?.results)) {
      res.body.results.forEach((item, j) => {
        const unit = units[j];
        if (item.ok) {
          unit.committed = new Set(body.units[j].segments.map((s) => s.key));
          const c = site.counters;
          c.unitsPushed++;
          c.added += item.result.added;
          c.changed += item.result.changed;
          c.removed += item.result.removed;
          c.unchanged += item.result.unchanged;
          c.stale += item.result.stale_translations;
        } else {
          site.counters.unitsRefused++;
          if (site.anomalies.length < 50) site.anomalies.push(`unit ${unit.key} refused: ${item.error}`);
        }
      });
      return true;
    }
    // 4xx other than 408/429: the request itself is wrong and was not applied.
    const unknownOutcome = res.status === 0 || res.status >= 500 || res.status === 408 || res.status === 429;
    if (unknownOutcome) for (const u of units) u.dirty = true;
    if (attempt >= retries) return false;
    await sleep(200 * 2 ** attempt);
  }
}

/** Acknowledges ids; returns the ids the service counted, splitting when it counts fewer than sent. */
async function acknowledge(ctx, site, ids, depth = 0) {
  if (!ids.length) return [];
  let res;
  for (let attempt = 0; attempt < 3; attempt++) {
    res = await http(ctx.baseUrl, "POST", "/v1/results/ack", { token: site.key, body: { ids } });
    if (res.status === 200) break;
    await sleep(200 * 2 ** attempt);
  }
  if (depth === 0) site.counters.ackSent += ids.length;
  else site.counters.ackProbes++;
  if (res.status !== 200 || typeof res.body?.acknowledged !== "number") {
    for (const id of ids) site.ackUnresolved.add(id);
    return [];
  }
  const n = res.body.acknowledged;
  if (depth === 0) site.counters.ackCounted += n;
  if (n === ids.length) return ids;
  if (n === 0) return [];
  if (n > ids.length) {
    site.anomalies.push(`POST /v1/results/ack counted ${n} of ${ids.length} ids`);
    return [];
  }
  const half = Math.ceil(ids.length / 2);
  return [...(await acknowledge(ctx, site, ids.slice(0, half), depth + 1)), ...(await acknowledge(ctx, site, ids.slice(half), depth + 1))];
}

function noteDelivered(site, r) {
  const identity = `${r.unit}\u0000${r.key}\u0000${r.language}\u0000${r.text}`;
  const seen = site.delivered.get(r.id);
  if (seen === undefined) site.delivered.set(r.id, identity);
  else if (seen !== identity && site.anomalies.length < 50) site.anomalies.push(`result ${r.id} changed between listings (unit/segment/language/text)`);
}

/** Every page of GET /v1/results; returns the results or null when a page failed. */
async function listResults(ctx, site) {
  const out = [];
  let cursor = null;
  for (let page = 0; page < MAX_PAGES_PER_PULL; page++) {
    const res = await http(ctx.baseUrl, "GET", `/v1/results?limit=${RESULTS_PAGE}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`, { token: site.key });
    if (res.status !== 200) return null;
    for (const r of res.body.results) noteDelivered(site, r);
    out.push(...res.body.results);
    cursor = res.body.next_cursor;
    if (!cursor) return out;
  }
  return out; // bounded: the rest is picked up by the next pull
}

async function pullAndAck(ctx, site) {
  const results = await listResults(ctx, site);
  site.counters.pulls++;
  if (!results) return;
  const ids = [...new Set(results.map((r) => r.id))];
  site.counters.delivered += ids.length;
  for (let i = 0; i < ids.length; i += ACK_CHUNK) for (const id of await acknowledge(ctx, site, ids.slice(i, i + ACK_CHUNK))) site.acked.add(id);
}

async function runClient(ctx, shared, clientIndex, deadline) {
  // This client's own key; everything else is the site's shared state.
  const site = Object.create(shared, { key: { value: shared.keys[clientIndex] } });
  const rng = mulberry32(ctx.seed + site.index * 1009 + clientIndex * 7919);
  const units = Array.from({ length: UNITS_PER_CLIENT }, (_, i) => new Unit(`c${clientIndex}_${ctx.run}:page-${i}`, rng));
  site.units.push(...units);
  let job = null;
  for (let iteration = 0; Date.now() < deadline && iteration < 1_000_000; iteration++) {
    const start = (iteration * UNITS_PER_BATCH) % UNITS_PER_CLIENT;
    const batch = units.slice(start, start + UNITS_PER_BATCH);
    if (iteration * UNITS_PER_BATCH >= UNITS_PER_CLIENT) for (const u of batch) u.edit(rng);
    await pushUnits(ctx, site, batch);
    if (Date.now() >= deadline) break;

    if (job && !FINISHED.has(job.status)) {
      const res = await http(ctx.baseUrl, "GET", `/v1/jobs/${job.id}`, { token: site.key });
      if (res.status === 200) job = res.body;
      noteJob(site, job);
    }
    if (!job || FINISHED.has(job.status)) {
      const res = await http(ctx.baseUrl, "POST", "/v1/jobs", { token: site.key, body: { type: "delta", confirm: true } });
      if (res.status === 202) {
        job = res.body;
        site.counters.jobsStarted++;
        noteJob(site, job);
      }
    }
    if (Date.now() >= deadline) break;
    await pullAndAck(ctx, site);
  }
  return job;
}

function noteJob(site, job) {
  if (job) site.jobs.set(job.id, job);
}

// ── after the load: settle, drain, final job, checks ────────────────────────────────────
async function waitIdle(ctx, site, deadline) {
  while (Date.now() < deadline) {
    const res = await http(ctx.baseUrl, "GET", "/v1/jobs?active=true", { token: site.key });
    if (res.status === 200 && Array.isArray(res.body) && res.body.length === 0) return true;
    await sleep(500);
  }
  return false;
}

async function finalJob(ctx, site, deadline) {
  const res = await http(ctx.baseUrl, "POST", "/v1/jobs", { token: site.key, body: { type: "delta", confirm: true } });
  if (res.status !== 202) return { error: `final delta job: POST /v1/jobs answered ${detail(res)}` };
  let job = res.body;
  while (!FINISHED.has(job.status)) {
    if (Date.now() > deadline) return { job, error: `final delta job ${job.id} still ${job.status} at the drain deadline` };
    await sleep(300);
    const r = await http(ctx.baseUrl, "GET", `/v1/jobs/${job.id}`, { token: site.key });
    if (r.status === 200) job = r.body;
  }
  site.jobs.set(job.id, job);
  if (job.status !== "succeeded") return { job, error: `final delta job ${job.id} ${job.status}: ${job.errors.map((e) => e.message).join("; ") || "no detail"}` };
  if (job.failed_segments)
    return { job, error: `final delta job ${job.id}: ${job.failed_segments} segments failed (${job.errors.map((e) => `${e.language}: ${e.message}`).join("; ")})` };
  return { job };
}

async function verifySite(ctx, site, drainDeadline) {
  const problems = [];
  const facts = {};
  const fail = (message) => problems.push(message);

  // Units whose push had an unknown outcome (network error, 5xx) get their latest snapshot again.
  const dirty = site.units.filter((u) => u.dirty);
  for (let i = 0; i < dirty.length; i += UNITS_PER_BATCH) {
    const batch = dirty.slice(i, i + UNITS_PER_BATCH);
    if (!(await pushUnits(ctx, site, batch, { retries: 3 }))) fail(`could not re-push ${batch.length} units whose earlier push had an unknown outcome`);
  }
  facts.repushed = dirty.length;

  const t0 = performance.now();
  if (!(await waitIdle(ctx, site, drainDeadline))) {
    fail("jobs still active at the drain deadline");
    return { problems, facts };
  }
  facts.drainSeconds = (performance.now() - t0) / 1000;
  for (const job of [...site.jobs.values()].filter((j) => !FINISHED.has(j.status))) {
    const res = await http(ctx.baseUrl, "GET", `/v1/jobs/${job.id}`, { token: site.key });
    if (res.status === 200) site.jobs.set(job.id, res.body);
  }
  const final = await finalJob(ctx, site, drainDeadline);
  if (final.error) fail(final.error);
  facts.finalJob = final.job;

  // The final listing, with nothing moving any more.
  const listing = await listResults(ctx, site);
  if (!listing) {
    fail("GET /v1/results failed during the final listing");
    return { problems, facts };
  }
  const listed = new Set();
  const perSegment = new Set();
  for (const r of listing) {
    if (listed.has(r.id)) fail(`result ${r.id} listed twice in one traversal`);
    listed.add(r.id);
    const seg = `${r.unit}\u0000${r.key}\u0000${r.language}`;
    if (perSegment.has(seg)) fail(`two results listed for ${r.unit}/${r.key}/${r.language}`);
    perSegment.add(seg);
    if (site.acked.has(r.id)) fail(`result ${r.id} was acknowledged but is listed again`);
  }
  facts.listed = listed.size;

  // Segments: what the clients' last accepted snapshots hold.
  const present = new Set();
  let expectedUnits = 0;
  for (const u of site.units) {
    if (!u.committed) continue;
    expectedUnits++;
    for (const key of u.committed) present.add(`${u.key}\u0000${key}`);
  }
  const status = await http(ctx.baseUrl, "GET", "/v1/status", { token: site.key });
  if (status.status !== 200) {
    fail(`GET /v1/status answered ${detail(status)}`);
    return { problems, facts };
  }
  const st = status.body;
  facts.units = st.units_total;
  facts.segments = st.segments_total;
  if (st.units_total !== expectedUnits) fail(`units_total ${st.units_total}, the clients pushed ${expectedUnits}`);
  if (st.segments_total !== present.size) fail(`segments_total ${st.segments_total}, the clients' last snapshots hold ${present.size}`);
  let review = 0;
  facts.languages = {};
  for (const code of site.writable) {
    const l = st.languages.find((x) => x.code === code);
    if (!l) {
      fail(`no counts for writable language ${code}`);
      continue;
    }
    facts.languages[code] = l;
    review += l.review;
    if (l.missing || l.stale) fail(`${code}: ${l.missing} missing and ${l.stale} stale after the final job`);
    if (l.ok + l.review + l.attention + l.missing + l.stale !== st.segments_total)
      fail(`${code}: the states add up to ${l.ok + l.review + l.attention + l.missing + l.stale}, not ${st.segments_total}`);
  }

  // Results in review = acknowledged and current + still listed. Acknowledging again the ids the
  // service counted before changes nothing and counts those still current.
  const segmentOf = (id) => site.delivered.get(id)?.split("\u0000").slice(0, 2).join("\u0000");
  const again = [...new Set([...site.acked, ...site.ackUnresolved])].filter((id) => !listed.has(id) && present.has(segmentOf(id)));
  let ackedCurrent = 0;
  for (let i = 0; i < again.length; i += ACK_CHUNK) {
    const res = await http(ctx.baseUrl, "POST", "/v1/results/ack", { token: site.key, body: { ids: again.slice(i, i + ACK_CHUNK) } });
    if (res.status !== 200) {
      fail(`POST /v1/results/ack answered ${detail(res)} while counting acknowledged results`);
      break;
    }
    ackedCurrent += res.body.acknowledged;
  }
  facts.delivered = site.delivered.size;
  facts.ackedCurrent = ackedCurrent;
  facts.review = review;
  if (ackedCurrent + listed.size !== review)
    fail(
      `${review} results in review, but ${ackedCurrent} acknowledged + ${listed.size} still listed = ${ackedCurrent + listed.size} (${ackedCurrent + listed.size < review ? "results lost" : "results duplicated"})`,
    );

  // The connector finishes delivery: everything listed is acknowledged and the list empties.
  const finalIds = [...listed];
  let counted = 0;
  for (let i = 0; i < finalIds.length; i += ACK_CHUNK) {
    const res = await http(ctx.baseUrl, "POST", "/v1/results/ack", { token: site.key, body: { ids: finalIds.slice(i, i + ACK_CHUNK) } });
    counted += res.status === 200 ? res.body.acknowledged : 0;
  }
  if (counted !== finalIds.length) fail(`acknowledging the final ${finalIds.length} listed results counted ${counted}`);
  const after = await listResults(ctx, site);
  if (!after) fail("GET /v1/results failed after the final acknowledgement");
  else if (after.length) fail(`${after.length} results still listed after acknowledging all of them`);

  for (const a of site.anomalies) fail(a);
  return { problems, facts };
}

// ── report ──────────────────────────────────────────────────────────────────────────────
const fmt = (n, d = 0) => (Number.isFinite(n) ? n.toFixed(d) : "-");
const pad = (s, n, right = false) => (right ? String(s).padStart(n) : String(s).padEnd(n));

function printTable(headers, rows, rightFrom = 1) {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
  const line = (cells) => `  ${cells.map((c, i) => pad(c, widths[i], i >= rightFrom)).join("  ")}`;
  console.log(bold(line(headers)));
  for (const r of rows) console.log(line(r));
}

function printEndpointTable(s) {
  const seconds = s.seconds();
  const rows = [...s.endpoints.entries()]
    .sort((a, b) => b[1].times.length - a[1].times.length)
    .map(([name, e]) => {
      const sorted = [...e.times].sort((a, b) => a - b);
      let errors = 0;
      for (const [status, n] of e.statuses) if (!(typeof status === "number" && status < 400)) errors += n;
      return [name, e.times.length, fmt(e.times.length / seconds, 1), fmt(percentile(sorted, 50), 1), fmt(percentile(sorted, 99), 1), fmt(sorted.at(-1), 1), errors];
    });
  printTable(["endpoint", "requests", "req/s", "p50 ms", "p99 ms", "max ms", "errors"], rows);
}

function errorSummary(s) {
  const parts = [];
  for (const [name, e] of s.endpoints) for (const [status, n] of e.statuses) if (!(typeof status === "number" && status < 400)) parts.push({ status: String(status), name, n });
  if (!parts.length) return "none";
  const byStatus = new Map();
  for (const p of parts) byStatus.set(p.status, [...(byStatus.get(p.status) ?? []), p]);
  return [...byStatus.entries()].map(([status, list]) => `${status} ×${list.reduce((a, p) => a + p.n, 0)} (${list.map((p) => `${p.name} ${p.n}`).join(", ")})`).join("; ");
}

function idList(sites) {
  const ids = sites.map((s) => s.id).sort((a, b) => a - b);
  return ids.length <= 12 ? ids.join(", ") : `${ids[0]}…${ids.at(-1)}`;
}

// ── main ────────────────────────────────────────────────────────────────────────────────
async function main() {
  const opts = parseArgs(process.argv.slice(2));
  if (opts.help) {
    console.log(HELP);
    return 0;
  }
  const run = Date.now().toString(36);
  const seed = opts.seed ?? Math.floor(Math.random() * 2 ** 31);
  let server;
  let baseUrl;
  let adminToken = opts.adminToken;
  let interrupted = false;

  const cleanup = async () => {
    if (server) await server.stop();
    if (server && !opts.keep) rmSync(server.persist, { recursive: true, force: true });
  };
  for (const signal of ["SIGINT", "SIGTERM"])
    process.on(signal, async () => {
      if (interrupted) return;
      interrupted = true;
      console.error(red(`\n${signal}: stopping`));
      await cleanup();
      process.exit(130);
    });

  try {
    if (opts.url) {
      baseUrl = loopbackUrl(opts.url);
      adminToken ??= process.env.ADMIN_TOKEN ?? readDevVars().ADMIN_TOKEN;
      if (!(await waitForHealth(baseUrl, 5_000))) throw new SetupError(`no service answers GET ${baseUrl}/v1/health`);
      console.log(`${bold("Load run")} against ${baseUrl} (running server)`);
    } else {
      ensureDevVars();
      adminToken ??= readDevVars().ADMIN_TOKEN;
      const runDir = join(ROOT, ".wrangler", "load", run);
      console.log(dim(`starting wrangler dev --local with a fresh state in ${rel(runDir)} …`));
      server = await startServer(runDir);
      baseUrl = server.baseUrl;
      console.log(`${bold("Load run")} against ${baseUrl} ${dim(`(${server.command}; log ${rel(server.logPath)})`)}`);
    }
    if (!adminToken) throw new SetupError("no admin token: set ADMIN_TOKEN in .dev.vars or pass --admin-token.");
    console.log(
      dim(
        `sites ${opts.sites}, clients per site ${opts.clients}, ${opts.seconds} s, ${UNITS_PER_BATCH} units × ${SEGMENTS_PER_UNIT} segments per batch, languages ${LANGUAGES.join(", ")} (pseudo), seed ${seed}`,
      ),
    );

    // 1. provisioning
    const ctx = { baseUrl, adminToken, run, seed, clients: opts.clients };
    phase = "provision";
    const sites = await mapLimit(
      Array.from({ length: opts.sites }, (_, i) => i),
      PROVISION_CONCURRENCY,
      (i) => provisionSite(ctx, i),
    );
    stats.provision.endedAt = performance.now();
    const notWritable = sites.filter((s) => s.writable.length !== LANGUAGES.length);
    if (notWritable.length) throw new SetupError(`the handshake left sites ${notWritable.map((s) => s.id).join(", ")} without all of ${LANGUAGES.join(", ")} writable`);
    console.log(
      `\n${cyan("provisioned")} ${sites.length} sites (organization, site, scale subscription, key, handshake) in ${fmt(stats.provision.seconds(), 1)} s (includes the Worker's cold start): site ids ${idList(sites)}`,
    );

    // 2. load
    phase = "load";
    stats.load = new Stats();
    const deadline = Date.now() + opts.seconds * 1000;
    const ticker = setInterval(() => {
      const s = stats.load;
      process.stdout.write(dim(`  … ${fmt(s.seconds(), 0)} s, ${s.requests} requests, ${fmt(s.requests / s.seconds(), 0)} req/s\n`));
    }, 10_000);
    await Promise.all(sites.flatMap((site) => Array.from({ length: opts.clients }, async (_, c) => noteJob(site, await runClient(ctx, site, c, deadline)))));
    clearInterval(ticker);
    stats.load.endedAt = performance.now();

    const s = stats.load;
    console.log(
      `\n${cyan("load phase")}: ${fmt(s.seconds(), 1)} s, ${s.requests} requests, ${bold(`${fmt(s.requests / s.seconds(), 1)} req/s`)} from ${sites.length * opts.clients} concurrent clients`,
    );
    printEndpointTable(s);
    console.log(`  errors by status: ${errorSummary(s)}`);
    console.log(
      rateLimited.perKey + rateLimited.authFailures
        ? yellow(
            `  rate limits met: ${rateLimited.perKey} × 429 from the per-key limit (600 requests / 60 s per key), ${rateLimited.authFailures} × 429 from the failed-authentication limit (60 / 60 s per address)`,
          )
        : `  rate limits: none met (each client has its own key: at most 600 requests / 60 s each)`,
    );
    const sum = (k) => sites.reduce((a, site) => a + site.counters[k], 0);
    console.log(
      `  work: ${sum("batches")} batches, ${sum("unitsPushed")} unit snapshots accepted (${sum("unitsRefused")} refused): ` +
        `${sum("added")} segments added, ${sum("changed")} changed, ${sum("removed")} removed, ${sum("unchanged")} unchanged, ${sum("stale")} translations made stale`,
    );
    console.log(`  jobs: ${sum("jobsStarted")} delta jobs started (outcomes below, once they have finished)`);
    console.log(
      `  results: ${sum("pulls")} pulls, ${sites.reduce((a, x) => a + x.delivered.size, 0)} distinct results delivered; ` +
        `${sum("ackSent")} ids sent in acknowledgements (a site's clients acknowledge overlapping listings), ${sum("ackCounted")} counted ` +
        `(the rest superseded between listing and acknowledgement; ${sum("ackProbes")} split re-acknowledgements to tell which)`,
    );

    // 3. consistency
    phase = "final";
    stats.final = new Stats();
    console.log(`\n${cyan("consistency")}: re-push units with unknown outcome, wait for jobs (≤ ${opts.drainSeconds} s), one last delta job per site, then check`);
    const drainDeadline = Date.now() + opts.drainSeconds * 1000;
    sites.sort((a, b) => a.id - b.id);
    const checks = await Promise.all(sites.map((site) => verifySite(ctx, site, drainDeadline)));
    stats.final.endedAt = performance.now();
    const rows = sites.map((site, i) => {
      const { facts, problems } = checks[i];
      const langs = Object.values(facts.languages ?? {});
      const col = (k) => langs.map((l) => l[k]).join("/");
      return [
        site.id,
        facts.units ?? "-",
        facts.segments ?? "-",
        col("missing") || "-",
        col("stale") || "-",
        col("review") || "-",
        col("attention") || "-",
        fmt(facts.drainSeconds, 1),
        facts.finalJob ? `${facts.finalJob.status} ${facts.finalJob.done_segments}` : "-",
        facts.delivered ?? "-",
        `${facts.review ?? "-"} = ${facts.ackedCurrent ?? "-"} + ${facts.listed ?? "-"}`,
        problems.length ? red(`${problems.length} problem${problems.length === 1 ? "" : "s"}`) : green("ok"),
      ];
    });
    printTable(
      ["site", "units", "segments", `missing ${LANGUAGES.join("/")}`, "stale", "review", "attention", "drain s", "final job", "delivered", "review = acked + listed", "check"],
      rows,
    );
    console.log(dim(`  final phase: ${stats.final.requests} requests in ${fmt(stats.final.seconds(), 1)} s`));
    const jobs = sites.flatMap((site) => [...site.jobs.values()]);
    const byStatus = new Map();
    const reasons = new Map();
    for (const job of jobs) {
      byStatus.set(job.status, (byStatus.get(job.status) ?? 0) + 1);
      for (const e of job.errors ?? []) {
        const m = e.message.replace(/\d+/g, "N");
        reasons.set(m, (reasons.get(m) ?? 0) + 1);
      }
    }
    const done = jobs.filter((j) => FINISHED.has(j.status));
    console.log(
      `  jobs (load and final): ${jobs.length}; ${[...byStatus].map(([k, n]) => `${k} ${n}`).join(", ")}; ` +
        `${done.reduce((a, j) => a + j.done_segments, 0)} segment translations done, ${done.reduce((a, j) => a + j.tm_segments, 0)} from memory, ${done.reduce((a, j) => a + j.reused_segments, 0)} reused`,
    );
    for (const [m, n] of reasons) console.log(dim(`    job error ×${n}: ${m.slice(0, 200)}`));
    // Failed jobs by reason (their last error): with the offline engine a job has no reason to fail, so each one is a problem.
    const failedBy = new Map();
    for (const job of jobs.filter((j) => j.status === "failed")) {
      const m = (job.errors?.at(-1)?.message ?? "(no error recorded)").replace(/\d+/g, "N").slice(0, 200);
      failedBy.set(m, (failedBy.get(m) ?? 0) + 1);
    }
    console.log(`  failed jobs: ${[...failedBy.values()].reduce((a, n) => a + n, 0)}`);
    for (const [m, n] of failedBy) console.log(red(`    failed ×${n}: ${m}`));

    const failures = [];
    checks.forEach(({ problems }, i) => problems.forEach((p) => failures.push(`site ${sites[i].id}: ${p}`)));
    for (const [m, n] of failedBy) failures.push(`${n} job${n === 1 ? "" : "s"} failed: ${m}`);
    for (const f of failures.slice(0, 30)) console.log(red(`  ✗ ${f}`));
    if (failures.length > 30) console.log(red(`  … and ${failures.length - 30} more`));

    await cleanup();
    server = undefined;
    console.log("");
    if (failures.length) {
      console.log(
        red(
          bold(
            `consistency: FAILED (${failures.length} problem${failures.length === 1 ? "" : "s"} in ${checks.filter((c) => c.problems.length).length} of ${sites.length} sites; first: ${failures[0]})`,
          ),
        ),
      );
      return 1;
    }
    console.log(
      green(bold(`consistency: OK`)) +
        dim(
          ` (${sites.length} sites: every pushed segment accounted for, none missing or stale after the final job, every delivered result acknowledged or still listed, none lost or duplicated, no job failed)`,
        ),
    );
    return 0;
  } catch (err) {
    await cleanup().catch(() => {});
    if (err instanceof UsageError) {
      console.error(red(`load: ${err.message}`));
      return 2;
    }
    console.error(red(`load: ${err instanceof SetupError ? err.message : (err?.stack ?? err)}`));
    console.log(red(bold(`consistency: FAILED (the run did not complete: ${String(err?.message ?? err).split("\n")[0]})`)));
    return 1;
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) process.exitCode = await main();

export { acknowledge, endpointOf, loopbackUrl, percentile, startServer, textFor, Unit, waitForHealth };
