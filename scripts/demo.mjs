#!/usr/bin/env node
/**
 * `npm run demo [-- --url URL --key KEY]`: plays a connector against the service that
 * `npm run dev` started, step by step, printing what it sends and what the service answers:
 *
 *   handshake → push sample units (plain, html and markdown segments with placeholders)
 *   → unit status and site status → estimate → job (confirmed) → poll until finished
 *   → pull every page of results → acknowledge → reviews (approve with an edit, approve
 *   as is, reject) → unit status and site status again.
 *
 * URL: --url, else DEMO_URL, else http://127.0.0.1:8787.
 * Key: --key, else DEMO_KEY, else the demo key `npm run dev` saved in .wrangler/demo-key.
 *
 * Every run pushes its own units (keys end in a run id), so the demo can be replayed on the
 * same database; the job is a `translate` job over exactly those units.
 */
import { createTransyncClient } from "@transync/client";
import { bold, cyan, DEMO_KEY_FILE, dim, green, readDemoKey, red, rel, yellow } from "./seed.mjs";

const HELP = `Usage: npm run demo [-- --url http://127.0.0.1:8787] [--key tsk_…]
Plays a connector against a running \`npm run dev\` and prints each step.
  --url   base URL of the service (env DEMO_URL; default http://127.0.0.1:8787)
  --key   site API key (env DEMO_KEY; default: the key in ${rel(DEMO_KEY_FILE)})`;

const JOB_TIMEOUT_MS = 120_000;
const RESULTS_PAGE = 4; // small on purpose, to show pagination

function parseArgs(argv) {
  const opts = {};
  for (let i = 0; i < argv.length; i++) {
    const [name, inline] = argv[i].split(/=(.*)/s);
    const value = () => (inline !== undefined ? inline : argv[++i]);
    if (name === "--url") opts.url = value();
    else if (name === "--key") opts.key = value();
    else if (name === "--help" || name === "-h") opts.help = true;
    else throw new Error(`unknown argument ${argv[i]}\n${HELP}`);
  }
  return opts;
}

class DemoError extends Error {}

/**
 * The connector's HTTP layer: the generated client (client/, openapi-fetch over the types of
 * the OpenAPI document) with each call logged. `init` is openapi-fetch's: `{ params, body }`.
 */
function connector(baseUrl, key) {
  const api = createTransyncClient({ baseUrl, key });
  return async function call(method, path, init = {}, { expect = [200], quiet = false } = {}) {
    const started = performance.now();
    let res;
    try {
      res = await api.request(method.toLowerCase(), path, { ...init, signal: AbortSignal.timeout(30_000) });
    } catch (err) {
      throw new DemoError(
        `${method} ${path}: cannot reach ${baseUrl} (${err.cause?.code ?? err.cause?.errors?.[0]?.code ?? err.cause?.message ?? err.message}). Is \`npm run dev\` running?`,
      );
    }
    const { response } = res;
    const json = res.data ?? res.error ?? null;
    const shown = response.url ? new URL(response.url).pathname + new URL(response.url).search : path;
    const ms = Math.round(performance.now() - started);
    if (!quiet) console.log(dim(`  → ${method} ${decodeURIComponent(shown)} ${response.status} (${ms} ms)`));
    if (!expect.includes(response.status)) {
      const detail = json?.detail ?? JSON.stringify(json)?.slice(0, 500);
      if (response.status === 401)
        throw new DemoError(`${method} ${path}: 401 ${detail}\n  The key is not valid on ${baseUrl}: pass --key, or run \`npm run dev\` on an empty database to seed one.`);
      throw new DemoError(`${method} ${path}: expected ${expect.join("/")}, got ${response.status}: ${detail}`);
    }
    return { status: response.status, body: json };
  };
}

