/**
 * Committing a job's progress: each finished engine batch (and each slice's memory hits,
 * repeats and skipped items) is stored as soon as it is done, so an eviction never pays an
 * engine twice for a finished batch.
 *
 * Metering stays exact: commits are numbered by the job's `slices` counter, commit n is stored
 * only where the counter still stands at n − 1, and its usage-ledger row (site, job, n) is
 * queued in the same transaction (ledger.ts): the work a commit stores and the row that bills
 * it land together or not at all, and the row reaches D1 after the commit, in the background,
 * so no commit waits for D1. Commits run one at a time (committer.ts); each is written by
 * persist, in steps in the order they run.
 */
import type { SiteSettings } from "../../control/sites.control";
import type { Format } from "../../limits";
import type { QAIssue } from "../../qa";
import { siteTargets } from "../settings";
import { stateSql } from "../state";
import type { ScopeMark, Store } from "../store";
import { moveStates, refreshUnits, type StateChange } from "../sync/counts";
import { queueUsage } from "./ledger";

export interface SliceItem {
  segment_id: number;
  unit_id: number;
  language: string;
  text: string;
  fingerprint: string;
  /** The text's code points, stored at push: what estimates and bills count. */
  characters: number;
  format: Format;
  field: string | null;
  kind: string | null;
  max_length: number | null;
  source_language: string;
  state: string;
  live: number;
  /** 1 when the item's translation is in the counts (live, and its unit counted): its state moves them. */
  counted: number;
  /** Where the scope data stood when the item was loaded (Store.othersMark). */
  seen?: ScopeMark;
  /** The translation row as the slice read it; a different one at commit means someone else wrote it meanwhile. */
  mark: string;
  /** 1 when the connector imported this translation after the job started. */
  imported_since: number;
  /** 1 when the pair's work arose after the job's watermark (scope.ts, arisenSince): left to the next job. */
  arisen: number;
  /** The memory's text for this source and language (null for a forced job). */
  memory: string | null;
  /** [text, origin, engine] of the latest result of this job for the same source text and language, as JSON. */
  earlier: string | null;
  /** 1 when another segment had the same text at load: the result goes into results_job_text, to be reused later in the job. */
  repeated: number;
}

/** What identifies a translation row's version: a write by an import, a review or a fix changes it. */
export const TRANSLATION_MARK = `coalesce(t.updated_at || '|' || t.status || '|' || t.origin || '|' || coalesce(t.result_id, ''), '')`;

/** A produced item's segment and translation as they are when its commit is written. */
interface CurrentRow {
  segment_id: number;
  mark: string;
  state: string;
  fingerprint: string | null;
  counted: number;
  unit_key: string | null;
}

/** A translation ready to be stored, with its QA findings (computed before the transaction). */
export interface Produced {
  item: SliceItem;
  text: string;
  origin: string;
  engine: string;
  kind: "engine" | "memory" | "reuse";
  issues: QAIssue[];
  held: boolean;
}

/** What one finished batch (or a slice's free work) changes. */
export interface Outcome {
  language: string;
  produced: Produced[];
  /** Items that left the scope since the job started: done without a result. */
  skipped: SliceItem[];
  /** Items of a batch the engine rejected, with the reason shown in the job's errors. */
  failed: { items: SliceItem[]; message: string }[];
  /** Fails every item of the language still pending (not configured, quota, unsupported language). */
  languageFailure?: string;
  /** Billable characters the engine translated for this outcome. */
  billed: number;
}

/** An outcome of `language` that holds only `fields`. */
export const outcomeOf = (language: string, fields: Partial<Outcome>): Outcome => ({ language, produced: [], skipped: [], failed: [], billed: 0, ...fields });

export interface JobError {
  language: string;
  message: string;
  segments: number;
}

/** Adds errors to the job's list, merging those with the same language and message. */
export function addErrors(store: Store, jobId: number, added: JobError[]) {
  if (!added.length) return;
  const job = store.one<{ errors: string }>("SELECT errors FROM jobs WHERE id = ?", jobId);
  if (!job) return;
  const errors = JSON.parse(job.errors) as JobError[];
  for (const e of added) {
    const same = errors.find((x) => x.language === e.language && x.message === e.message);
    if (same) same.segments += e.segments;
    else errors.push({ ...e });
  }
  store.run("UPDATE jobs SET errors = ? WHERE id = ?", JSON.stringify(errors), jobId);
}

