/**
 * What a job translates (spec "What a job translates"): its scope as requested, and the
 * (segment, language) pairs it covers, in SQL: selected when the job starts (scopeQuery, its
 * items fixed in chunks by the runner) or counted for its estimate (estimateScope; scopeTexts,
 * the texts an estimate looks up in the organization's memory).
 */
import type { JobRequest } from "../../api/schemas";
import type { SiteSettings } from "../../control/sites.control";
import { takeWatermark } from "../change-seq";
import { stateSql } from "../state";
import type { Store } from "../store";

/** What a job was asked for, as stored with it. */
export interface JobScope {
  type: "delta" | "translate";
  units: string[] | null;
  prefix: string | null;
  force: boolean;
  /**
   * A created job's watermark (jobs.watermark, src/site/change-seq.ts): the scope is then the work
   * that existed when it was taken. Absent for a request being estimated (the work that exists now).
   */
  watermark?: number;
}

/** The scope a job request asks for, as stored with the job. */
export function scopeOf(request: JobRequest): JobScope {
  return {
    type: request.type,
    units: request.type === "translate" ? [...new Set(request.units ?? [])] : null,
    prefix: request.type === "delta" ? (request.prefix ?? null) : null,
    force: request.force,
  };
}

/**
 * The units a scope covers: live units, narrowed by the job's unit keys or key prefix. A
 * condition on `u`; its arguments are appended to `args` (numbered after those already there).
 */
function unitScope(scope: JobScope, args: unknown[]): string {
  let where = "u.deleted = 0";
  if (scope.type === "translate") {
    args.push(JSON.stringify(scope.units ?? []));
    where += ` AND u.external_key IN (SELECT value FROM json_each(?${args.length}))`;
  } else if (scope.prefix) {
    args.push(scope.prefix, `${scope.prefix}\u{10FFFF}`);
    where += ` AND u.external_key >= ?${args.length - 1} AND u.external_key < ?${args.length}`;
  }
  return where;
}

/** A created job's scope: its request as stored, with its watermark. */
export function jobScope(job: { request: string; watermark: number | null }): JobScope {
  const scope = JSON.parse(job.request) as JobScope;
  return job.watermark === null ? scope : { ...scope, watermark: job.watermark };
}

/** Whether the translation `t` of segment `s` leaves the pair to a job: missing or stale (every pair with force). */
const needsWork = (scope: JobScope) => (scope.force ? "1" : `${stateSql()} IN ('missing', 'stale')`);

/**
 * The job's watermark as an SQL parameter appended to `args` (numbered after those already
 * there); undefined for a request being estimated, which has none.
 */
function watermarkParam(scope: JobScope, args: unknown[]): string | undefined {
  if (scope.watermark === undefined) return undefined;
  args.push(scope.watermark);
  return `?${args.length}`;
}

/**
 * Whether segment `s` of unit `u` was in the job's scope as it is when the job's watermark (the
 * SQL parameter `w`) was taken: not added, back from removed or lengthened since, its unit not
 * restored nor its writable languages changed since (src/site/change-seq.ts).
 */
const segmentBefore = (w: string | undefined) => (w === undefined ? "1" : `s.seq <= ${w} AND u.seq <= ${w}`);

/**
 * Whether the pair's need of work (translation `t`, possibly NULL) is older than the job's
 * watermark (SQL parameter `w`): not a translation that turned into work since (made stale by a
 * text change, rejected). A forced job covers every pair, whatever its translation.
 */
const workBefore = (scope: JobScope, w: string | undefined) => (w === undefined || scope.force ? "1" : `coalesce(t.seq, 0) <= ${w}`);

/**
 * Whether the pair of segment `s` (unit `u`, translation `t`) is the job's work: it needs work
 * now, and needed it when the job's watermark (SQL parameter `w`) was taken. What makes a pair
 * work after the watermark stamps it (src/site/change-seq.ts), so "then" is read from the stamps.
 */
export const isJobWork = (scope: JobScope, w: string | undefined) => `${segmentBefore(w)} AND ${workBefore(scope, w)} AND ${needsWork(scope)}`;

/**
 * Whether the pair's work (segment `s`, unit `u`, translation `t`) arose after the job's
 * watermark (SQL parameter `w`; none: never): a slice skips such an item, left to the next job.
 */
export const arisenSince = (scope: JobScope, w: string | undefined) => (w === undefined ? "0" : `NOT (${segmentBefore(w)} AND ${workBefore(scope, w)})`);