// ── printing ────────────────────────────────────────────────────────────────────────────
let stepNo = 0;
function heading(title) {
  console.log(`\n${bold(cyan(`${++stepNo}. ${title}`))}`);
}
const pad = (s, n) => {
  s = String(s);
  const visible = s.replace(/\x1b\[[0-9;]*m/g, "");
  return s + " ".repeat(Math.max(0, n - [...visible].length));
};
const clip = (s, n = 70) => {
  s = String(s).replace(/\n/g, "⏎");
  return [...s].length > n ? `${[...s].slice(0, n - 1).join("")}…` : s;
};
function table(headers, rows) {
  const widths = headers.map((h, i) => Math.max([...String(h)].length, ...rows.map((r) => [...String(r[i]).replace(/\x1b\[[0-9;]*m/g, "")].length)));
  console.log(`    ${headers.map((h, i) => bold(pad(h, widths[i]))).join("  ")}`);
  for (const row of rows) console.log(`    ${row.map((c, i) => pad(c, widths[i])).join("  ")}`);
}
const STATE = {
  ok: green("✓ ok"),
  review: cyan("review"),
  stale: yellow("stale"),
  missing: dim("· missing"),
  attention: red("! attention"),
};
const state = (s) => STATE[s] ?? s;

function printUnitStatus(label, unit, formats) {
  const langs = unit.languages.map((l) => l.code);
  console.log(`  ${bold(unit.external_key)} ${dim(`"${unit.label}", ${unit.segments_total} segments, ${unit.segments_needing_work} need work`)} ${dim(label)}`);
  table(
    ["segment", "format", ...langs],
    unit.segments.map((s) => [
      s.key,
      formats.get(s.key) ?? "",
      ...langs.map((l) => state(s.states[l]) + (s.qa?.[l]?.length ? yellow(` (${s.qa[l].map((q) => q.code).join(",")})`) : "")),
    ]),
  );
}

function printSiteStatus(status) {
  console.log(`  site: ${status.units_total} units, ${status.segments_total} segments, ${status.glossary_terms} glossary terms`);
  table(
    ["language", "ok", "review", "stale", "missing", "attention"],
    status.languages.map((l) => [l.code, l.ok, l.review, l.stale, l.missing, l.attention]),
  );
}

// ── sample content ──────────────────────────────────────────────────────────────────────
function sampleUnits(run) {
  return [
    {
      external_key: `post:welcome-${run}`,
      adapter: "wordpress",
      label: "Welcome to our shop",
      path: `/blog/welcome-${run}`,
      metadata: { post_type: "post", demo_run: run },
      segments: [
        { key: "title", field: "post_title", kind: "title", text: "Welcome to {site_name}", format: "plain" },
        {
          key: "content",
          field: "post_content",
          kind: "body",
          format: "html",
          text: '<p>Hello <strong>%s</strong>, you have <a href="https://example.com/inbox">{count} new messages</a>.</p>',
        },
        { key: "excerpt", field: "post_excerpt", kind: "excerpt", format: "markdown", text: "**Fast** set-up: read [the guide](https://example.com/guide) and run `npm install`." },
        {
          key: "meta_description",
          field: "_yoast_wpseo_metadesc",
          kind: "meta_description",
          format: "plain",
          max_length: 160,
          text: "Everything :name needs to know before ordering.",
        },
      ],
    },
    {
      external_key: `page:about-${run}`,
      adapter: "wordpress",
      label: "About us",
      path: `/about-${run}`,
      segments: [
        { key: "title", kind: "title", text: "About us", format: "plain" },
        {
          key: "content",
          kind: "body",
          format: "html",
          text: '<h2>Our story</h2><p>Since 2012 we ship to <em>%1$s countries</em>. <img src="/team.jpg" alt="Our team"></p>',
        },
      ],
    },
    {
      external_key: `term:news-${run}`,
      adapter: "wordpress",
      label: "News (category)",
      path: `/category/news-${run}`,
      segments: [
        { key: "name", kind: "title", text: "News", format: "plain" },
        { key: "description", kind: "body", format: "markdown", text: "Updates about *releases* and %(product)s events." },
      ],
    },
  ];
}

// ── the connector's session ─────────────────────────────────────────────────────────────
async function main() {
  const opts = parseArgs(process.argv.slice(2));
  if (opts.help) return void console.log(HELP);
  const baseUrl = (opts.url ?? process.env.DEMO_URL ?? "http://127.0.0.1:8787").replace(/\/+$/, "");
  const key = opts.key ?? process.env.DEMO_KEY ?? readDemoKey();
  if (!key) throw new DemoError(`No API key: run \`npm run dev\` first (it saves the demo key in ${rel(DEMO_KEY_FILE)}), or pass --key / DEMO_KEY.`);
  const call = connector(baseUrl, key);
  const run = Date.now().toString(36);
  const units = sampleUnits(run);
  const formats = new Map(units[0].segments.map((s) => [s.key, s.format]));
  const formatsOf = (u) => new Map(u.segments.map((s) => [s.key, s.format]));

  console.log(bold(`Transync demo connector → ${baseUrl}`) + dim(`  (key ${key.slice(0, 10)}…, run ${run})`));

  heading("Health and site (GET /v1/health, GET /v1/site)");
  const health = await call("GET", "/v1/health");
  const site = (await call("GET", "/v1/site")).body;
  console.log(`  service ${health.body.status}, API version ${health.body.api_version}`);
  console.log(
    `  site ${site.id} "${site.name}" of ${site.organization}: ${site.source_language} → ${site.target_languages.map((t) => `${t.code} (${t.engine}${t.writable ? ", writable" : ""})`).join(", ")}`,
  );

  heading("Handshake (POST /v1/handshake)");
  const hello = {
    connector_version: "transync-demo/1.0",
    adapters: ["wordpress"],
    source_language: "en",
    languages: ["de", "fr"],
    capabilities: ["qa_errors", "whole_unit"],
  };
  console.log(dim(`  sends ${JSON.stringify(hello)}`));
  const hs = (await call("POST", "/v1/handshake", { body: hello })).body;
  console.log(
    `  writable languages: ${
      hs.target_languages
        .filter((t) => t.writable)
        .map((t) => t.code)
        .join(", ") || red("none")
    }`,
  );
  console.log(`  capabilities understood: ${hs.capabilities.join(", ") || "none"}; qa_mode ${hs.qa_mode}, review_mode ${hs.review_mode}`);
  for (const w of hs.warnings) console.log(yellow(`  warning: ${w}`));
  const writable = hs.target_languages.filter((t) => t.writable).map((t) => t.code);
  if (!writable.length) throw new DemoError("no writable target language after the handshake; the site must have de or fr as target languages.");

  heading("Push sample content (PUT /v1/units/batch)");
  for (const u of units) console.log(`  ${bold(u.external_key)}: ${u.segments.map((s) => `${s.key} [${s.format}]`).join(", ")}`);
  const batch = (await call("PUT", "/v1/units/batch", { body: { units } })).body;
  table(
    ["unit", "ok", "created", "added", "changed", "removed", "unchanged", "stale"],
    batch.results.map((r) => [
      r.external_key,
      r.ok ? green("yes") : red(`no: ${r.error}`),
      r.result?.unit_created ?? "",
      r.result?.added ?? "",
      r.result?.changed ?? "",
      r.result?.removed ?? "",
      r.result?.unchanged ?? "",
      r.result?.stale_translations ?? "",
    ]),
  );
  if (batch.results.some((r) => !r.ok)) throw new DemoError("the service refused a sample unit (see above).");
  const again = (await call("PUT", "/v1/units", { body: units[1] }, { quiet: true })).body;
  console.log(`  pushing ${units[1].external_key} again unchanged is a no-op: added ${again.added}, changed ${again.changed}, unchanged ${again.unchanged}`);

  heading("State before translation (GET /v1/units/{key}/status, GET /v1/status)");
  const unitKey = units[0].external_key;
  const unitStatus = (external_key, opts) => call("GET", "/v1/units/{external_key}/status", { params: { path: { external_key } } }, opts);
  printUnitStatus("before", (await unitStatus(unitKey)).body, formats);
  const statusBefore = (await call("GET", "/v1/status")).body;
  printSiteStatus(statusBefore);

  const jobBody = { type: "translate", units: units.map((u) => u.external_key) };
  heading("Estimate (POST /v1/jobs, estimate_only)");
  const est = (await call("POST", "/v1/jobs", { body: { ...jobBody, estimate_only: true } })).body;
  console.log(
    `  ${est.estimated_segments} segments into ${est.languages.join(", ")}: ${est.estimated_characters} billable characters, ${est.estimated_tm_segments} from the translation memory`,
  );
  const c = est.cost;
  console.log(
    `  plan volume: ${c.included_characters === null ? "not metered" : `${c.included_characters} included`}, used ${c.used_characters} this month, reserved ${c.reserved_characters}; ` +
      `overage ${c.overage_characters} chars (${c.overage_cents} ${c.currency} cents); confirmation ${c.requires_confirmation ? "required" : "not required"}`,
  );

  heading("Start the job (POST /v1/jobs, confirm true) and poll it (GET /v1/jobs/{id})");
  let job = (await call("POST", "/v1/jobs", { body: { ...jobBody, confirm: true } }, { expect: [202] })).body;
  console.log(`  job ${job.id} ${job.status}: ${job.type} of ${job.units?.length ?? 0} units into ${job.languages.join(", ")}, ${job.estimated_segments} segments estimated`);
  const deadline = Date.now() + JOB_TIMEOUT_MS;
  let last = "";
  while (["queued", "running"].includes(job.status)) {
    if (Date.now() > deadline) throw new DemoError(`job ${job.id} still ${job.status} after ${JOB_TIMEOUT_MS / 1000} s`);
    await new Promise((r) => setTimeout(r, 400));
    job = (await call("GET", "/v1/jobs/{job_id}", { params: { path: { job_id: job.id } } }, { quiet: true })).body;
    const line = `${job.status}: ${job.done_segments}/${job.estimated_segments} done, ${job.failed_segments} failed`;
    if (line !== last) console.log(`  … ${line}`);
    last = line;
  }
  const paint = job.status === "succeeded" ? green : red;
  console.log(
    `  ${paint(`job ${job.id} ${job.status}`)}: ${job.done_segments} segments done, ${job.failed_segments} failed, ${job.characters} characters billed, ` +
      `${job.tm_segments} from memory, ${job.reused_segments} repeats reused, ${job.qa_failed_segments} held back by QA`,
  );
  for (const e of job.errors) console.log(red(`  error (${e.language}, ${e.segments} segments): ${e.message}`));

  heading(`Pull results (GET /v1/results, pages of ${RESULTS_PAGE})`);
  const results = [];
  let cursor = null;
  let page = 0;
  do {
    const res = (await call("GET", "/v1/results", { params: { query: { limit: RESULTS_PAGE, ...(cursor ? { cursor } : {}) } } })).body;
    page++;
    results.push(...res.results);
    cursor = res.next_cursor;
  } while (cursor && page < 1000);
  console.log(`  ${results.length} results in ${page} page${page === 1 ? "" : "s"}`);
  const ours = new Set(units.map((u) => u.external_key));
  table(
    ["id", "unit", "segment", "lang", "origin", "text", "qa"],
    results.map((r) => [
      r.id,
      ours.has(r.unit) ? r.unit : dim(r.unit),
      r.key,
      r.language,
      `${r.origin}/${r.engine}`,
      clip(r.text, 60),
      r.qa.map((q) => `${q.severity}:${q.code}`).join(","),
    ]),
  );
  const unitResults = results.filter((r) => r.unit === unitKey);

  heading("Acknowledge (POST /v1/results/ack): the connector wrote them as drafts");
  const ack = (await call("POST", "/v1/results/ack", { body: { ids: results.map((r) => r.id) } })).body;
  console.log(`  acknowledged ${ack.acknowledged} of ${results.length}`);
  const left = (await call("GET", "/v1/results", { params: { query: { limit: 500 } } })).body;
  console.log(`  GET /v1/results now lists ${left.results.length} result${left.results.length === 1 ? "" : "s"}`);
  const ackAgain = (await call("POST", "/v1/results/ack", { body: { ids: results.map((r) => r.id) } }, { quiet: true })).body;
  console.log(`  repeating the acknowledgement is safe: acknowledged ${ackAgain.acknowledged} again, nothing changes`);

  heading("Editors' reviews (POST /v1/reviews)");
  const pick = (segment, language) => unitResults.find((r) => r.key === segment && r.language === language);
  const lang2 = writable[1] ?? writable[0];
  const chosen = [
    { result: pick("title", writable[0]), outcome: "approved", text: writable[0] === "de" ? "Willkommen bei {site_name}" : "Bienvenue sur {site_name}", reviewer: "anna" },
    { result: pick("excerpt", lang2), outcome: "approved", reviewer: "marc" },
    { result: pick("content", writable[0]), outcome: "rejected", reviewer: "anna" },
  ].filter((c) => c.result);
  const reviews = chosen.map((c) => ({ id: c.result.id, outcome: c.outcome, reviewer: c.reviewer, ...(c.text ? { text: c.text } : {}) }));
  for (const c of chosen)
    console.log(
      `  ${c.result.id} ${c.result.key}/${c.result.language}: ${c.outcome === "approved" ? green(c.outcome) : red(c.outcome)}${c.text ? ` with edited text "${c.text}"` : c.outcome === "approved" ? " as is" : ""} (by ${c.reviewer})`,
    );
  const rev = (await call("POST", "/v1/reviews", { body: { reviews } })).body;
  console.log(`  updated ${rev.updated}, ignored ${rev.ignored.length ? rev.ignored.join(", ") : "none"}`);

  heading("State after (GET /v1/units/{key}/status, GET /v1/status)");
  printUnitStatus("after", (await unitStatus(unitKey)).body, formats);
  for (const u of units.slice(1)) printUnitStatus("after", (await unitStatus(u.external_key, { quiet: true })).body, formatsOf(u));
  const statusAfter = (await call("GET", "/v1/status")).body;
  printSiteStatus(statusAfter);
  const diff = statusAfter.languages
    .map((l) => {
      const b = statusBefore.languages.find((x) => x.code === l.code) ?? {};
      return `${l.code}: ${["ok", "review", "missing"].map((k) => `${k} ${b[k] ?? 0}→${l[k]}`).join(", ")}`;
    })
    .join("; ");
  console.log(`  change since before the job: ${diff}`);
  console.log(`\n${green("Done.")} Approved segments are ok, the rejected one is missing again (the next delta job retranslates it), the rest wait in review as drafts.`);
}

main().catch((err) => {
  console.error(red(`\ndemo: ${err instanceof DemoError ? err.message : (err?.stack ?? err)}`));
  process.exit(1);
});
