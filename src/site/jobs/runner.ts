/**
 * The job runner, driven by the site object's alarm: it decides what runs next. Jobs run one
 * at a time in request order. A job's scope is fixed when it starts (job_items); its
 * languages are then worked off side by side, each in slices one after another (slice.ts),
 * whose engine batches run concurrently up to each engine's limit and are committed as they
 * finish (commit.ts). Engine calls never happen inside a transaction. The work goes in short
 * steps (invocation.ts): the object answers requests between them, whatever the engine.
 *
 * Always moving: an invocation stops starting work at its budget and answers whether more is
 * waiting, so the caller re-arms the alarm; an infrastructure fault (D1, storage) backs off
 * and re-arms without counting against the job; only repeated internal errors (bugs) abandon
 * a job, which then writes its queued ledger rows and releases its reservation.
 * A commit's ledger row is queued in its transaction and written to D1 behind it (ledger.ts);
 * an invocation answers only once its rows are written, and a job is settled only once its
 * rows are.
 */
import { entitlement, releaseInactive, reserve, settleJob } from "../../billing/metering";
import { controlDb } from "../../control/db";
import { orgMemory } from "../../memory/stub";
import { redactError } from "../../obs/log";
import { record as recordEvent } from "../../obs/metrics";
import { backoffMs, InfrastructureError, infra, isInfrastructure } from "../faults";
import type { Store } from "../store";
import { Budget } from "./budget";
import { addErrors } from "./commit";
import { Committer } from "./committer";
import { jobFinished, jobStarted } from "./events";
import { Invocation, type RunnerDeps, type RunOptions, SCOPE_ITEMS } from "./invocation";
import { type JobRow, jobOut, markSettled, storedEstimate, unsettledJobs } from "./jobs";
import { flushUsage } from "./ledger";
import { jobScope, scopeQuery } from "./scope";
import { estimateWithShared } from "./shared-hits";
import { runSlice } from "./slice";

export { type RunnerDeps, type RunOptions, SUBREQUEST_BUDGET } from "./invocation";
export { SLICE_ITEMS } from "./slice";

/** Internal errors in a row (bugs, not infrastructure) after which a job is abandoned. */
export const MAX_INTERNAL_FAILURES = 5;

/**
 * Whether the runner has more to do: a job queued or running, or a cancelled one whose billing
 * is still to be settled. A cancel that arrives while the jobs need runs does not move the need
 * (it is already due), so the runner's own answer must keep it.
 */
const moreWork = (store: Store) => currentJob(store) !== undefined || unsettledJobs(store).length > 0;

const isRunning = (store: Store, id: number) => store.one("SELECT 1 AS x FROM jobs WHERE id = ? AND status = 'running'", id) !== undefined;

export function currentJob(store: Store): JobRow | undefined {
  return store.one<JobRow>("SELECT * FROM jobs WHERE status IN ('queued', 'running') ORDER BY id LIMIT 1");
}

function finish(deps: RunnerDeps, jobId: number, status: "succeeded" | "failed", error?: string) {
  const { store } = deps;
  const finished = store.tx(() => {
    if (error) addErrors(store, jobId, [{ language: "", message: error, segments: 0 }]);
    const changed = store.run("UPDATE jobs SET status = ?, finished_at = ? WHERE id = ? AND status IN ('queued', 'running')", status, store.now(), jobId);
    store.run("DELETE FROM job_items WHERE job_id = ?", jobId);
    return changed > 0 ? store.one<JobRow>("SELECT * FROM jobs WHERE id = ?", jobId) : undefined;
  });
  if (finished) {
    jobFinished(deps.env, deps.settings, finished);
    deps.emit?.({ type: "job.finished", data: jobOut(finished) });
  }
}

/**
 * Fails a job whose slices keep throwing for reasons other than engines or infrastructure (a
 * bug), so the queue moves on: its queued ledger rows are written and its reservation released
 * (the customer pays exactly for what the job kept).
 */
export async function abandonJob(deps: RunnerDeps, jobId: number) {
  await settle(deps, jobId, "abandoning a job");
  finish(deps, jobId, "failed", "The job stopped after repeated internal errors; request it again. Segments already translated are kept.");
}

