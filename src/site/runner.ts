/**
 * The job runner, driven by the site object's alarm: jobs run one at a time in request order.
 * A job's scope is fixed when it starts (job_items); the items are then worked off in slices,
 * each persisted in one transaction (results, translations, item states, counters) before the
 * next, so a retried alarm or an evicted object resumes where the last slice ended and never
 * translates or counts an item twice. Engine calls happen between slices, never inside a
 * transaction. Usage is metered per slice with an idempotent (job, slice) ledger entry.
 */
import { eq } from "drizzle-orm";
import { estimateCost, recordUsage, release, releaseInactive, reserve } from "../billing/billing";
import { controlDb } from "../control/db";
import { glossaryTerms } from "../control/schema";
import type { SiteSettings } from "../control/sites";
import { createEngine } from "../engines/registry";
import { EngineError, type Engine, type EngineEnv, type GlossaryTerm } from "../engines/types";
import type { EngineName, Format } from "../limits";
import { runQA } from "../qa";
import { refreshUnits } from "./counts";
import { estimateScope, type JobRow, type JobScope, scopeQuery } from "./jobs";
import { lookupMemory, memoryKey } from "./memory";
import { capabilities, siteTargets } from "./settings";
import { stateSql } from "./state";
import type { Store } from "./store";

/** Items per slice: one language, a bounded number of engine requests (at most ⌈250/limit⌉ per engine). */
export const SLICE_ITEMS = 250;
/** Wall time one alarm invocation spends before yielding to a fresh alarm. */
const INVOCATION_BUDGET_MS = 10_000;
/**
 * Slices one invocation runs at most: keeps its engine calls well inside the platform's
 * subrequest limit (Workers AI makes one call per text: 20 × 250 = 5,000 of 10,000).
 */
const SLICES_PER_INVOCATION = 20;

export interface RunnerDeps {
  store: Store;
  env: Env & EngineEnv;
  settings: SiteSettings;
  /** Engines by name; tests may inject their own. */
  engineFor?: (name: EngineName) => Engine;
}

interface SliceItem {
  segment_id: number;
  unit_id: number;
  language: string;
  text: string;
  fingerprint: string;
  /** The text's code points, stored at push. */
  characters: number;
  format: Format;
  field: string | null;
  kind: string | null;
  max_length: number | null;
  source_language: string;
  state: string;
  live: number;
  /** The translation row as the slice read it; a different one at commit means someone else wrote it meanwhile. */
  mark: string;
  /** 1 when the connector imported this translation after the job started. */
  imported_since: number;
}

/** What identifies a translation row's version: a write by an import, a review or a fix changes it. */
const TRANSLATION_MARK = `coalesce(t.updated_at || '|' || t.status || '|' || t.origin || '|' || coalesce(t.result_id, ''), '')`;

const isRunning = (store: Store, id: number) => store.one("SELECT 1 AS x FROM jobs WHERE id = ? AND status = 'running'", id) !== undefined;

export function currentJob(store: Store): JobRow | undefined {
  return store.one<JobRow>("SELECT * FROM jobs WHERE status IN ('queued', 'running') ORDER BY id LIMIT 1");
}

function addError(store: Store, jobId: number, language: string, message: string, segments: number) {
  const job = store.one<{ errors: string }>("SELECT errors FROM jobs WHERE id = ?", jobId)!;
  const errors = JSON.parse(job.errors) as { language: string; message: string; segments: number }[];
  const same = errors.find((e) => e.language === language && e.message === message);
  if (same) same.segments += segments;
  else errors.push({ language, message, segments });
  store.run("UPDATE jobs SET errors = ? WHERE id = ?", JSON.stringify(errors), jobId);
}

function finish(store: Store, jobId: number, status: "succeeded" | "failed", error?: string) {
  store.tx(() => {
    if (error) addError(store, jobId, "", error, 0);
    store.run("UPDATE jobs SET status = ?, finished_at = ? WHERE id = ? AND status IN ('queued', 'running')", status, store.now(), jobId);
    store.run("DELETE FROM job_items WHERE job_id = ?", jobId);
  });
}

