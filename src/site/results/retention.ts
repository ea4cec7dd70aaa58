/**
 * Retention (docs/decisions.md "Retention and erasure"), run by the site's alarm in bounded
 * steps so a large backlog never holds the object for long:
 *
 * - a deleted unit is restorable (a push brings it back) for 30 days, then purged with its
 *   segments, translations, results and job items;
 * - a superseded result is purged 30 days after the newer result replaced it (its `created_at`).
 *   A superseded result is never listed, acknowledged or reviewed again, so this holds for
 *   acknowledged and unacknowledged ones alike.
 *
 * The translation memory is the site's, not a unit's: it stays. Finished jobs keep their row.
 * A unit with pending items in an active job waits until that job is done.
 */
import type { Store } from "../store";

export const RETENTION_DAYS = 30;
const DAY_MS = 86_400_000;
/** Segments of expired units purged per step (with their translations and results). */
export const SEGMENTS_PER_STEP = 1_000;
/** Superseded results purged per step. */
export const RESULTS_PER_STEP = 5_000;
/** Steps per alarm invocation; what is left waits for the next alarm. */
export const STEPS_PER_RUN = 8;

const cutoffOf = (now: Date) => new Date(now.getTime() - RETENTION_DAYS * DAY_MS).toISOString();

const EXPIRED_UNIT = `u.deleted = 1 AND u.deleted_at <= ?1
  AND NOT EXISTS (SELECT 1 FROM job_items ji JOIN segments s2 ON s2.id = ji.segment_id WHERE s2.unit_id = u.id)`;

/** One step over expired deleted units: up to SEGMENTS_PER_STEP segments, then units left without segments. Answers rows purged. */
function purgeUnitsStep(store: Store, cutoff: string): { segments: number; units: number } {
  return store.tx(() => {
    const ids = store
      .all<{ id: number }>(`SELECT s.id FROM units u JOIN segments s ON s.unit_id = u.id WHERE ${EXPIRED_UNIT} LIMIT ?2`, cutoff, SEGMENTS_PER_STEP)
      .map((r) => r.id);
    if (ids.length) {
      const list = JSON.stringify(ids);
      store.run("DELETE FROM results WHERE segment_id IN (SELECT value FROM json_each(?))", list);
      store.run("DELETE FROM translations WHERE segment_id IN (SELECT value FROM json_each(?))", list);
      store.run("DELETE FROM job_items WHERE segment_id IN (SELECT value FROM json_each(?))", list);
      store.run("DELETE FROM segments WHERE id IN (SELECT value FROM json_each(?))", list);
    }
    // Units whose segments are all gone (now or in earlier steps) go last.
    const units = store
      .all<{ id: number }>(`SELECT u.id FROM units u WHERE ${EXPIRED_UNIT} AND NOT EXISTS (SELECT 1 FROM segments s WHERE s.unit_id = u.id) LIMIT ?2`, cutoff, SEGMENTS_PER_STEP)
      .map((r) => r.id);
    if (units.length) {
      const list = JSON.stringify(units);
      store.run("DELETE FROM results WHERE unit_id IN (SELECT value FROM json_each(?))", list);
      store.run("DELETE FROM unit_counts WHERE unit_id IN (SELECT value FROM json_each(?))", list);
      store.run("DELETE FROM units WHERE id IN (SELECT value FROM json_each(?))", list);
    }
    return { segments: ids.length, units: units.length };
  });
}

/**
 * One step over superseded results replaced before the cutoff. Only the oldest
 * RESULTS_PER_STEP superseded results (by id) are examined, so a step costs the same however
 * many are waiting; a newer one replaced earlier waits its turn (purged late, never early).
 */
function purgeResultsStep(store: Store, cutoff: string): { purged: number; examined: number } {
  return store.tx(() => {
    const oldest = store.all<{ id: number }>("SELECT id FROM results WHERE superseded = 1 ORDER BY id LIMIT ?", RESULTS_PER_STEP).map((r) => r.id);
    if (!oldest.length) return { purged: 0, examined: 0 };
    const purged = store.run(
      `DELETE FROM results WHERE id IN (
         SELECT r.id FROM json_each(?2) j CROSS JOIN results r ON r.id = j.value
         WHERE EXISTS (SELECT 1 FROM results n WHERE n.segment_id = r.segment_id AND n.language = r.language AND n.id > r.id AND n.created_at <= ?1))`,
      cutoff,
      JSON.stringify(oldest),
    );
    return { purged, examined: oldest.length };
  });
}

export interface RetentionRun {
  segments: number;
  units: number;
  results: number;
  /** A step hit its bound: more is due now. */
  more: boolean;
}

/**
 * Runs up to `steps` bounded steps of what is due at `now`. When nothing is due yet (the
 * usual case in a job's alarm) it costs the two index look-ups of `nextRetentionAt`.
 */
export function runRetention(store: Store, now = store.clock(), steps = STEPS_PER_RUN): RetentionRun {
  const out: RetentionRun = { segments: 0, units: 0, results: 0, more: false };
  const due = nextRetentionAt(store);
  if (!due || due.getTime() > now.getTime()) return out;
  const cutoff = cutoffOf(now);
  for (let step = 0; step < steps; step++) {
    const u = purgeUnitsStep(store, cutoff);
    const unitsMore = u.segments === SEGMENTS_PER_STEP || u.units === SEGMENTS_PER_STEP;
    const r = unitsMore ? { purged: 0, examined: 0 } : purgeResultsStep(store, cutoff);
    out.segments += u.segments;
    out.units += u.units;
    out.results += r.purged;
    // More is due now only if a step was full of work (a full window with nothing expired is not).
    out.more = unitsMore || r.purged === RESULTS_PER_STEP;
    if (!out.more) break;
  }
  return out;
}

/**
 * When retention next has work: when the oldest deleted unit expires, or the oldest
 * superseded result (its replacement's time + 30 days); null when nothing is waiting. Both are
 * index look-ups. A newer superseded result replaced earlier may wait until then: purged late,
 * never early.
 */
export function nextRetentionAt(store: Store): Date | null {
  const unit = store.one<{ at: string | null }>("SELECT min(deleted_at) AS at FROM units WHERE deleted = 1")?.at;
  const result = store.one<{ at: string | null }>(
    `SELECT (SELECT min(n.created_at) FROM results n WHERE n.segment_id = r.segment_id AND n.language = r.language AND n.id > r.id) AS at
     FROM results r WHERE r.superseded = 1 ORDER BY r.id LIMIT 1`,
  )?.at;
  const times = [unit, result].filter((t): t is string => !!t).map((t) => Date.parse(t) + RETENTION_DAYS * DAY_MS);
  return times.length ? new Date(Math.min(...times)) : null;
}