/**
 * The (segment, language) pairs a job covers: live segments of live units in scope, in the
 * job's languages that are targets of the unit, that are missing or stale (everything with
 * force), and were so when its watermark was taken (isJobWork). `select` names the columns; the
 * query fixes the scope when the job starts (estimateScope counts the same pairs, segment by
 * segment).
 */
export function scopeQuery(settings: SiteSettings, scope: JobScope, languages: string[], select: string, segmentIds?: { after: number; upTo: number }) {
  const args: unknown[] = [JSON.stringify(languages), settings.sourceLanguage];
  let where = unitScope(scope, args);
  const w = watermarkParam(scope, args);
  if (segmentIds) {
    // One chunk of the scope, by segment id (a job's items are fixed in chunks).
    args.push(segmentIds.after, segmentIds.upTo);
    where += ` AND s.id > ?${args.length - 1} AND s.id <= ?${args.length}`;
  }
  const sql = `
    SELECT ${select}
    FROM units u JOIN segments s ON s.unit_id = u.id AND s.removed = 0
    CROSS JOIN json_each(?1) l
    LEFT JOIN translations t ON t.segment_id = s.id AND t.language = l.value
    LEFT JOIN memory m ON ${scope.force ? "0" : "1"} AND m.source_fingerprint = s.fingerprint
      AND m.source_language = lower(coalesce(u.source_language, ?2)) AND m.target_language = lower(l.value)
    WHERE ${where}
      AND (u.writable_languages IS NULL OR EXISTS (SELECT 1 FROM json_each(u.writable_languages) w WHERE lower(w.value) = lower(l.value)))
      AND ${isJobWork(scope, w)}`;
  return { sql, args };
}

export interface ScopeEstimate {
  languages: string[];
  estimated_segments: number;
  estimated_characters: number;
  estimated_tm_segments: number;
  /**
   * The watermark the estimate was taken at (src/site/change-seq.ts): a job created from it
   * keeps it, so its scope is what was counted. Not part of the API's answer.
   */
  watermark?: number;
}

/** Separates the language codes a group_concat lists (codes are letters, digits, `_` and `-`). */
const SEP = "\u001f";

/**
 * Segments, memory hits and billable characters (per language, memory hits and in-job repeats
 * excluded) of the pairs scopeQuery selects.
 *
 * Counted segment by segment rather than pair by pair: materializing the pairs and sorting
 * them by (fingerprint, language) for the repeat rule took most of a CPU budget at 1,000,000
 * segments × 10 languages. Here each segment in scope is read once, with its translations
 * that leave nothing to do and its memory entries (one look-up each, not one per language),
 * sorted by fingerprint and source language (a tenth of the rows), and a repeat is the same
 * fingerprint and source language as the row before: per (source language, fingerprint) and
 * target language, the longest billable pair is billed.
 */