/** Fails a job whose slices keep throwing for reasons other than engines (a bug), so the queue moves on. */
export async function abandonJob(deps: RunnerDeps, jobId: number) {
  await release(controlDb(deps.env.DB), deps.settings.id, [jobId]);
  finish(deps.store, jobId, "failed", "The job stopped after repeated internal errors; request it again. Segments already translated are kept.");
}

/** Fails every pending item of a language: a per-language problem (JobError); the segments stay missing. */
function failLanguage(store: Store, jobId: number, language: string, message: string) {
  store.tx(() => {
    const n = store.run("UPDATE job_items SET status = 'failed' WHERE job_id = ? AND language = ? AND status = 'pending'", jobId, language);
    store.run("UPDATE jobs SET failed_segments = failed_segments + ? WHERE id = ?", n, jobId);
    addError(store, jobId, language, message, n);
  });
}

/** queued → running: re-evaluates the scope and its cost, and fixes the items to work off. */
async function start(deps: RunnerDeps, job: JobRow): Promise<boolean> {
  const { store, settings } = deps;
  const scope = JSON.parse(job.request) as JobScope;
  const languages = JSON.parse(job.languages) as string[];
  const estimate = estimateScope(store, settings, scope, languages);
  const db = controlDb(deps.env.DB);
  const { ent, estimate: cost } = await estimateCost(db, settings, estimate.estimated_characters, deps.store.clock(), {
    createdAt: job.created_at,
    siteId: settings.id,
    jobId: job.id,
  });
  // Cancelled while the cost was being checked.
  if (store.one("SELECT 1 AS x FROM jobs WHERE id = ? AND status = 'queued'", job.id) === undefined) return false;
  if (estimate.estimated_characters > 0 && !ent.entitled) {
    await release(db, settings.id, [job.id]);
    finish(store, job.id, "failed", `Hosted translation is no longer available for this site: ${ent.reason}`);
    return false;
  }
  const allowed = job.confirmed_characters ?? (cost.requires_confirmation ? 0 : estimate.estimated_characters);
  if (estimate.estimated_characters > allowed) {
    await release(db, settings.id, [job.id]);
    finish(
      store,
      job.id,
      "failed",
      `The job's cost has grown to ${estimate.estimated_characters} billable characters, beyond the ${allowed} that were ${job.confirmed_characters === null ? "accepted without confirmation" : "confirmed"}. Request the job again and confirm the new estimate.`,
    );
    return false;
  }
  const q = scopeQuery(settings, scope, languages, `${Number(job.id)} AS job_id, s.id AS segment_id, l.value AS language`);
  store.tx(() => {
    store.run(
      `INSERT OR IGNORE INTO job_items (job_id, segment_id, language) ${q.sql}`,
      ...q.args,
    );
    store.run(
      `UPDATE jobs SET status = 'running', started_at = ?, estimated_segments = ?, estimated_characters = ?, estimated_tm_segments = ? WHERE id = ? AND status = 'queued'`,
      store.now(),
      estimate.estimated_segments,
      estimate.estimated_characters,
      estimate.estimated_tm_segments,
      job.id,
    );
  });
  if (isRunning(store, job.id)) await reserve(db, settings, job.id, estimate.estimated_characters, job.created_at);
  return true;
}

/** The organization's glossary by lowercased target language, read once per alarm invocation. */
const glossaryCache = new WeakMap<RunnerDeps, Promise<Map<string, GlossaryTerm[]>>>();

async function glossaryFor(deps: RunnerDeps, language: string): Promise<GlossaryTerm[]> {
  let byLanguage = glossaryCache.get(deps);
  if (!byLanguage) {
    byLanguage = controlDb(deps.env.DB)
      .select()
      .from(glossaryTerms)
      .where(eq(glossaryTerms.organizationId, deps.settings.organizationId))
      .then((rows) => {
        const map = new Map<string, GlossaryTerm[]>();
        for (const r of rows) {
          const key = r.language.toLowerCase();
          const term = { source: r.source, target: r.target, language: r.language, caseSensitive: r.caseSensitive };
          map.set(key, [...(map.get(key) ?? []), term]);
        }
        return map;
      });
    glossaryCache.set(deps, byLanguage);
    // A failed read is not cached: the next slice asks again.
    byLanguage.catch(() => glossaryCache.delete(deps));
  }
  return (await byLanguage).get(language.toLowerCase()) ?? [];
}

