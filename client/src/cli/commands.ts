// The commands: push, translate, pull, sync, status, approve, reject. Each takes the settings and
// answers a plain object (printed with --json); the lines for people go through Output.
import { existsSync, readFileSync } from "node:fs";
import { join, relative, resolve, sep } from "node:path";
import { isAdapter } from "../adapters.js";
import { EditMismatchError, editorReviews, unitStatusWithTexts } from "../documents.js";
import { TransyncError } from "../errors.js";
import { ack, pendingResults, previousSegments, pushUnits, runJob, review as sendReviews } from "../helpers.js";
import { createTransyncClient, type Schemas, type TransyncClient } from "../index.js";
import { send } from "../retry.js";
import { type Config, UsageError } from "./config.js";
import { fileSplitter, listFiles, splitFile, unitKey } from "./files.js";
import type { Output } from "./output.js";
import { LANGUAGE, languageProblem, outputRoot, UnsafePath, writeUnder } from "./paths.js";

export const VERSION = "transync-cli/0.1.0";

/** The command needs confirmation (exit 3): a job over the plan's volume or 100,000 characters. */
export class NeedsConfirmation extends Error {
  constructor(readonly estimate: unknown) {
    super("the job needs confirmation: run again with --yes to start it");
  }
}
/** The command ran but something in it failed (exit 1). */
export class Failed extends Error {}

type Api = TransyncClient;
const createApi = (url: string, key: string): Api => createTransyncClient({ baseUrl: url, key });

interface Context {
  config: Config;
  api: Api;
  site: Schemas["HandshakeOut"];
  out: Output;
}

const toSlash = (p: string) => p.split(sep).join("/");

async function connect(config: Config, out: Output): Promise<Context> {
  const api = createApi(config.url, config.key);
  const site = await send(() => api.GET("/v1/site"), "all");
  const languages = config.languages ?? site.target_languages.map((l) => l.code);
  const body: Schemas["HandshakeIn"] = {
    connector_version: VERSION,
    source_language: site.source_language,
    languages,
    capabilities: ["whole_unit"],
    ...(config.adapter ? { adapters: [config.adapter] } : {}),
  };
  const answer = await send(() => api.POST("/v1/handshake", { body }), "all");
  for (const w of answer.warnings) out.warn(w);
  return { config, api, site: answer, out };
}

/** Where a language's translation of `rel` (a path under `dir`) goes, from the working directory. */
function outPath(config: Config, lang: string, rel: string): string {
  return config.out.replaceAll("{lang}", lang).replaceAll("{path}", rel);
}

interface LocalFile {
  rel: string;
  fromCwd: string;
  key: string;
  split: ReturnType<typeof splitFile>;
}

/**
 * The files to push, each split with its unit's current segments in the service (one
 * `POST /v1/units/texts` per 100 files), so an edited block keeps its key: its segment becomes
 * stale and keeps its earlier translation beside the change. No state is kept locally.
 */
async function localFiles(ctx: Context): Promise<LocalFile[]> {
  const { config } = ctx;
  const root = resolve(config.cwd, config.dir);
  // The output folders of every target language are never pushed as sources.
  const excluded = ctx.site.target_languages.filter((l) => LANGUAGE.test(l.code)).map((l) => toSlash(relative(root, resolve(config.cwd, outPath(config, l.code, "")))));
  const found = listFiles(
    root,
    config.include,
    excluded.filter((x) => x && !x.startsWith("..")),
  ).map((rel) => {
    const fromCwd = toSlash(join(config.dir, rel));
    return { rel, fromCwd, key: unitKey(fromCwd), text: readFileSync(join(root, rel), "utf8") };
  });
  // A file of a kind the kit does not split stops the push before anything is asked of the service.
  for (const f of found) fileSplitter(f.fromCwd, 'narrow "include" to these');
  const previous = found.length
    ? await previousSegments(
        ctx.api,
        found.map((f) => f.key),
      )
    : new Map();
  return found.map(({ text, ...f }) => ({ ...f, split: splitFile(f.rel, text, config.fields, previous.get(f.key)) }));
}