/**
 * Characters of texts (and QA findings) one results statement carries at most: the JSON bound
 * to it stays far below the 2 MB a string may have in the object's SQLite (3 bytes a character
 * at worst). A commit may hold several slices' outcomes.
 */
const RESULTS_JSON = 400_000;

/**
 * The produced items' segment and translation rows as they are now, by segment id. Where nothing
 * but the runner's own commits wrote a scope table since the items were loaded (Store.othersMark:
 * what a push, an import, a review or a fix writes counts), the rows are as the load read them,
 * and only the keys of the units whose counts move are read.
 */
function currentRows(store: Store, outcome: Outcome): Map<number, CurrentRow> {
  const { produced, language } = outcome;
  if (!produced.length) return new Map();
  // Items loaded together share one mark: each mark is checked once.
  let checked: ScopeMark | undefined;
  const asLoaded = produced.every(({ item }) => {
    if (item.seen !== undefined && item.seen === checked) return true;
    checked = item.seen;
    return store.othersUnchangedSince(item.seen);
  });
  if (asLoaded) {
    const counted = [...new Set(produced.filter((p) => p.item.counted).map((p) => p.item.unit_id))];
    const keys = new Map(
      counted.length
        ? store
            .all<{ id: number; key: string }>("SELECT id, external_key AS key FROM units WHERE id IN (SELECT value FROM json_each(?))", JSON.stringify(counted))
            .map((u) => [u.id, u.key])
        : [],
    );
    return new Map(
      produced.map(({ item }) => [
        item.segment_id,
        { segment_id: item.segment_id, mark: item.mark, state: item.state, fingerprint: item.fingerprint, counted: item.counted, unit_key: keys.get(item.unit_id) ?? null },
      ]),
    );
  }
  return new Map(
    store
      .all<CurrentRow>(
        `SELECT j.value AS segment_id, ${TRANSLATION_MARK} AS mark, ${stateSql()} AS state, s.fingerprint AS fingerprint,
           coalesce(s.removed = 0 AND u.deleted = 0 AND u.counted = 1, 0) AS counted, u.external_key AS unit_key
         FROM json_each(?1) j LEFT JOIN translations t ON t.segment_id = j.value AND t.language = ?2
         LEFT JOIN segments s ON s.id = j.value LEFT JOIN units u ON u.id = s.unit_id`,
        JSON.stringify(produced.map((p) => p.item.segment_id)),
        language,
      )
      .map((r) => [r.segment_id, r]),
  );
}

/**
 * Writes the outcomes as commit number `n` of the job, with its ledger row (ledger.ts), in one
 * transaction. Answers whether it did: not when the job is no longer running (cancelled
 * meanwhile: cancel wins), nor when its counter no longer stands at n − 1 (another attempt
 * committed n).
 */
export function persist(store: Store, settings: SiteSettings, jobId: number, n: number, outcomes: Outcome[]): boolean {
  const at = store.clock();
  const now = at.toISOString();
  return store.asRunner(() =>
    store.tx(() => {
      if (!nextCommit(store, jobId, n)) return false;
      // Results get ids above the sequence's current value; the statements below address them as a range.
      const firstId = (store.one<{ seq: number }>("SELECT seq FROM sqlite_sequence WHERE name = 'results'")?.seq ?? 0) + 1;
      const tally = sortOutcomes(store, jobId, outcomes);
      insertResults(store, jobId, tally.rows, now);
      retireItems(store, jobId, tally.byLanguage, firstId);
      if (tally.counters.done) storeTranslations(store, jobId, firstId);
      failLanguages(store, jobId, outcomes, tally);
      addErrors(store, jobId, tally.errors);
      countCommit(store, jobId, n, tally.counters);
      if (tally.recount) refreshUnits(store, siteTargets(settings), tally.units);
      else moveStates(store, tally.changes);
      // The ledger row that bills this commit, in its transaction: written to D1 after it (ledger.ts).
      queueUsage(store, jobId, n, tally.counters.billed, at);
      return true;
    }),
  );
}

/** Whether commit `n` is the job's next: the job still running, its counter at n − 1. */
function nextCommit(store: Store, jobId: number, n: number): boolean {
  const current = store.one<{ slices: number; status: string }>("SELECT slices, status FROM jobs WHERE id = ?", jobId);
  if (current?.status !== "running") return false; // cancelled (or ended) meanwhile: nothing more is stored
  if (current.slices !== n - 1) return false; // another attempt already committed n
  return true;
}

