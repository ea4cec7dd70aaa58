/**
 * Jobs (spec "Create job", "What a job translates"): languages, scope and estimate, creation,
 * listing and cancellation. The runner (runner.ts) works them off one at a time.
 */
import type { Job, JobRequest } from "../../api/schemas";
import type { SiteSettings } from "../../control/sites";
import { invalid, notFound } from "../../errors";
import { LIMITS } from "../../limits";
import { getHandshake, lower, writableLanguages } from "../settings";
import { stateSql } from "../state";
import type { ScopeMark, Store } from "../store";

export type JobStatus = "queued" | "running" | "succeeded" | "failed" | "cancelled";

/** What a job was asked for, as stored with it. */
export interface JobScope {
  type: "delta" | "translate";
  units: string[] | null;
  prefix: string | null;
  force: boolean;
}

export interface JobRow {
  id: number;
  type: string;
  status: JobStatus;
  request: string;
  languages: string;
  estimated_segments: number;
  estimated_characters: number;
  estimated_tm_segments: number;
  confirmed_characters: number | null;
  done_segments: number;
  failed_segments: number;
  characters: number;
  qa_failed_segments: number;
  tm_segments: number;
  tm_characters: number;
  reused_segments: number;
  reused_characters: number;
  errors: string;
  slices: number;
  scope_cursor: number | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
}

export function jobOut(row: JobRow): Job {
  const scope = JSON.parse(row.request) as JobScope;
  return {
    id: row.id,
    type: row.type,
    status: row.status,
    languages: JSON.parse(row.languages),
    units: scope.units,
    prefix: scope.prefix ?? "",
    force: scope.force,
    estimated_segments: row.estimated_segments,
    estimated_characters: row.estimated_characters,
    estimated_tm_segments: row.estimated_tm_segments,
    done_segments: row.done_segments,
    failed_segments: row.failed_segments,
    characters: row.characters,
    qa_failed_segments: row.qa_failed_segments,
    tm_segments: row.tm_segments,
    tm_characters: row.tm_characters,
    reused_segments: row.reused_segments,
    reused_characters: row.reused_characters,
    errors: JSON.parse(row.errors),
    created_at: row.created_at,
    started_at: row.started_at,
    finished_at: row.finished_at,
  };
}

/** The request's languages narrowed to the site's writable target languages (rule 2); 422 when none remain. */
export function jobLanguages(store: Store, settings: SiteSettings, requested: string[] | null | undefined): string[] {
  const writable = writableLanguages(settings, getHandshake(store));
  const wanted = requested ? new Set(requested.map(lower)) : undefined;
  const languages = wanted ? writable.filter((code) => wanted.has(lower(code))) : writable;
  if (!languages.length)
    throw invalid(
      writable.length
        ? `languages: none of ${requested!.join(", ")} is a writable target language of this site (writable: ${writable.join(", ")})`
        : "languages: the site has no writable target language; a language is writable when it is writable in the site's settings and listed in the latest handshake's languages",
    );
  return languages;
}

/** Unknown unit keys a 422 names at most. */
export const UNKNOWN_UNITS_SHOWN = 10;

/**
 * A `translate` job's unit keys that name no live unit (never pushed, or deleted): a 422 naming
 * the first 10 of them, so a mistyped key is not a job that "succeeds" with nothing done. One
 * read of the keys' live units.
 */
