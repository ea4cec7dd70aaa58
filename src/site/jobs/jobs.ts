/**
 * Jobs (spec "Create job"): their rows, languages, creation, listing and cancellation, and
 * whether a job's start may take the estimate its request was given. What a job covers, and
 * its estimate's counts, are in scope.ts.
 */
import type { Job } from "../../api/schemas";
import { reserve } from "../../billing/metering";
import type { ControlDb } from "../../control/db";
import type { SiteSettings } from "../../control/sites.control";
import { invalid, notFound } from "../../errors";
import { LIMITS } from "../../limits";
import { takeWatermark } from "../change-seq";
import { getHandshake, lower, writableLanguages } from "../settings";
import type { ScopeMark, Store } from "../store";
import type { JobScope, ScopeEstimate } from "./scope";

// Named here too for the object, the organization memory's look-ups and the bench, which take them from jobs.ts.

export type JobStatus = "queued" | "running" | "succeeded" | "failed" | "cancelled";

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
  /** The site's change sequence when the job's estimate was taken (src/site/change-seq.ts); null for jobs from before it. */
  watermark: number | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  cancel_reason: string | null;
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
    cancel_reason: row.cancel_reason ?? null,
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

/** What one estimate was taken of: the scope, the languages, the site's source language (a unit without its own has it). */
const estimateKey = (settings: SiteSettings, scope: JobScope, languages: string[]) => JSON.stringify([settings.sourceLanguage, scope, languages]);

/**
 * Whether a job's estimate reads more than the site's own storage: a sharing site's estimate of
 * a job not forced counts the organization memory's exact matches (shared-hits.ts), which
 * the Store's mark cannot see change, so such a job is always estimated again at its start.
 */
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
    e.estimated_tm_segments === job.estimated_tm_segments &&
    e.watermark === job.watermark;
  if (same) store.estimateMarks.set(job.id, { ...latest.mark, sourceLanguage: settings.sourceLanguage, orgVersion: elsewhere ? latest.orgVersion : undefined });
}

/**
 * The job's estimate at its start when it can be taken as stored: nothing its scope reads has
 * been written since it was taken (in this instance of the object, for the same source
 * language), and on a sharing site the organization's memory answers the version it had then
 * (`orgVersion`: one call, no read of the scope). Undefined otherwise: the start estimates again
 * (the job's work may have shrunk since; runner.ts, start).
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

/**
 * A queued job, from its estimate: its scope is the work that existed when the estimate was
 * taken (the estimate's watermark; one taken now for an estimate that has none).
 */
export function createJob(store: Store, scope: JobScope, estimate: ScopeEstimate, confirmedCharacters: number | null): JobRow {
  return store.one<JobRow>(
    `INSERT INTO jobs (type, status, request, languages, estimated_segments, estimated_characters, estimated_tm_segments, confirmed_characters, watermark, created_at)
     VALUES (?, 'queued', ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`,
    scope.type,
    JSON.stringify(scope),
    JSON.stringify(estimate.languages),
    estimate.estimated_segments,
    estimate.estimated_characters,
    estimate.estimated_tm_segments,
    confirmedCharacters,
    estimate.watermark ?? takeWatermark(store),
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
/** `reason`: the operator's (or a restore's), shown to the customer on the job; null for the connector's and a person's cancel. */
export function cancelJob(store: Store, id: number, reason: string | null = null): JobRow {
  return store.tx(() => {
    const job = getJob(store, id);
    if (job.status !== "queued" && job.status !== "running") return job;
    store.run("UPDATE jobs SET status = 'cancelled', finished_at = ?, cancel_reason = ? WHERE id = ?", store.now(), reason, id);
    store.estimateMarks.delete(id);
    store.run("DELETE FROM job_items WHERE job_id = ?", id);
    if (job.status === "running") store.setMeta(UNSETTLED, [...unsettledJobs(store), id]);
    return getJob(store, id);
  });
}

/**
 * The job's characters reserved in D1. When D1 refuses, the job is taken back while it is still
 * queued (the runner starts a job only after its own D1 reads) and the error stands: the
 * client's retry then creates the only job. A reservation written whose answer was lost is
 * released once no job is active. A job started meanwhile (the runner reserved it itself)
 * stands, and is answered as it is now.
 */
export async function reserveJob(store: Store, db: ControlDb, settings: SiteSettings, job: JobRow): Promise<void> {
  try {
    await reserve(db, settings, job.id, job.estimated_characters, job.created_at);
  } catch (err) {
    const withdrawn = store.run("DELETE FROM jobs WHERE id = ? AND status = 'queued'", job.id) > 0;
    if (withdrawn) throw err;
  }
}
