/**
 * Committing a job's progress: each finished engine batch (and each slice's memory hits,
 * repeats and skipped items) is stored as soon as it is done, so an eviction never pays an
 * engine twice for a finished batch.
 *
 * Metering stays exact: commits are numbered by the job's `slices` counter, commit n is stored
 * only where the counter still stands at n − 1, and its usage-ledger row (site, job, n) is
 * queued in the same transaction (ledger.ts): the work a commit stores and the row that bills
 * it land together or not at all, and the row reaches D1 after the commit, in the background,
 * so no commit waits for D1. Commits run one at a time; outcomes that finish while one is
 * being written are coalesced into the next.
 */
import type { SiteSettings } from "../../control/sites";
import type { Format } from "../../limits";
import type { QAIssue } from "../../qa";
import type { Emit } from "../../webhooks/emit";
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

export interface CommitDeps {
  store: Store;
  env: Env;
  settings: SiteSettings;
  /** Webhook events (src/webhooks/emit.ts): returns at once, never throws. */
  emit?: Emit;
}

/**
 * Items one commit stores at most: its transaction is one step of CPU that no request can
 * interrupt (about 20 µs an item: bench/profile.mjs --job has the commit's statements at 44 %
 * of a zero-latency job's CPU), so a commit stays a step of about 10 ms. A larger outcome (an
 * engine batch of 1,000 texts) is stored as several commits; outcomes that queued up while the
 * previous commit was written are gathered up to this size.
 */
export const COMMIT_ITEMS = 500;

const itemsOf = (o: Outcome) => o.produced.length + o.skipped.length + o.failed.reduce((n, f) => n + f.items.length, 0);

/**
 * An outcome in parts of at most COMMIT_ITEMS produced items, each billed for the engine texts
 * it holds (an outcome bills the first item of each group it sent, its "engine" item); what
 * ends the language (skipped, failed items, a language-wide failure) goes with the last part.
 */
function parts(outcome: Outcome): Outcome[] {
  if (outcome.produced.length <= COMMIT_ITEMS) return [outcome];
  const engineCharacters = (produced: Produced[]) => produced.reduce((n, p) => n + (p.kind === "engine" ? p.item.characters : 0), 0);
  if (engineCharacters(outcome.produced) !== outcome.billed) return [outcome];
  const out: Outcome[] = [];
  for (let from = 0; from < outcome.produced.length; from += COMMIT_ITEMS) {
    const produced = outcome.produced.slice(from, from + COMMIT_ITEMS);
    const last = from + COMMIT_ITEMS >= outcome.produced.length;
    out.push({ ...outcome, produced, billed: engineCharacters(produced), ...(last ? {} : { skipped: [], failed: [], languageFailure: undefined }) });
  }
  return out;
}

/** Serializes a job's commits within one invocation and coalesces the outcomes that queue up. */
export class Committer {
  private queue: { outcome: Outcome; resolve: () => void; reject: (err: unknown) => void }[] = [];
  private draining = false;
  /**
   * The first failed write: every later commit of the invocation is refused with it. A slice
   * may reuse texts of a commit still landing; if that commit fails, what reused them must not
   * land either (the texts would be delivered unbilled while their own items are redone).
   */
  private failure: { error: unknown } | undefined;
  /** Commits written (each one ledger row and one transaction). */
  commits = 0;

  constructor(
    private readonly deps: CommitDeps,
    private readonly jobId: number,
    /** Counts a commit's work (item-steps) before it is written, letting waiting requests in first when it would overrun the step (Invocation.ahead). */
    private readonly ahead: (items: number) => Promise<void> = async () => {},
    /** A commit was stored, its ledger row queued: the invocation writes it to D1 (LedgerWriter.written). */
    private readonly stored: () => void = () => {},
  ) {}

  /** Stores the outcome (in several commits if it is large); settles once all of it has landed. */
  commit(outcome: Outcome): Promise<void> {
    if (this.failure) return Promise.reject(this.failure.error);
    const landed = parts(outcome).map(
      (part) =>
        new Promise<void>((resolve, reject) => {
          this.queue.push({ outcome: part, resolve, reject });
        }),
    );
    if (!this.draining) void this.drain();
    return Promise.all(landed).then(() => undefined);
  }

  private async drain() {
    this.draining = true;
    try {
      while (this.queue.length) {
        // Gathered up to COMMIT_ITEMS, so one transaction stays a short step.
        let take = 1;
        for (let items = itemsOf(this.queue[0].outcome); take < this.queue.length && items + itemsOf(this.queue[take].outcome) <= COMMIT_ITEMS; take++)
          items += itemsOf(this.queue[take].outcome);
        const group = this.queue.splice(0, take);
        if (this.failure) {
          for (const g of group) g.reject(this.failure.error);
          continue;
        }
        try {
          await this.write(group.map((g) => g.outcome));
          for (const g of group) g.resolve();
        } catch (err) {
          this.failure = { error: err };
          for (const g of group) g.reject(err);
        }
      }
    } finally {
      this.draining = false;
    }
  }