/**
 * Billing equals what is stored: once a job has ended, the ledger rows its commits queued are
 * written (`flush`: the invocation's writer, or the outbox directly), any row numbered above its
 * commits is removed (written ahead of a commit that never landed, by the runner before ledger.ts)
 * and its reservation released (billing/metering.ts, settleJob). Its `characters` then equal the month's
 * usage it caused.
 */
async function settle(deps: RunnerDeps, jobId: number, what: string, flush: () => Promise<void> = async () => void (await flushUsage(deps))) {
  await flush();
  const committed = deps.store.one<{ slices: number }>("SELECT slices FROM jobs WHERE id = ?", jobId)?.slices ?? 0;
  await infra(what, () => settleJob(controlDb(deps.env.DB), deps.settings.id, jobId, committed));
}

/**
 * The job's one start step, queued → running (or failed): its estimate (the stored one unless
 * its scope was written since; jobs.ts, storedEstimate), the subscription checked again, its
 * characters reserved. Its scope is the work that existed at its watermark, so a new estimate
 * can only have shrunk, unless a text it covers changed since and is longer or no longer a
 * repeat or memory hit: its estimated characters never grow, and they are the most it bills
 * (Budget). A job that may not run (no longer entitled) is settled here, once, and finished.
 */
async function start(deps: RunnerDeps, job: JobRow): Promise<boolean> {
  const { store, settings } = deps;
  // Counted as the request's estimate was: the organization memory's exact matches are memory hits.
  const estimate =
    (await storedEstimate(store, settings, job, () => orgMemory(deps.env, settings.organizationId).version())) ??
    (await estimateWithShared(store, deps.env, settings, jobScope(job), JSON.parse(job.languages) as string[]));
  const db = controlDb(deps.env.DB);
  const ent = await infra("checking a job's subscription", () => entitlement(db, settings, deps.store.clock()));
  // Cancelled while the subscription was being checked.
  if (store.one("SELECT 1 AS x FROM jobs WHERE id = ? AND status = 'queued'", job.id) === undefined) return false;
  if (estimate.estimated_characters > 0 && !ent.entitled) {
    await settle(deps, job.id, "releasing a reservation");
    finish(deps, job.id, "failed", `Hosted translation is no longer available for this site: ${ent.reason}`);
    return false;
  }
  // What it was accepted with (confirmed or not) holds: its characters were reserved when it was created.
  const characters = Math.min(estimate.estimated_characters, job.estimated_characters);
  // Running from here on; its items are fixed in chunks (fixScope), then worked off.
  store.run(
    `UPDATE jobs SET status = 'running', started_at = ?, estimated_segments = ?, estimated_characters = ?, estimated_tm_segments = ?, scope_cursor = 0
     WHERE id = ? AND status = 'queued'`,
    store.now(),
    estimate.estimated_segments,
    characters,
    estimate.estimated_tm_segments,
    job.id,
  );
  if (!isRunning(store, job.id)) return true;
  jobStarted(deps.env, settings, job);
  await infra("reserving a job's characters", () => reserve(db, settings, job.id, characters, job.created_at));
  return true;
}

/**
 * Fixes the next chunk of a started job's items: segments with ids after the cursor, up to
 * `chunk` of them, in one transaction. Answers whether the whole scope is now fixed.
 */
function fixScopeChunk(deps: RunnerDeps, job: JobRow, chunk: number): boolean {
  const { store, settings } = deps;
  const after = job.scope_cursor ?? 0;
  const last = store.one<{ id: number }>("SELECT id FROM segments WHERE id > ? ORDER BY id LIMIT 1 OFFSET ?", after, chunk - 1);
  const upTo = last?.id ?? Number.MAX_SAFE_INTEGER;
  const q = scopeQuery(settings, jobScope(job), JSON.parse(job.languages) as string[], `${Number(job.id)} AS job_id, s.id AS segment_id, l.value AS language`, {
    after,
    upTo,
  });
  store.tx(() => {
    store.run(`INSERT OR IGNORE INTO job_items (job_id, segment_id, language) ${q.sql}`, ...q.args);
    store.run("UPDATE jobs SET scope_cursor = ? WHERE id = ? AND status = 'running'", last ? upTo : null, job.id);
  });
  return !last;
}