/** A new result as the results statement reads it: [segment, unit, language, text, fingerprint, origin, engine, qa, held, repeated]. */
type ResultRow = [number, number, string, string, string, string, string, string, number, number];

/** What a commit's outcomes come to (sortOutcomes): the rows it writes and the figures it moves. */
interface Tally {
  counters: { done: number; failed: number; qaFailed: number; tm: number; tmChars: number; reused: number; reusedChars: number; billed: number };
  errors: JobError[];
  /** Units whose translations the commit writes. */
  units: Set<number>;
  changes: StateChange[];
  /** Set when one commit writes a translation twice (never expected): its units are then recounted. */
  recount: boolean;
  /** The commit's new results, inserted by one statement (in this order, so their ids follow firstId). */
  rows: ResultRow[];
  byLanguage: Map<string, ByLanguage>;
}

/** One language's items in a commit, by segment id: replacing an earlier result, done (off the job). */
interface ByLanguage {
  replaced: number[];
  done: number[];
}

/** Sorts the outcomes' items into new results and items done, and drops failed batches' items from the job. */
function sortOutcomes(store: Store, jobId: number, outcomes: Outcome[]): Tally {
  const tally: Tally = {
    counters: { done: 0, failed: 0, qaFailed: 0, tm: 0, tmChars: 0, reused: 0, reusedChars: 0, billed: 0 },
    errors: [],
    units: new Set<number>(),
    changes: [],
    recount: false,
    rows: [],
    byLanguage: new Map(),
  };
  /** (segment, language) pairs whose counts the commit moves. */
  const moved = new Set<string>();
  for (const outcome of outcomes) {
    tally.counters.billed += outcome.billed;
    let entry = tally.byLanguage.get(outcome.language);
    if (!entry) tally.byLanguage.set(outcome.language, (entry = { replaced: [], done: [] }));
    sortProduced(store, outcome, entry, tally, moved);
    for (const item of outcome.skipped) entry.done.push(item.segment_id);
    for (const failure of outcome.failed) {
      const n = store.run(
        `DELETE FROM job_items WHERE job_id = ?1 AND language = ?2 AND segment_id IN (SELECT value FROM json_each(?3))`,
        jobId,
        outcome.language,
        JSON.stringify(failure.items.map((i) => i.segment_id)),
      );
      tally.counters.failed += n;
      if (n) tally.errors.push({ language: outcome.language, message: failure.message, segments: n });
    }
  }
  return tally;
}

/** Sorts an outcome's produced items: a new result each, unless someone else wrote the translation meanwhile. */
function sortProduced(store: Store, outcome: Outcome, entry: ByLanguage, tally: Tally, moved: Set<string>) {
  const { counters } = tally;
  // An import (or a review, a fix) that wrote a translation while the engine was working wins: the job's result for it is not delivered.
  // With the translation's mark: its state now and whether it is counted, so the counts move without a recount.
  const marks = currentRows(store, outcome);
  for (const p of outcome.produced) {
    const { item } = p;
    const found = marks.get(item.segment_id);
    if (found?.mark !== item.mark) {
      entry.done.push(item.segment_id);
      continue;
    }
    if (found.counted) {
      const pair = `${item.segment_id}\u0000${outcome.language}`;
      if (moved.has(pair)) tally.recount = true;
      moved.add(pair);
      const to = found.fingerprint !== item.fingerprint ? "stale" : p.held ? "attention" : "review";
      tally.changes.push({ unitId: item.unit_id, unitKey: found.unit_key!, language: outcome.language, from: found.state, to });
    }
    tally.rows.push([item.segment_id, item.unit_id, item.language, p.text, item.fingerprint, p.origin, p.engine, JSON.stringify(p.issues), p.held ? 1 : 0, item.repeated ? 1 : 0]);
    // Without a translation row there is no earlier result to supersede (a result always comes with one).
    if (item.mark !== "") entry.replaced.push(item.segment_id);
    entry.done.push(item.segment_id);
    tally.units.add(item.unit_id);
    counters.done++;
    if (p.held) counters.qaFailed++;
    if (p.kind === "memory") {
      counters.tm++;
      counters.tmChars += item.characters;
    } else if (p.kind === "reuse") {
      counters.reused++;
      counters.reusedChars += item.characters;
    }
  }
}