  private async write(outcomes: Outcome[]) {
    const { store, settings } = this.deps;
    // The transaction is one piece of CPU: it starts a step rather than ending one (requests waiting meanwhile go first).
    await this.ahead(outcomes.reduce((sum, o) => sum + itemsOf(o), 0));
    // A job cancelled meanwhile gets no further commit: its outcomes are dropped, unbilled.
    const current = store.one<{ slices: number }>("SELECT slices FROM jobs WHERE id = ? AND status = 'running'", this.jobId);
    if (!current) return;
    const n = current.slices + 1;
    if (persist(store, settings, this.jobId, n, outcomes)) {
      this.commits++;
      this.stored();
      const produced = outcomes.flatMap((o) => o.produced);
      if (produced.some((p) => !p.held)) this.deps.emit?.({ type: "results.available" });
      if (produced.some((p) => p.held)) this.deps.emit?.({ type: "attention.created" });
      return;
    }
    // Not stored. Cancelled (or ended) meanwhile: the outcomes are dropped (cancel wins), unbilled: no ledger row was queued.
    if (store.one("SELECT 1 AS x FROM jobs WHERE id = ? AND status = 'running'", this.jobId) === undefined) return;
    // Still running, and another attempt committed n: the outcomes are not landed (their items stay pending, to be redone).
    throw new CommitConflict(this.jobId, n);
  }
}

/**
 * Characters of texts (and QA findings) one results statement carries at most: the JSON bound
 * to it stays far below the 2 MB a string may have in the object's SQLite (3 bytes a character
 * at worst). A commit may hold several slices' outcomes.
 */
const RESULTS_JSON = 400_000;

/** Commit `n` of a job found the commit counter moved on: another attempt committed it first (see Committer.write). */
export class CommitConflict extends Error {
  constructor(jobId: number, n: number) {
    super(`commit ${n} of job ${jobId} was written by another attempt first`);
    this.name = "CommitConflict";
  }
  /** Not the job's fault: the runner backs off and redoes the work, as after a D1 fault. */
  readonly retryable = true;
}

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
      const current = store.one<{ slices: number; status: string }>("SELECT slices, status FROM jobs WHERE id = ?", jobId);
      if (current?.status !== "running") return false; // cancelled (or ended) meanwhile: nothing more is stored
      if (current.slices !== n - 1) return false; // another attempt already committed n
      const counters = { done: 0, failed: 0, qaFailed: 0, tm: 0, tmChars: 0, reused: 0, reusedChars: 0, billed: 0 };
      const errors: JobError[] = [];
      const units = new Set<number>();
      const changes: StateChange[] = [];
      const moved = new Set<string>();
      /** Set when one commit writes a translation twice (never expected): its units are then recounted. */
      let recount = false;
      // Results get ids above the sequence's current value; the statements below address them as a range.
      const firstId = (store.one<{ seq: number }>("SELECT seq FROM sqlite_sequence WHERE name = 'results'")?.seq ?? 0) + 1;
      /** The commit's new results, inserted by one statement (in this order, so their ids follow firstId). */
      const rows: [number, number, string, string, string, string, string, string, number, number][] = [];
      const byLanguage = new Map<string, { produced: number[]; replaced: number[]; done: number[] }>();
      const of = (language: string) => {
        let entry = byLanguage.get(language);
        if (!entry) byLanguage.set(language, (entry = { produced: [], replaced: [], done: [] }));
        return entry;
      };
      for (const outcome of outcomes) {
        counters.billed += outcome.billed;
        const entry = of(outcome.language);
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
            if (moved.has(pair)) recount = true;
            moved.add(pair);
            const to = found.fingerprint !== item.fingerprint ? "stale" : p.held ? "attention" : "review";
            changes.push({ unitId: item.unit_id, unitKey: found.unit_key!, language: outcome.language, from: found.state, to });
          }
          rows.push([item.segment_id, item.unit_id, item.language, p.text, item.fingerprint, p.origin, p.engine, JSON.stringify(p.issues), p.held ? 1 : 0, item.repeated ? 1 : 0]);
          entry.produced.push(item.segment_id);
          // Without a translation row there is no earlier result to supersede (a result always comes with one).
          if (item.mark !== "") entry.replaced.push(item.segment_id);
          entry.done.push(item.segment_id);
          units.add(item.unit_id);
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
        for (const item of outcome.skipped) entry.done.push(item.segment_id);
        for (const failure of outcome.failed) {
          const n = store.run(
            `DELETE FROM job_items WHERE job_id = ?1 AND language = ?2 AND segment_id IN (SELECT value FROM json_each(?3))`,
            jobId,
            outcome.language,
            JSON.stringify(failure.items.map((i) => i.segment_id)),
          );
          counters.failed += n;
          if (n) errors.push({ language: outcome.language, message: failure.message, segments: n });
        }
      }
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
      if (counters.done)
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
      // A language-wide failure comes after the language's other outcomes: what they finished is kept.
      for (const outcome of outcomes)
        if (outcome.languageFailure) {
          const n = store.run("DELETE FROM job_items WHERE job_id = ? AND language = ?", jobId, outcome.language);
          counters.failed += n;
          if (n) errors.push({ language: outcome.language, message: outcome.languageFailure, segments: n });
        }
      addErrors(store, jobId, errors);
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
      if (recount) refreshUnits(store, siteTargets(settings), units);
      else moveStates(store, changes);
      // The ledger row that bills this commit, in its transaction: written to D1 after it (ledger.ts).
      queueUsage(store, jobId, n, counters.billed, at);
      return true;
    }),
  );
}