/** Segments per chunk of a job's scope: SCOPE_ITEMS items, whatever the number of its languages. */
const chunkSegments = (inv: Invocation, job: JobRow) =>
  inv.options.scopeChunk ?? Math.max(1, Math.floor(SCOPE_ITEMS / Math.max(1, (JSON.parse(job.languages) as string[]).length)));

/** Languages of the job with pending items, in code order: one key look-up per language, whatever the scope's size. */
function pendingLanguages(store: Store, job: JobRow): string[] {
  return store
    .all<{ language: string }>(
      "SELECT l.value AS language FROM json_each(?2) l WHERE EXISTS (SELECT 1 FROM job_items ji WHERE ji.job_id = ?1 AND ji.language = l.value) ORDER BY l.value",
      job.id,
      job.languages,
    )
    .map((r) => r.language);
}

/** Runs the job's languages side by side, each slice after slice, until done, out of budget, or the job is cancelled. */
async function runLanguages(inv: Invocation, job: JobRow) {
  const committer = new Committer(
    inv.deps,
    job.id,
    (items) => inv.ahead(items, "commit"),
    () => inv.ledger.written(),
  );
  inv.committers.push(committer);
  // The most the job bills is its estimate (budget.ts): what its stored commits billed is taken off.
  const budget = new Budget(Math.max(0, job.estimated_characters - job.characters));
  const workers = pendingLanguages(inv.deps.store, job).map(async (language) => {
    // A slice's commits land while the language's next slice loads and translates (from after the items the last one took).
    let landing: Promise<void> = Promise.resolve();
    let after = 0;
    try {
      while (inv.mayStartSlice()) {
        inv.slicesStarted++;
        const slice = await runSlice(inv, job, committer, budget, language, after);
        if (!slice) break;
        after = slice.last;
        // A commit that fails stops the invocation; the failure is thrown below, once the others have landed.
        slice.committed.catch(() => inv.stop());
        landing = Promise.allSettled([landing, slice.committed]).then(([a, b]) => {
          if (a.status === "rejected") throw a.reason;
          if (b.status === "rejected") throw b.reason;
        });
        landing.catch(() => {}); // handled: awaited below
      }
    } catch (err) {
      inv.stop();
      await landing.catch(() => {});
      throw err;
    }
    await landing;
  });
  const settled = await Promise.allSettled(workers);
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === "rejected");
  if (failed) throw failed.reason;
}

/** running → succeeded or failed, once no item is pending; its billing is settled first. */
async function finishJob(inv: Invocation, job: JobRow) {
  const { deps } = inv;
  // Settle before finishing: if D1 fails here the job is still running, and the next alarm settles again.
  await settle(deps, job.id, "releasing a reservation", () => inv.ledger.flush());
  const done = deps.store.one<{ done_segments: number; failed_segments: number }>("SELECT done_segments, failed_segments FROM jobs WHERE id = ?", job.id)!;
  if (isRunning(deps.store, job.id)) finish(deps, job.id, done.done_segments === 0 && done.failed_segments > 0 ? "failed" : "succeeded");
}

/**
 * One invocation: runs the site's jobs, one at a time in request order, until the budget is
 * spent, then answers whether more work is waiting (the caller sets the next alarm). A number
 * is the budget in ms. Each job goes the same way: its start (queued → running: the cost
 * checked again and its characters reserved), its scope fixed in chunks, its slices, its
 * finish. Between steps the object answers waiting requests (Invocation.step); a job
 * cancelled meanwhile gets no further engine request or commit.
 */
export async function runJobs(deps: RunnerDeps, options: number | RunOptions = {}): Promise<boolean> {
  const inv = new Invocation(deps, typeof options === "number" ? { budgetMs: options } : options);
  let more: boolean;
  try {
    more = await invoke(inv);
  } catch (err) {
    await inv.ledger.idle();
    throw err;
  }
  // The ledger rows of this invocation's commits (and any an earlier one left) are in D1 before it answers.
  await inv.ledger.flush();
  return more;
}

