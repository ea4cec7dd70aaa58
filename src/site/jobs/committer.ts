/**
 * The queue of a job's commits within one invocation: each finished engine batch (and each
 * slice's memory hits, repeats and skipped items) is handed to it as soon as it is done, so an
 * eviction never pays an engine twice for a finished batch. Commits run one at a time, each
 * written by persist (commit.ts); outcomes that finish while one is being written are
 * coalesced into the next, and a large outcome is stored as several commits.
 */
import type { SiteSettings } from "../../control/sites.control";
import type { Emit } from "../../webhooks/emit";
import type { Store } from "../store";
import { type Outcome, type Produced, persist } from "./commit";

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

/** Commit `n` of a job found the commit counter moved on: another attempt committed it first (see Committer.write). */
export class CommitConflict extends Error {
  constructor(jobId: number, n: number) {
    super(`commit ${n} of job ${jobId} was written by another attempt first`);
    this.name = "CommitConflict";
  }
  /** Not the job's fault: the runner backs off and redoes the work, as after a D1 fault. */
  readonly retryable = true;
}
