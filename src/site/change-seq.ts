/**
 * The site's change sequence: what lets a job's scope be the work that existed when it was
 * created (docs/decisions.md, "A job's scope is the work that existed at its creation").
 *
 * A counter in `meta` (`change_seq`). Taking a watermark (an estimate, which a job is created
 * from) answers its value and moves it on by one. A write that makes new work stamps its rows
 * with the value it finds, so a row stamped after a watermark was taken carries a larger value:
 * - a segment added, back from removed, or whose text got longer (segments.seq);
 * - a unit restored, or whose writable languages changed (units.seq);
 * - a translation that turns into work: current until its source text changed, or rejected
 *   (translations.seq).
 * The stamp is the SQL expression CHANGE_SEQ inside the statement that writes the row anyway,
 * so a push pays no statement for it. A text change stamps the translations it makes stale: a
 * pair that was already missing or stale stays the job's work, and the job translates its
 * current text, unless that text is longer than the one it replaced (the job would bill more
 * than it estimated for it: the segment is then stamped, and is the next job's).
 */
import type { Store } from "./store";

const KEY = "change_seq";

/** The counter's current value, as SQL: a stamp written by the statement that makes the work. */
export const CHANGE_SEQ = `coalesce((SELECT CAST(value AS INTEGER) FROM meta WHERE key = '${KEY}'), 0)`;

/**
 * Takes a watermark: the counter's value now, moved on by one in the same statement. Rows
 * stamped up to now carry at most the watermark; rows stamped from now on carry more.
 */
export function takeWatermark(store: Store): number {
  return store.one<{ w: number }>(
    `INSERT INTO meta (key, value) VALUES ('${KEY}', '1') ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1
     RETURNING CAST(value AS INTEGER) - 1 AS w`,
  )!.w;
}
