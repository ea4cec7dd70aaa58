/**
 * Jobs (spec "Create job", "What a job translates"): languages, scope and estimate, creation,
 * listing and cancellation. The runner (runner.ts) works them off one at a time.
 */
import type { Job, JobRequest } from "../api/schemas";
import type { SiteSettings } from "../control/sites";
import { invalid, notFound } from "../errors";
import { LIMITS } from "../limits";
import { getHandshake, lower, writableLanguages } from "./settings";
import { stateSql } from "./state";
import type { Store } from "./store";

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

/**
 * The (segment, language) pairs a job covers: live segments of live units in scope, in the
 * job's languages that are targets of the unit, that are missing or stale (everything with
 * force). `select` names the columns; the query is used for estimates and to fix the scope
 * when the job starts.
 */
export function scopeQuery(settings: SiteSettings, scope: JobScope, languages: string[], select: string, segmentIds?: { after: number; upTo: number }) {
  const args: unknown[] = [JSON.stringify(languages), settings.sourceLanguage];
  let where = "u.deleted = 0";
  if (segmentIds) {
    // One chunk of the scope, by segment id (a job's items are fixed in chunks).
    args.push(segmentIds.after, segmentIds.upTo);
    where += ` AND s.id > ?${args.length - 1} AND s.id <= ?${args.length}`;
  }
  if (scope.type === "translate") {
    args.push(JSON.stringify(scope.units ?? []));
    where += ` AND u.external_key IN (SELECT value FROM json_each(?${args.length}))`;
  } else if (scope.prefix) {
    args.push(scope.prefix, scope.prefix + "\u{10FFFF}");
    where += ` AND u.external_key >= ?${args.length - 1} AND u.external_key < ?${args.length}`;
  }
  const state = scope.force ? "" : `AND ${stateSql()} IN ('missing', 'stale')`;
  const sql = `
    SELECT ${select}
    FROM units u JOIN segments s ON s.unit_id = u.id AND s.removed = 0
    CROSS JOIN json_each(?1) l
    LEFT JOIN translations t ON t.segment_id = s.id AND t.language = l.value
    LEFT JOIN memory m ON ${scope.force ? "0" : "1"} AND m.source_fingerprint = s.fingerprint
      AND m.source_language = lower(coalesce(u.source_language, ?2)) AND m.target_language = lower(l.value)
    WHERE ${where}
      AND (u.writable_languages IS NULL OR EXISTS (SELECT 1 FROM json_each(u.writable_languages) w WHERE lower(w.value) = lower(l.value)))
      ${state}`;
  return { sql, args };
}

export interface ScopeEstimate {
  languages: string[];
  estimated_segments: number;
  estimated_characters: number;
  estimated_tm_segments: number;
}

/** Segments, memory hits and billable characters (per language, memory hits and in-job repeats excluded). */
export function estimateScope(store: Store, settings: SiteSettings, scope: JobScope, languages: string[]): ScopeEstimate {
  const q = scopeQuery(settings, scope, languages, "s.fingerprint AS fp, l.value AS lang, s.characters AS len, m.text IS NOT NULL AS tm");
  const row = store.one<{ n: number; tm: number; chars: number }>(
    `WITH scope AS MATERIALIZED (${q.sql})
     SELECT (SELECT count(*) FROM scope) AS n, (SELECT count(*) FROM scope WHERE tm) AS tm,
       (SELECT coalesce(sum(len), 0) FROM (SELECT max(len) AS len FROM scope WHERE NOT tm GROUP BY fp, lang)) AS chars`,
    ...q.args,
  )!;
  return { languages, estimated_segments: row.n, estimated_characters: row.chars, estimated_tm_segments: row.tm };
}

export function scopeOf(request: JobRequest): JobScope {
  return {
    type: request.type,
    units: request.type === "translate" ? [...new Set(request.units ?? [])] : null,
    prefix: request.type === "delta" ? request.prefix ?? null : null,
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

/** queued or running → cancelled; segments already translated are kept. A finished job is answered as it is. */
export function cancelJob(store: Store, id: number): JobRow {
  return store.tx(() => {
    const job = getJob(store, id);
    if (job.status !== "queued" && job.status !== "running") return job;
    store.run("UPDATE jobs SET status = 'cancelled', finished_at = ? WHERE id = ?", store.now(), id);
    store.run("DELETE FROM job_items WHERE job_id = ?", id);
    return getJob(store, id);
  });
}