interface Produced {
  item: SliceItem;
  text: string;
  origin: string;
  engine: string;
  kind: "engine" | "memory" | "reuse";
}

/** Works off one slice of the job. Answers false when the job has no pending items left. */
async function runSlice(deps: RunnerDeps, job: JobRow): Promise<boolean> {
  const { store, settings } = deps;
  const scope = JSON.parse(job.request) as JobScope;
  const next = store.one<{ language: string }>("SELECT language FROM job_items WHERE job_id = ? AND status = 'pending' LIMIT 1", job.id);
  if (!next) return false;
  const language = next.language;
  const items = store.all<SliceItem>(
    `SELECT ji.segment_id, s.unit_id, ji.language, s.text, s.fingerprint, s.characters, s.format, s.field, s.kind, s.max_length,
       coalesce(u.source_language, ?3) AS source_language, ${stateSql()} AS state, (s.removed = 0 AND u.deleted = 0) AS live,
       ${TRANSLATION_MARK} AS mark, coalesce(t.origin = 'imported' AND t.updated_at >= ?5, 0) AS imported_since
     FROM job_items ji JOIN segments s ON s.id = ji.segment_id JOIN units u ON u.id = s.unit_id
     LEFT JOIN translations t ON t.segment_id = s.id AND t.language = ji.language
     WHERE ji.job_id = ?1 AND ji.language = ?2 AND ji.status = 'pending'
     ORDER BY ji.segment_id LIMIT ?4`,
    job.id,
    language,
    settings.sourceLanguage,
    SLICE_ITEMS,
    job.started_at ?? "",
  );
  // Items that left the scope since the job started (removed, deleted, imported, translated) are skipped.
  // An import since the job started wins, also over a forced job.
  const skipped = items.filter((i) => !i.live || i.imported_since === 1 || (!scope.force && i.state !== "missing" && i.state !== "stale"));
  const work = items.filter((i) => !skipped.includes(i));

  const target = settings.targetLanguages.find((t) => t.code === language);
  const engineName = target?.engine;
  const engineProblem = !target
    ? `${language} is no longer a target language of the site.`
    : !settings.enabledEngines.includes(target.engine)
      ? `The engine ${target.engine} is not enabled for this site.`
      : undefined;
  if (engineProblem && work.length) {
    failLanguage(store, job.id, language, engineProblem);
    return true;
  }
  const engine = work.length ? (deps.engineFor ?? ((n) => createEngine(n, deps.env)))(engineName!) : undefined;
  if (engine && !engine.supports(language)) {
    failLanguage(store, job.id, language, `The ${engine.name} engine does not translate into ${language}.`);
    return true;
  }

  const produced: Produced[] = [];
  const memory = scope.force
    ? new Map<string, string>()
    : lookupMemory(store, work.map((i) => ({ fingerprint: i.fingerprint, sourceLanguage: i.source_language, targetLanguage: language })));
  // Texts translated earlier in this job are reused, not sent again.
  const earlier = new Map<string, { text: string; origin: string; engine: string }>();
  if (work.length)
    for (const r of store.all<{ fp: string; text: string; origin: string; engine: string }>(
      // CROSS JOIN keeps the join order: one index look-up per fingerprint of the slice.
      `SELECT r.source_fingerprint AS fp, r.text, r.origin, r.engine FROM json_each(?3) j
       CROSS JOIN results r ON r.job_id = ?1 AND r.language = ?2 AND r.source_fingerprint = j.value`,
      job.id,
      language,
      JSON.stringify([...new Set(work.map((i) => i.fingerprint))]),
    ))
      earlier.set(r.fp, r);

  const toSend = new Map<string, SliceItem[]>(); // by source language + fingerprint
  for (const item of work) {
    const hit = memory.get(memoryKey({ fingerprint: item.fingerprint, sourceLanguage: item.source_language, targetLanguage: language }));
    if (hit !== undefined) produced.push({ item, text: hit, origin: "tm_exact", engine: "memory", kind: "memory" });
    else if (earlier.has(item.fingerprint)) {
      const e = earlier.get(item.fingerprint)!;
      produced.push({ item, text: e.text, origin: e.origin, engine: e.engine, kind: "reuse" });
    } else {
      const key = `${item.source_language}\u0000${item.fingerprint}`;
      const list = toSend.get(key);
      if (list) list.push(item);
      else toSend.set(key, [item]);
    }
  }

  let billed = 0;
  if (toSend.size && engine) {
    const bySource = new Map<string, SliceItem[][]>();
    for (const group of toSend.values()) {
      const src = group[0].source_language;
      const list = bySource.get(src);
      if (list) list.push(group);
      else bySource.set(src, [group]);
    }
    const glossary = await glossaryFor(deps, language);
    try {
      for (const [sourceLanguage, groups] of bySource) {
        const texts = await engine.translate({
          sourceLanguage,
          targetLanguage: language,
          formality: target!.formality,
          glossary,
          segments: groups.map(([first]) => ({ text: first.text, format: first.format, kind: first.kind, field: first.field, maxLength: first.max_length })),
        });
        groups.forEach((group, g) => {
          billed += group[0].characters;
          group.forEach((item, i) =>
            produced.push({ item, text: texts[g], origin: engine.origin, engine: engine.name, kind: i === 0 ? "engine" : "reuse" }),
          );
        });
      }
    } catch (err) {
      if (!(err instanceof EngineError)) throw err;
      failLanguage(store, job.id, language, err.message);
      return true;
    }
  }

  // Meter first: if the object dies before the slice commits, the redone slice has the same number and its write replaces this one.
  const slice = job.slices + 1;
  await recordUsage(controlDb(deps.env.DB), settings, job.id, slice, billed, store.clock());
  persistSlice(deps, job, slice, language, produced, skipped, billed, produced.length ? await glossaryFor(deps, language) : []);
  return true;
}