export function estimateScope(store: Store, settings: SiteSettings, scope: JobScope, languages: string[], shared?: SharedTargets): ScopeEstimate {
  const languagesJson = JSON.stringify(languages);
  // lower() as SQLite computes it (the memory's target_language is matched with it).
  const lowered = store.all<{ low: string }>("SELECT lower(value) AS low FROM json_each(?) ORDER BY key", languagesJson).map((r) => r.low);
  // The job's languages a unit takes (its writable_languages, matched as scopeQuery does), by index; few distinct values.
  const everyLanguage = languages.map((_, i) => i);
  const targetsByWritable = new Map<string, number[]>();
  const targetsOf = (writable: string | null): number[] => {
    if (writable === null) return everyLanguage;
    let targets = targetsByWritable.get(writable);
    if (!targets) {
      targets = store
        .all<{ i: number }>(
          "SELECT l.key AS i FROM json_each(?1) l WHERE EXISTS (SELECT 1 FROM json_each(?2) w WHERE lower(w.value) = lower(l.value)) ORDER BY l.key",
          languagesJson,
          writable,
        )
        .map((r) => r.i);
      if (targetsByWritable.size > 1_000) targetsByWritable.clear();
      targetsByWritable.set(writable, targets);
    }
    return targets;
  };

  // A request's estimate takes a watermark as it reads (nothing is written while it reads), which the job created from it
  // keeps; a created job's estimate (at its start) counts the work that existed at its watermark.
  const watermark = scope.watermark ?? takeWatermark(store);
  // ?1 is the site's source language (a unit without its own has the site's).
  const args: unknown[] = [settings.sourceLanguage];
  const unitsInScope = unitScope(scope, args);
  const w = watermarkParam(scope, args);
  const units = `${unitsInScope} AND ${segmentBefore(w)}`;
  // done: languages whose translation leaves nothing to this job to do; hits: target languages the memory holds.
  const done = scope.force
    ? "NULL"
    : `(SELECT group_concat(t.language, char(31)) FROM translations t WHERE t.segment_id = s.id AND NOT (${needsWork(scope)} AND ${workBefore(scope, w)}))`;
  const hits = scope.force
    ? "NULL"
    : `(SELECT group_concat(m.target_language, char(31)) FROM memory m WHERE m.source_fingerprint = s.fingerprint AND m.source_language = lower(coalesce(u.source_language, ?1)))`;
  let pairs = 0;
  let tm = 0;
  let chars = 0;
  // Per language, the longest billable pair of the current fingerprint.
  const longest = new Array<number>(languages.length).fill(0);
  const bill = () => {
    for (let i = 0; i < longest.length; i++) {
      chars += longest[i]!;
      longest[i] = 0;
    }
  };
  let current: string | undefined;
  let currentSource: string | undefined;
  // `+s.fingerprint`: sorted, not read in the order of the fingerprint index (a random look-up of
  // each segment, slower than the sort for a whole site); a narrow scope still starts from its units.
  // A repeat is the same text in the same source language: sorted by both, compared with the row before.
  for (const [fingerprint, source, len, writable, doneList, hitList] of store.rows<[string, string, number, string | null, string | null, string | null]>(
    `SELECT s.fingerprint, lower(coalesce(u.source_language, ?1)) AS source, s.characters, u.writable_languages, ${done}, ${hits}
     FROM units u JOIN segments s ON s.unit_id = u.id AND s.removed = 0 WHERE ${units} ORDER BY +s.fingerprint, source`,
    ...args,
  )) {
    if (fingerprint !== current || source !== currentSource) {
      bill();
      current = fingerprint;
      currentSource = source;
    }
    const targets = targetsOf(writable);
    // Target languages (lowercased) the organization's memory holds for this text (sharing sites).
    const sharedList = shared?.get(`${source}\u0000${fingerprint}`);
    if (doneList === null && hitList === null && sharedList === undefined) {
      // The common case (nothing translated, nothing in the memory): every target language is a billable pair.
      pairs += targets.length;
      for (const i of targets) if (len > longest[i]!) longest[i] = len;
      continue;
    }
    const doneLanguages = doneList === null ? [] : doneList.split(SEP);
    const hitLanguages = hitList === null ? [] : hitList.split(SEP);
    for (const i of targets) {
      if (doneLanguages.includes(languages[i]!)) continue;
      pairs++;
      if (hitLanguages.includes(lowered[i]!) || sharedList?.includes(lowered[i]!)) tm++;
      else if (len > longest[i]!) longest[i] = len;
    }
  }
  bill();
  return { languages, estimated_segments: pairs, estimated_characters: chars, estimated_tm_segments: tm, watermark };
}

/** What the organization's memory holds for a scope: by `<lowercased source language>\0<fingerprint>`, the lowercased target languages. */
export type SharedTargets = Map<string, string[]>;

/**
 * The distinct (lowercased source language, fingerprint) pairs of the live segments in scope
 * that leave work in at least one of `languages` (a segment translated in all of them needs
 * no memory), streamed: the keys an estimate looks up in the organization's memory.
 */
export function scopeTexts(store: Store, settings: SiteSettings, scope: JobScope, languages: string[]): IterableIterator<[string, string]> {
  const args: unknown[] = [settings.sourceLanguage, JSON.stringify(languages)];
  const unitsInScope = unitScope(scope, args);
  const w = watermarkParam(scope, args);
  const units = `${unitsInScope} AND ${segmentBefore(w)}`;
  return store.rows<[string, string]>(
    `SELECT DISTINCT lower(coalesce(u.source_language, ?1)), s.fingerprint FROM units u JOIN segments s ON s.unit_id = u.id AND s.removed = 0
     WHERE ${units} AND (SELECT count(*) FROM translations t WHERE t.segment_id = s.id AND t.language IN (SELECT value FROM json_each(?2))
       AND NOT (${needsWork(scope)} AND ${workBefore(scope, w)})) < json_array_length(?2)`,
    ...args,
  );
}