export async function push(config: Config, out: Output, given?: Context) {
  const ctx = given ?? (await connect(config, out));
  const files = await localFiles(ctx);
  const adapter = config.adapter ?? ctx.site.enabled_adapters.find(isAdapter);
  if (!adapter) throw new Failed("the site has no enabled adapter: set `adapter` or enable one in the dashboard");
  // A file the service would refuse, or whose front matter cannot be read, is reported by its line and not pushed.
  const refused = files.filter((f) => f.split.problems?.length);
  const units: Schemas["UnitSnapshotIn"][] = files
    .filter((f) => !f.split.problems?.length)
    .map((f) => ({
      external_key: f.key,
      adapter,
      label: f.fromCwd,
      path: f.fromCwd,
      source_language: ctx.site.source_language,
      segments: f.split.segments,
    }));
  // Batches of at most 100 units and under 10 MB, one after another (the contract's rule).
  const pushed = await pushUnits(ctx.api, units, { onProgress: (p) => out.progress("push", p.done, p.total) });
  const totals = { units: units.length, added: 0, changed: 0, removed: 0, unchanged: 0, stale_translations: 0 };
  const failed = [...refused.map((f) => ({ external_key: f.key, error: `${f.fromCwd}: ${f.split.problems!.map((p) => p.message).join("; ")}` })), ...pushed.failed];
  for (const f of failed) out.error(`${f.external_key}: ${f.error}`);
  for (const { result } of pushed.synced) {
    for (const k of ["added", "changed", "removed", "unchanged", "stale_translations"] as const) totals[k] += result[k];
  }
  out.say(`pushed ${units.length} file(s): ${totals.added} added, ${totals.changed} changed, ${totals.removed} removed, ${totals.unchanged} unchanged segments`);
  const result = { ...totals, failed, adapter };
  if (failed.length > 0 && !given) throw Object.assign(new Failed(`${failed.length} file(s) failed to push`), { result });
  return { ctx, files, result };
}

export async function translate(config: Config, out: Output, opts: { yes: boolean }, given?: { ctx: Context; files: LocalFile[] }) {
  const ctx = given?.ctx ?? (await connect(config, out));
  const files = given?.files ?? (await localFiles(ctx));
  const jobs: Schemas["JobOut"][] = [];
  // One job for the CLI's own files (a `translate` job names at most 1,000 units).
  for (let i = 0; i < files.length; i += 1000) {
    const units = files.slice(i, i + 1000).map((f) => f.key);
    const body: Schemas["JobIn"] = { type: "translate", units, estimate_only: true };
    const estimate = (await send(() => ctx.api.POST("/v1/jobs", { body }), "all")) as Schemas["JobEstimateOut"];
    if (estimate.estimated_segments === 0) continue;
    out.say(`${estimate.estimated_segments} segment(s), ${estimate.estimated_characters} characters to translate into ${estimate.languages.join(", ")}`);
    if (estimate.cost.requires_confirmation && !opts.yes) throw new NeedsConfirmation(estimate);
    let job: Schemas["JobOut"];
    try {
      job = await runJob(ctx.api, { type: "translate", units }, { confirm: opts.yes, onProgress: (j) => out.progress(`job ${j.id}`, j.done_segments, j.estimated_segments) });
    } catch (e) {
      if (e instanceof TransyncError && e.status === 409) throw new NeedsConfirmation(e.estimate ?? estimate);
      throw e;
    }
    for (const err of job.errors) out.warn(`${err.language}: ${err.message} (${err.segments} segment(s))`);
    jobs.push(job);
    if (job.status !== "succeeded") throw Object.assign(new Failed(`job ${job.id} ${job.status}`), { result: { jobs } });
  }
  if (jobs.length === 0) out.say("nothing to translate");
  else out.say(`translated ${jobs.reduce((n, j) => n + j.done_segments, 0)} segment(s) in ${jobs.length} job(s)`);
  return { ctx, files, result: { jobs: jobs.map((j) => ({ id: j.id, status: j.status, done_segments: j.done_segments, characters: j.characters })) } };
}

/** A unit's segments with their source text and current translations (`include=text,results`). */
const unitStatus = (api: Api, key: string) => unitStatusWithTexts(api, key);

export async function pull(config: Config, out: Output, given?: { ctx: Context; files: LocalFile[] }) {
  const ctx = given?.ctx ?? (await connect(config, out));
  const files = new Map((given?.files ?? (await localFiles(ctx))).map((f) => [f.key, f]));
  const pending: Schemas["ResultOut"][] = [];
  for await (const page of pendingResults(ctx.api, { limit: 500 })) pending.push(...page.filter((r) => files.has(r.unit)));
  const byUnit = new Map<string, Schemas["ResultOut"][]>();
  for (const r of pending) byUnit.set(r.unit, [...(byUnit.get(r.unit) ?? []), r]);
  const written: { path: string; language: string }[] = [];
  const skipped: { path: string; language: string; reason: string }[] = [];
  const acks: string[] = [];
  // A translation is written only in one of the site's languages, under the output root, through no symbolic link (paths.ts).
  const siteLanguages = ctx.site.target_languages.map((l) => l.code);
  const root = outputRoot(config.cwd, config.out);
  let done = 0;
  for (const [key, results] of byUnit) {
    const file = files.get(key);
    if (!file) continue;
    // The unit's current translations (also those delivered earlier), so the file is written whole.
    const status = await unitStatus(ctx.api, key);
    for (const lang of [...new Set(results.map((r) => r.language))]) {
      const refused = languageProblem(lang, siteLanguages);
      if (refused) {
        skipped.push({ path: file.fromCwd, language: lang, reason: `the service answered the language "${lang}", which ${refused}: not written` });
        continue;
      }
      const translations: Record<string, string> = {};
      for (const s of status.segments) {
        const t = s.results?.[lang];
        if (t) translations[s.key] = t.text;
      }
      for (const r of results) if (r.language === lang) translations[r.key] = r.text;
      const lacking = file.split.segments.filter((s) => translations[s.key] === undefined).length;
      const path = toSlash(outPath(config, lang, file.rel));
      if (lacking > 0) {
        // Whole units only: a file is written when every segment has its translation.
        skipped.push({ path, language: lang, reason: `${lacking} segment(s) not translated yet (or the file changed since the push)` });
        continue;
      }
      try {
        writeUnder(root, resolve(config.cwd, path), file.split.join(translations));
      } catch (e) {
        if (!(e instanceof UnsafePath)) throw e;
        skipped.push({ path, language: lang, reason: `not written: ${e.message}` });
        continue;
      }
      written.push({ path, language: lang });
      acks.push(...results.filter((r) => r.language === lang).map((r) => r.id));
    }
    out.progress("pull", ++done, byUnit.size);
  }
  const acknowledged = await ack(ctx.api, acks);
  for (const s of skipped) out.warn(`${s.path}: ${s.reason}`);
  out.say(`wrote ${written.length} draft(s), acknowledged ${acknowledged} result(s)`);
  return { written, skipped, acknowledged };
}