function persistSlice(
  deps: RunnerDeps,
  job: JobRow,
  slice: number,
  language: string,
  engineOutput: Produced[],
  skippedBefore: SliceItem[],
  billed: number,
  glossary: GlossaryTerm[],
) {
  const { store, settings } = deps;
  const holdErrors = !(settings.qaMode === "editors" && capabilities(store).has("qa_errors"));
  const now = store.now();
  store.tx(() => {
    const current = store.one<{ slices: number }>("SELECT slices FROM jobs WHERE id = ?", job.id);
    if (!current || current.slices !== job.slices) return; // another invocation already persisted this slice
    // An import (or a review, a fix) that wrote a translation while the engine was working wins: the job's result for it is not delivered.
    const marks = new Map(
      store
        .all<{ segment_id: number; mark: string }>(
          `SELECT j.value AS segment_id, ${TRANSLATION_MARK} AS mark FROM json_each(?1) j LEFT JOIN translations t ON t.segment_id = j.value AND t.language = ?2`,
          JSON.stringify(engineOutput.map((p) => p.item.segment_id)),
          language,
        )
        .map((r) => [r.segment_id, r.mark]),
    );
    const produced = engineOutput.filter((p) => marks.get(p.item.segment_id) === p.item.mark);
    const skipped = produced.length === engineOutput.length ? skippedBefore : skippedBefore.concat(engineOutput.filter((p) => !produced.includes(p)).map((p) => p.item));
    const counters = { done: 0, qaFailed: 0, tm: 0, tmChars: 0, reused: 0, reusedChars: 0 };
    // Results get ids above the sequence's current value; the slice's statements below address them as a range.
    const firstId = (store.one<{ seq: number }>("SELECT seq FROM sqlite_sequence WHERE name = 'results'")?.seq ?? 0) + 1;
    for (const p of produced) {
      const { item } = p;
      const issues = runQA({
        source: item.text,
        target: p.text,
        format: item.format,
        maxLength: item.max_length,
        sourceLanguage: item.source_language,
        targetLanguage: item.language,
        glossary,
      });
      const held = holdErrors && issues.some((i) => i.severity === "error");
      store.run(
        `INSERT INTO results (segment_id, unit_id, language, text, source_fingerprint, origin, engine, job_id, qa, created_at, pending, held)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        item.segment_id,
        item.unit_id,
        item.language,
        p.text,
        item.fingerprint,
        p.origin,
        p.engine,
        job.id,
        JSON.stringify(issues),
        now,
        held ? 0 : 1,
        held ? 1 : 0,
      );
      counters.done++;
      if (held) counters.qaFailed++;
      if (p.kind === "memory") {
        counters.tm++;
        counters.tmChars += item.characters;
      } else if (p.kind === "reuse") {
        counters.reused++;
        counters.reusedChars += item.characters;
      }
    }
    if (produced.length) {
      const segmentIds = JSON.stringify(produced.map((p) => p.item.segment_id));
      // Earlier versions of these translations are superseded by the new results.
      store.run(
        `UPDATE results SET superseded = 1, pending = 0, held = 0
         WHERE segment_id IN (SELECT value FROM json_each(?1)) AND language = ?2 AND id < ?3 AND superseded = 0`,
        segmentIds,
        language,
        firstId,
      );
      store.run(
        `INSERT INTO translations (segment_id, language, text, source_fingerprint, status, origin, engine, result_id, qa, updated_at)
         SELECT segment_id, language, text, source_fingerprint, CASE held WHEN 1 THEN 'attention' ELSE 'review' END, origin, engine, id, qa, created_at
         FROM results WHERE id >= ?1 AND job_id = ?2
         ON CONFLICT (segment_id, language) DO UPDATE SET text = excluded.text, source_fingerprint = excluded.source_fingerprint,
           status = excluded.status, origin = excluded.origin, engine = excluded.engine, result_id = excluded.result_id,
           qa = excluded.qa, updated_at = excluded.updated_at`,
        firstId,
        job.id,
      );
    }
    const done = produced.map((p) => p.item).concat(skipped);
    store.run(
      `UPDATE job_items SET status = 'done' WHERE job_id = ?1 AND language = ?2 AND segment_id IN (SELECT value FROM json_each(?3))`,
      job.id,
      language,
      JSON.stringify(done.map((i) => i.segment_id)),
    );
    store.run(
      `UPDATE jobs SET slices = ?, done_segments = done_segments + ?, qa_failed_segments = qa_failed_segments + ?, characters = characters + ?,
         tm_segments = tm_segments + ?, tm_characters = tm_characters + ?, reused_segments = reused_segments + ?, reused_characters = reused_characters + ?
       WHERE id = ?`,
      slice,
      counters.done,
      counters.qaFailed,
      billed,
      counters.tm,
      counters.tmChars,
      counters.reused,
      counters.reusedChars,
      job.id,
    );
    refreshUnits(store, siteTargets(settings), produced.map((p) => p.item.unit_id));
  });
}

/**
 * One alarm invocation: runs the current job's slices until the budget is spent, then
 * answers whether more work is waiting (the caller sets the next alarm).
 */
export async function runJobs(deps: RunnerDeps, budgetMs = INVOCATION_BUDGET_MS): Promise<boolean> {
  const until = Date.now() + budgetMs;
  let slices = 0;
  for (;;) {
    // Settings may change while an engine call is awaited (an admin PATCH reaches the object at once): each slice uses the current ones.
    deps.settings = deps.store.getMeta<SiteSettings>("settings") ?? deps.settings;
    const job = currentJob(deps.store);
    if (!job) {
      // Also repairs a release that failed after its job had ended.
      await releaseInactive(controlDb(deps.env.DB), deps.settings.id, []);
      return false;
    }
    if (job.status === "queued") {
      await start(deps, job);
      continue;
    }
    const more = await runSlice(deps, job);
    slices++;
    if (!more) {
      // Release before finishing: if D1 fails here the job is still running, and the retried alarm releases again.
      await release(controlDb(deps.env.DB), deps.settings.id, [job.id]);
      const done = deps.store.one<{ done_segments: number; failed_segments: number }>("SELECT done_segments, failed_segments FROM jobs WHERE id = ?", job.id)!;
      finish(deps.store, job.id, done.done_segments === 0 && done.failed_segments > 0 ? "failed" : "succeeded");
    }
    if (Date.now() >= until || slices >= SLICES_PER_INVOCATION) return currentJob(deps.store) !== undefined;
  }
}