export function checkJobUnits(store: Store, scope: JobScope): void {
  if (scope.type !== "translate" || !scope.units?.length) return;
  const live = new Set(
    store
      .all<{ external_key: string }>("SELECT external_key FROM units WHERE external_key IN (SELECT value FROM json_each(?)) AND deleted = 0", JSON.stringify(scope.units))
      .map((u) => u.external_key),
  );
  const unknown = scope.units.filter((k) => !live.has(k));
  if (!unknown.length) return;
  const shown = unknown.slice(0, UNKNOWN_UNITS_SHOWN).map((k) => JSON.stringify(k));
  const rest = unknown.length > shown.length ? ` and ${unknown.length - shown.length} more` : "";
  throw invalid(
    `units: ${unknown.length} of the ${scope.units.length} unit key(s) name no unit of this site (never pushed, or deleted): ${shown.join(", ")}${rest}; nothing was created`,
  );
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

/** Whether the translation `t` of segment `s` leaves the pair to a job: missing or stale (every pair with force). */
const needsWork = (scope: JobScope) => (scope.force ? "1" : `${stateSql()} IN ('missing', 'stale')`);

/**
 * The (segment, language) pairs a job covers: live segments of live units in scope, in the
 * job's languages that are targets of the unit, that are missing or stale (everything with
 * force). `select` names the columns; the query fixes the scope when the job starts
 * (estimateScope counts the same pairs, segment by segment).
 */
export function scopeQuery(settings: SiteSettings, scope: JobScope, languages: string[], select: string, segmentIds?: { after: number; upTo: number }) {
  const args: unknown[] = [JSON.stringify(languages), settings.sourceLanguage];
  let where = unitScope(scope, args);
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
      AND ${needsWork(scope)}`;
  return { sql, args };
}

export interface ScopeEstimate {
  languages: string[];
  estimated_segments: number;
  estimated_characters: number;
  estimated_tm_segments: number;
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

  // ?1 is the site's source language (a unit without its own has the site's).
  const args: unknown[] = [settings.sourceLanguage];
  const units = unitScope(scope, args);
  // done: languages whose translation leaves nothing to do; hits: target languages the memory holds.
  const done = scope.force ? "NULL" : `(SELECT group_concat(t.language, char(31)) FROM translations t WHERE t.segment_id = s.id AND NOT ${needsWork(scope)})`;
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
  return { languages, estimated_segments: pairs, estimated_characters: chars, estimated_tm_segments: tm };
}

/** What one estimate was taken of: the scope, the languages, the site's source language (a unit without its own has it). */
const estimateKey = (settings: SiteSettings, scope: JobScope, languages: string[]) => JSON.stringify([settings.sourceLanguage, scope, languages]);

/**
 * Whether a job's estimate reads more than the site's own storage: a sharing site's estimate
 * counts the organization memory's exact matches (shared-hits.ts), which the Store's mark
 * cannot see change, so such a job is always estimated again at its start.
 */
/** Whether a job's estimate reads the organization's memory too (a sharing site, a job not forced). */
const readsElsewhere = (settings: SiteSettings, scope: JobScope) => settings.shareMemory === true && !scope.force;

/**
 * The latest estimate the object made for a job request, where the scope data stood before it
 * was taken (Store.scopeMark), and, for an estimate that read the organization's memory, that
 * memory's version before its look-ups (OrgMemoryObject.version; undefined when it could not be read).
 */
export interface MarkedEstimate {
  key: string;
  mark: ScopeMark;
  orgVersion?: string;
  estimate: ScopeEstimate;
}

/**
 * An estimate, with the marks taken before it began: the job created from it keeps them
 * (markJob). `estimate` tells `seen` the organization memory's version when it read that memory.
 */
export async function markedEstimate(
  store: Store,
  settings: SiteSettings,
  scope: JobScope,
  languages: string[],
  estimate: (seen: (orgVersion: string) => void) => Promise<ScopeEstimate> | ScopeEstimate,
): Promise<MarkedEstimate> {
  const mark = store.scopeMark();
  let orgVersion: string | undefined;
  const result = await estimate((version) => {
    orgVersion = version;
  });
  return { key: estimateKey(settings, scope, languages), mark, orgVersion, estimate: result };
}

/**
 * Remembers that a job just created was estimated with nothing written since (`latest` is the
 * object's latest estimate, for the same scope, languages and source language, with the same
 * figures): its start then takes the stored estimate instead of reading its whole scope again,
 * as long as nothing is written to the scope tables meanwhile (storedEstimate), nor, on a
 * sharing site, to the organization's memory.
 */
export function markJob(store: Store, settings: SiteSettings, job: JobRow, latest: MarkedEstimate | undefined) {
  const scope = JSON.parse(job.request) as JobScope;
  if (!latest || !store.unchangedSince(latest.mark)) return;
  const elsewhere = readsElsewhere(settings, scope);
  if (elsewhere && latest.orgVersion === undefined) return;
  const e = latest.estimate;
  const same =
    latest.key === estimateKey(settings, scope, JSON.parse(job.languages) as string[]) &&
    e.estimated_segments === job.estimated_segments &&
    e.estimated_characters === job.estimated_characters &&
    e.estimated_tm_segments === job.estimated_tm_segments;
  if (same) store.estimateMarks.set(job.id, { ...latest.mark, sourceLanguage: settings.sourceLanguage, orgVersion: elsewhere ? latest.orgVersion : undefined });
}

/**
 * The job's estimate at its start when it can be taken as stored: nothing its scope reads has
 * been written since it was taken (in this instance of the object, for the same source
 * language), and on a sharing site the organization's memory answers the version it had then
 * (`orgVersion`: one call, no read of the scope). Undefined otherwise: the start estimates again
 * (the scope may have grown: spec "Job status transitions").
 */
export async function storedEstimate(store: Store, settings: SiteSettings, job: JobRow, orgVersion: () => Promise<string>): Promise<ScopeEstimate | undefined> {
  const mark = store.estimateMarks.get(job.id);
  store.estimateMarks.delete(job.id);
  if (!mark || mark.sourceLanguage !== settings.sourceLanguage || !store.unchangedSince(mark)) return undefined;
  if (readsElsewhere(settings, JSON.parse(job.request) as JobScope)) {
    if (mark.orgVersion === undefined) return undefined;
    try {
      if ((await orgVersion()) !== mark.orgVersion) return undefined;
    } catch {
      return undefined; // unreadable: the start estimates again, which counts without it
    }
    // Written while the organization answered.
    if (!store.unchangedSince(mark)) return undefined;
  }
  return {
    languages: JSON.parse(job.languages) as string[],
    estimated_segments: job.estimated_segments,
    estimated_characters: job.estimated_characters,
    estimated_tm_segments: job.estimated_tm_segments,
  };
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
  const units = unitScope(scope, args);
  return store.rows<[string, string]>(
    `SELECT DISTINCT lower(coalesce(u.source_language, ?1)), s.fingerprint FROM units u JOIN segments s ON s.unit_id = u.id AND s.removed = 0
     WHERE ${units} AND (SELECT count(*) FROM translations t WHERE t.segment_id = s.id AND t.language IN (SELECT value FROM json_each(?2))
       AND NOT ${needsWork(scope)}) < json_array_length(?2)`,
    ...args,
  );
}

export function scopeOf(request: JobRequest): JobScope {
  return {
    type: request.type,
    units: request.type === "translate" ? [...new Set(request.units ?? [])] : null,
    prefix: request.type === "delta" ? (request.prefix ?? null) : null,
    force: request.force,
  };
}

export function createJob(store: Store, scope: JobScope, estimate: ScopeEstimate, confirmedCharacters: number | null): JobRow {
  return store.one<JobRow>(
    `INSERT INTO jobs (type, status, request, languages, estimated_segments, estimated_characters, estimated_tm_segments, confirmed_characters, created_at)
     VALUES (?, 'queued', ?, ?, ?, ?, ?, ?, ?) RETURNING *`,
    scope.type,
    JSON.stringify(scope),
    JSON.stringify(estimate.languages),
    estimate.estimated_segments,
    estimate.estimated_characters,
    estimate.estimated_tm_segments,
    confirmedCharacters,
    store.now(),
  )!;
}

export function getJob(store: Store, id: number): JobRow {
  const row = store.one<JobRow>("SELECT * FROM jobs WHERE id = ?", id);
  if (!row) throw notFound(`Job ${id}`);
  return row;
}

export function listJobs(store: Store, active: boolean): Job[] {
  const rows = active
    ? store.all<JobRow>("SELECT * FROM jobs WHERE status IN ('queued', 'running') ORDER BY id")
    : store.all<JobRow>("SELECT * FROM jobs ORDER BY id DESC LIMIT ?", LIMITS.jobsListed);
  return rows.map(jobOut);
}

/** Meta key: ids of jobs that ended outside the runner and whose billing the runner still settles. */
const UNSETTLED = "unsettled_jobs";

/** Jobs cancelled while running: the runner settles their billing once their commits have landed (runner.ts, settleEnded). */
export const unsettledJobs = (store: Store): number[] => store.getMeta<number[]>(UNSETTLED) ?? [];

export function markSettled(store: Store, id: number) {
  const left = unsettledJobs(store).filter((j) => j !== id);
  if (left.length) store.setMeta(UNSETTLED, left);
  else store.run("DELETE FROM meta WHERE key = ?", UNSETTLED);
}

/**
 * queued or running → cancelled; segments already translated are kept. A finished job is
 * answered as it is. A running job may have commits whose ledger rows are still queued (in the
 * object, on their way to D1): it is left to the runner to settle.
 */
export function cancelJob(store: Store, id: number): JobRow {
  return store.tx(() => {
    const job = getJob(store, id);
    if (job.status !== "queued" && job.status !== "running") return job;
    store.run("UPDATE jobs SET status = 'cancelled', finished_at = ? WHERE id = ?", store.now(), id);
    store.estimateMarks.delete(id);
    store.run("DELETE FROM job_items WHERE job_id = ?", id);
    if (job.status === "running") store.setMeta(UNSETTLED, [...unsettledJobs(store), id]);
    return getJob(store, id);
  });
}
