/**
 * A site's point-in-time restore, the object's side (docs/ops/backups.md; src/ops/restore.ops.ts runs
 * it): what a restore to a moment would change, read from the object's own timestamps (the dry
 * run), and what the restored object does first: cancel the jobs that were queued or running at
 * that moment (their work since is billed already, and their reservations are released in D1),
 * and skip the job ids D1 has seen since, so a new job never takes the id of a billed one (the
 * usage ledger is keyed by site, job and commit).
 */
import { cancelJob, type JobRow } from "./jobs/jobs";
import type { Store } from "./store";

/** The runtime's answer where storage has no point-in-time recovery (workerd locally: `wrangler dev`, the tests). */
export const NO_PITR = /does not implement point-in-time recovery/i;

export interface RestorePreview {
  /** What the site holds now. */
  now: { units: number; jobs: number; results: number; memory_entries: number };
  /** What it held at the moment, as far as its timestamps tell: units last pushed by then and not deleted by then, jobs and results made by then. */
  at_time: { units: number; jobs: number; results: number };
  /** What changed after the moment: it goes back (units pushed since return to their state then, or go if new; units deleted since come back; jobs, results and memory entries since are gone). */
  since: { units_pushed: number; units_deleted: number; jobs: number; results: number; memory_entries: number };
  /** Jobs queued or running at the moment: the restored object cancels them. */
  cancelled_on_restore: number[];
}

const count = (store: Store, query: string, ...args: unknown[]) => store.one<{ n: number }>(query, ...args)?.n ?? 0;

/** Counts for a restore to `at` (an ISO time). Each is one scan of its table: an operator's occasional question, not a hot path. */
export function restorePreview(store: Store, at: string): RestorePreview {
  // Queued or running at the moment: made by then, and not finished by then.
  const active = store.all<{ id: number }>("SELECT id FROM jobs WHERE created_at <= ? AND (finished_at IS NULL OR finished_at > ?) ORDER BY id", at, at);
  return {
    now: {
      units: count(store, "SELECT count(*) AS n FROM units WHERE deleted = 0"),
      jobs: count(store, "SELECT count(*) AS n FROM jobs"),
      results: count(store, "SELECT count(*) AS n FROM results"),
      memory_entries: count(store, "SELECT count(*) AS n FROM memory"),
    },
    at_time: {
      units: count(store, "SELECT count(*) AS n FROM units WHERE (last_synced_at IS NULL OR last_synced_at <= ?) AND (deleted = 0 OR deleted_at > ?)", at, at),
      jobs: count(store, "SELECT count(*) AS n FROM jobs WHERE created_at <= ?", at),
      results: count(store, "SELECT count(*) AS n FROM results WHERE created_at <= ?", at),
    },
    since: {
      units_pushed: count(store, "SELECT count(*) AS n FROM units WHERE last_synced_at > ?", at),
      units_deleted: count(store, "SELECT count(*) AS n FROM units WHERE deleted = 1 AND deleted_at > ?", at),
      jobs: count(store, "SELECT count(*) AS n FROM jobs WHERE created_at > ?", at),
      results: count(store, "SELECT count(*) AS n FROM results WHERE created_at > ?", at),
      memory_entries: count(store, "SELECT count(*) AS n FROM memory WHERE updated_at > ?", at),
    },
    cancelled_on_restore: active.map((j) => j.id),
  };
}

/**
 * The restored object's first work: every queued or running job cancelled with `reason` (each
 * answered as the cancel answers it, for the job.finished events), and the job id sequence moved
 * past `minJobId` (the highest id D1's ledger or reservations hold for the site).
 */
export function settleRestore(store: Store, reason: string, minJobId: number): { before: JobRow["status"]; job: JobRow }[] {
  const active = store.all<{ id: number; status: JobRow["status"] }>("SELECT id, status FROM jobs WHERE status IN ('queued', 'running') ORDER BY id");
  const cancelled = active.map((j) => ({ before: j.status, job: cancelJob(store, j.id, reason) }));
  store.tx(() => {
    const last = store.one<{ id: number | null }>("SELECT max(id) AS id FROM jobs")?.id ?? 0;
    // AUTOINCREMENT never goes below the highest id a row ever had: a placeholder row at `minJobId`, gone at once, moves it.
    if (last < minJobId) {
      store.run(
        "INSERT INTO jobs (id, type, status, request, languages, created_at, finished_at) VALUES (?, 'delta', 'cancelled', '{}', '[]', ?, ?)",
        minJobId,
        store.now(),
        store.now(),
      );
      store.run("DELETE FROM jobs WHERE id = ?", minJobId);
    }
  });
  return cancelled;
}