export async function sync(config: Config, out: Output, opts: { yes: boolean }) {
  const pushed = await push(config, out);
  const translated = await translate(config, out, opts, pushed);
  const pulled = await pull(config, out, pushed);
  const result = { push: pushed.result, translate: translated.result, pull: pulled };
  if (pushed.result.failed.length > 0) throw Object.assign(new Failed(`${pushed.result.failed.length} file(s) failed to push`), { result });
  return result;
}

export async function status(config: Config, out: Output) {
  const api = createApi(config.url, config.key);
  // The units of files under `dir` (all the site's units when `dir` is the working directory).
  const prefix = config.dir === "." ? "" : `${unitKey(config.dir)}:`;
  const site = await send(() => api.GET("/v1/status", { params: { query: { prefix } } }), "all");
  const units: Schemas["UnitWorkOut"][] = [];
  let cursor: string | undefined;
  do {
    const query = { limit: 500, prefix, ...(cursor ? { cursor } : {}) };
    const page = await send(() => api.GET("/v1/units", { params: { query } }), "all");
    units.push(...page.units);
    cursor = page.next_cursor ?? undefined;
  } while (cursor);
  out.say(`${site.units_total} file(s), ${site.segments_total} segment(s)`);
  for (const l of site.languages) out.say(`  ${l.code}: ${l.ok} ok, ${l.review} review, ${l.stale} stale, ${l.missing} missing, ${l.attention} attention`);
  for (const u of units) out.say(`  ${u.path || u.external_key}: ${u.languages.map((l) => `${l.code} ${l.missing} missing, ${l.stale} stale, ${l.review} review`).join("; ")}`);
  return { ...site, units };
}

export async function review(config: Config, out: Output, path: string, opts: { lang?: string; textFrom?: string; outcome: "approved" | "rejected" }) {
  if (!opts.lang) throw new UsageError("--lang is required");
  const api = createApi(config.url, config.key);
  const rel = toSlash(relative(config.cwd, resolve(config.cwd, path)));
  const key = unitKey(rel);
  let status: Awaited<ReturnType<typeof unitStatus>>;
  try {
    status = await unitStatus(api, key);
  } catch (e) {
    if (e instanceof TransyncError && e.status === 404) throw new Failed(`${rel} is not known to the service (unit ${key}): push it first`);
    throw e;
  }
  const lang = opts.lang;
  // With --text-from, the editor's version of the translated file: its blocks line up with the unit's segments in order.
  let edited: ReturnType<typeof splitFile> | undefined;
  if (opts.textFrom) {
    if (!existsSync(opts.textFrom)) throw new UsageError(`${opts.textFrom} does not exist`);
    edited = splitFile(opts.textFrom, readFileSync(opts.textFrom, "utf8"), config.fields);
  }
  let reviews: Schemas["ReviewsIn"]["reviews"];
  try {
    reviews = editorReviews(status, lang, { outcome: opts.outcome, edited });
  } catch (e) {
    if (e instanceof EditMismatchError) throw new Failed(`${opts.textFrom} has ${e.blocks} block(s), the unit has ${e.segments}: it does not line up with ${rel}`);
    throw e;
  }
  const { updated, ignored } = reviews.length > 0 ? await sendReviews(api, reviews) : { updated: 0, ignored: [] };
  out.say(`${opts.outcome} ${updated} translation(s) of ${rel} in ${lang}${ignored.length ? ` (${ignored.length} ignored)` : ""}`);
  return { path: rel, unit: key, language: lang, outcome: opts.outcome, updated, ignored, edited: reviews.filter((r) => r.text !== undefined).length };
}