/** Inserts the commit's new results, in order, so that their ids follow firstId. */
function insertResults(store: Store, jobId: number, rows: ResultRow[], now: string) {
  // In statements of at most RESULTS_JSON characters (a bound value may not pass 2 MB), in order, so ids follow firstId.
  for (let from = 0; from < rows.length; ) {
    let to = from;
    for (let size = 0; to < rows.length && (to === from || size + rows[to][3].length + rows[to][7].length < RESULTS_JSON); to++)
      size += rows[to][3].length + rows[to][7].length + 200;
    // Read through JSONB: each `->>` then indexes the row instead of parsing its text again (a third faster).
    store.run(
      `INSERT INTO results (segment_id, unit_id, language, text, source_fingerprint, origin, engine, job_id, qa, created_at, pending, held, repeated)
         SELECT r.value ->> 0, r.value ->> 1, r.value ->> 2, r.value ->> 3, r.value ->> 4, r.value ->> 5, r.value ->> 6, ?2, r.value ->> 7, ?3,
           1 - (r.value ->> 8), r.value ->> 8, r.value ->> 9
         FROM jsonb_each(jsonb(?1)) r ORDER BY r.key`,
      JSON.stringify(rows.slice(from, to)),
      jobId,
      now,
    );
    from = to;
  }
}

/** Supersedes the earlier results of the items produced, and takes every item done off the job. */
function retireItems(store: Store, jobId: number, byLanguage: Tally["byLanguage"], firstId: number) {
  for (const [language, entry] of byLanguage) {
    if (entry.replaced.length)
      // Earlier versions of these translations are superseded by the new results.
      store.run(
        `UPDATE results SET superseded = 1, pending = 0, held = 0
           WHERE segment_id IN (SELECT value FROM json_each(?1)) AND language = ?2 AND id < ?3 AND superseded = 0`,
        JSON.stringify(entry.replaced),
        language,
        firstId,
      );
    if (entry.done.length)
      store.run(`DELETE FROM job_items WHERE job_id = ?1 AND language = ?2 AND segment_id IN (SELECT value FROM json_each(?3))`, jobId, language, JSON.stringify(entry.done));
  }
}

/** Makes the commit's new results (ids from firstId) the current translations. */
function storeTranslations(store: Store, jobId: number, firstId: number) {
  // `+job_id`: the rowid range of this commit's results, not results_job_text (every result of the job so far, growing with its progress).
  store.run(
    `INSERT INTO translations (segment_id, language, text, source_fingerprint, status, origin, engine, result_id, qa, updated_at)
         SELECT segment_id, language, text, source_fingerprint, CASE held WHEN 1 THEN 'attention' ELSE 'review' END, origin, engine, id, qa, created_at
         FROM results WHERE id >= ?1 AND +job_id = ?2
         ON CONFLICT (segment_id, language) DO UPDATE SET text = excluded.text, source_fingerprint = excluded.source_fingerprint,
           status = excluded.status, origin = excluded.origin, engine = excluded.engine, result_id = excluded.result_id,
           qa = excluded.qa, updated_at = excluded.updated_at`,
    firstId,
    jobId,
  );
}

/** Fails every item still pending of the languages that failed as a whole. */
function failLanguages(store: Store, jobId: number, outcomes: Outcome[], tally: Tally) {
  // A language-wide failure comes after the language's other outcomes: what they finished is kept.
  for (const outcome of outcomes)
    if (outcome.languageFailure) {
      const n = store.run("DELETE FROM job_items WHERE job_id = ? AND language = ?", jobId, outcome.language);
      tally.counters.failed += n;
      if (n) tally.errors.push({ language: outcome.language, message: outcome.languageFailure, segments: n });
    }
}

/** Moves the job's counter to `n` and adds the commit's figures to the job's. */
function countCommit(store: Store, jobId: number, n: number, counters: Tally["counters"]) {
  store.run(
    `UPDATE jobs SET slices = ?, done_segments = done_segments + ?, failed_segments = failed_segments + ?, qa_failed_segments = qa_failed_segments + ?,
         characters = characters + ?, tm_segments = tm_segments + ?, tm_characters = tm_characters + ?, reused_segments = reused_segments + ?,
         reused_characters = reused_characters + ?
       WHERE id = ?`,
    n,
    counters.done,
    counters.failed,
    counters.qaFailed,
    counters.billed,
    counters.tm,
    counters.tmChars,
    counters.reused,
    counters.reusedChars,
    jobId,
  );
}