async function invoke(inv: Invocation): Promise<boolean> {
  const { deps } = inv;
  for (;;) {
    // Jobs cancelled while running: their commits have landed by now (none is in flight between two steps of the loop).
    for (const id of unsettledJobs(deps.store)) {
      await settle(deps, id, "settling a cancelled job", () => inv.ledger.flush());
      markSettled(deps.store, id);
    }
    const job = currentJob(deps.store);
    if (!job) {
      // Also repairs a release that failed after its job had ended.
      await infra("releasing reservations", () => releaseInactive(controlDb(deps.env.DB), deps.settings.id, []));
      // A job created (or cancelled) while that was written.
      return moreWork(deps.store);
    }
    if (job.status === "queued") {
      await start(deps, job);
      await inv.turn("start");
      continue;
    }
    if (job.scope_cursor !== null) {
      // Large scopes are fixed across invocations, in chunks; the first chunk always goes.
      const fixed = fixScopeChunk(deps, job, chunkSegments(inv, job));
      inv.chunksFixed++;
      await inv.turn("scope");
      if (!fixed && !inv.mayFixChunk()) return moreWork(deps.store);
      continue;
    }
    if (inv.slicesStarted > 0 && !inv.mayStartSlice()) return true;
    await runLanguages(inv, job);
    // Cancelled meanwhile: its commits have all landed (runLanguages waits for them), so the loop's top settles it, once.
    if (!isRunning(deps.store, job.id)) continue;
    if (pendingLanguages(deps.store, job).length === 0) await finishJob(inv, job);
    if (!inv.mayStartSlice()) return moreWork(deps.store);
  }
}

/** Faults in a row, kept across alarms (meta `runner_faults`). */
interface FaultRecord {
  job: number | null;
  infrastructure: number;
  internal: number;
}

const FAULTS = "runner_faults";

/**
 * The alarm's whole job: one invocation of the runner, with faults turned into a delay
 * instead of a throw, so an alarm is always set while a job has work (the platform gives up
 * on an alarm after six failed retries; we never hand it one). Answers the delay in ms before
 * the next alarm, or null when no job is waiting.
 */
export async function runAlarm(deps: RunnerDeps, options: number | RunOptions = {}, random: () => number = Math.random): Promise<number | null> {
  const { store } = deps;
  try {
    // After an infrastructure fault, one cheap query first: an engine is not paid for work that cannot be metered.
    if (store.getMeta<FaultRecord>(FAULTS)?.infrastructure) await infra("checking D1", () => deps.env.DB.prepare("SELECT 1").first());
    const more = await runJobs(deps, options);
    if (store.getMeta<FaultRecord>(FAULTS)) store.run("DELETE FROM meta WHERE key = ?", FAULTS);
    return more ? 0 : null;
  } catch (err) {
    const job = currentJob(store);
    const previous = store.getMeta<FaultRecord>(FAULTS);
    const record: FaultRecord = previous && previous.job === (job?.id ?? null) ? previous : { job: job?.id ?? null, infrastructure: 0, internal: 0 };
    const infrastructure = isInfrastructure(err);
    if (infrastructure) record.infrastructure++;
    else record.internal++;
    const delay = backoffMs(infrastructure ? record.infrastructure : record.internal, random);
    // d1.fault: D1 (or R2, storage) failed under the runner, which backs off; the alert counts them (docs/ops/observability.md).
    recordEvent(deps.env, infrastructure ? "warn" : "error", infrastructure ? "d1.fault" : "job.internal_error", {
      site_id: deps.settings.id,
      org_id: deps.settings.organizationId,
      code: err instanceof InfrastructureError ? err.what : undefined,
      job_id: job?.id,
      infrastructure: record.infrastructure,
      internal: record.internal,
      retry_in_ms: delay,
      error: redactError(err),
    });
    if (!infrastructure && job && record.internal >= MAX_INTERNAL_FAILURES) {
      try {
        await abandonJob(deps, job.id);
        store.run("DELETE FROM meta WHERE key = ?", FAULTS);
        return 0;
      } catch (abandonErr) {
        if (!isInfrastructure(abandonErr)) throw abandonErr;
      }
    }
    store.setMeta(FAULTS, record);
    return delay;
  }
}
