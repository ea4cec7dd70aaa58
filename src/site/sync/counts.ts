/**
 * Maintained state counts, so status reads cost the same on a site of any size:
 * unit_counts holds per unit and language counts, site_counts their sums per language and,
 * under language '', the site totals (total = live segments, ok = live units).
 * Every write that can change a state ends by calling `refreshUnits` for the units it touched.
 */

import { unitTargets } from "../settings";
import { stateSql } from "../state";
import type { Store } from "../store";
import type { PushWrites, UnitRef } from "./push-writes";

export interface CountRow {
  language: string;
  total: number;
  ok: number;
  stale: number;
  review: number;
  attention: number;
}

const FIELDS = ["total", "ok", "stale", "review", "attention"] as const;
const ZERO = { total: 0, ok: 0, stale: 0, review: 0, attention: 0 };

/** A unit key's type: `post:` of `post:42` (up to and including the first colon), or null without one. */
export function keyType(key: string): string | null {
  const colon = key.indexOf(":");
  return colon < 0 ? null : key.slice(0, colon + 1);
}

/** True when `prefix` is exactly a key type, so its counts are maintained in prefix_counts. */
export const isKeyType = (prefix: string) => prefix.indexOf(":") === prefix.length - 1;

/**
 * Site and key-type sums not written yet: a batch of pushes collects its units' differences
 * here and writes each sum once (`flushCounts`), instead of once per unit.
 */
export type CountSink = Map<string, { type: string | null; language: string; values: number[] }>;

export function flushCounts(store: Store, sink: CountSink) {
  for (const { type, language, values } of sink.values()) writeSums(store, language, values, type);
  sink.clear();
}

/** Adds one sink's differences to another (a unit's, once its push has committed, to its batch's). */
export function mergeCounts(into: CountSink, from: CountSink) {
  for (const [key, d] of from) {
    const have = into.get(key);
    if (have) d.values.forEach((v, i) => (have.values[i] += v));
    else into.set(key, { ...d, values: [...d.values] });
  }
}

function addToSite(store: Store, language: string, sign: 1 | -1, row: Omit<CountRow, "language">, type: string | null, sink?: CountSink) {
  const values = FIELDS.map((f) => sign * row[f]);
  if (!sink) return writeSums(store, language, values, type);
  const key = `${type ?? ""}\u0000${language}`;
  const have = sink.get(key);
  if (have) values.forEach((v, i) => (have.values[i] += v));
  else sink.set(key, { type, language, values });
}

function writeSums(store: Store, language: string, values: number[], type: string | null) {
  store.run(
    `INSERT INTO site_counts (language, total, ok, stale, review, attention) VALUES (?1, ?2, ?3, ?4, ?5, ?6)
     ON CONFLICT (language) DO UPDATE SET total = total + ?2, ok = ok + ?3, stale = stale + ?4, review = review + ?5, attention = attention + ?6`,
    language,
    ...values,
  );
  if (type !== null)
    store.run(
      `INSERT INTO prefix_counts (prefix, language, total, ok, stale, review, attention) VALUES (?7, ?1, ?2, ?3, ?4, ?5, ?6)
       ON CONFLICT (prefix, language) DO UPDATE SET total = total + ?2, ok = ok + ?3, stale = stale + ?4, review = review + ?5, attention = attention + ?6`,
      language,
      ...values,
      type,
    );
}

/** One counted (segment, language) moved by a write from one state to another (states as `stateSql` names them). */
export interface StateChange {
  unitId: number;
  unitKey: string;
  language: string;
  from: string;
  to: string;
}

/**
 * Carries state changes into the counts without recounting: each change moves one segment
 * between states in its unit's row for the language, and in the site's and key type's sums.
 * For segments that are counted (live, in a live unit) before and after the write; a language
 * the unit no longer targets has no row and is left alone. What a job's commit uses: it knows
 * each translation's state before and after, so its cost follows the commit, not the units.
 */
export function moveStates(store: Store, changes: readonly StateChange[]) {
  const rows = new Map<string, { unitId: number; unitKey: string; language: string; values: number[] }>();
  for (const change of changes) {
    if (change.from === change.to) continue;
    const key = `${change.unitId}\u0000${change.language}`;
    let row = rows.get(key);
    if (!row) rows.set(key, (row = { unitId: change.unitId, unitKey: change.unitKey, language: change.language, values: [0, 0, 0, 0, 0] }));
    const from = FIELDS.indexOf(change.from as (typeof FIELDS)[number]);
    const to = FIELDS.indexOf(change.to as (typeof FIELDS)[number]);
    // "missing" has no column (it is total minus the others); "total" is no state.
    if (from > 0) row.values[from]--;
    if (to > 0) row.values[to]++;
  }
  const sink: CountSink = new Map();
  const units = new Set<number>();
  for (const row of rows.values()) {
    const [, ok, stale, review, attention] = row.values;
    if (!ok && !stale && !review && !attention) continue;
    const written = store.run(
      "UPDATE unit_counts SET ok = ok + ?1, stale = stale + ?2, review = review + ?3, attention = attention + ?4 WHERE unit_id = ?5 AND language = ?6",
      ok,
      stale,
      review,
      attention,
      row.unitId,
      row.language,
    );
    if (!written) continue;
    addToSite(store, row.language, 1, { total: 0, ok, stale, review, attention }, keyType(row.unitKey), sink);
    units.add(row.unitId);
  }
  flushCounts(store, sink);
  if (units.size)
    store.run(
      `UPDATE units SET needs_work = EXISTS (SELECT 1 FROM unit_counts c WHERE c.unit_id = units.id AND c.total > c.ok)
       WHERE id IN (SELECT value FROM json_each(?1))`,
      JSON.stringify([...units]),
    );
}

/** Counts one unit's live segments by state in each language (languages without segments get zeros). */
function countUnit(store: Store, unitId: number, languages: string[]): CountRow[] {
  const rows = store.all<CountRow>(
    `SELECT language, count(*) AS total, sum(st = 'ok') AS ok, sum(st = 'stale') AS stale,
       sum(st = 'review') AS review, sum(st = 'attention') AS attention
     FROM (
       SELECT l.value AS language, ${stateSql()} AS st
       FROM segments s CROSS JOIN json_each(?1) l
       LEFT JOIN translations t ON t.segment_id = s.id AND t.language = l.value
       WHERE s.unit_id = ?2 AND s.removed = 0
     )
     GROUP BY language`,
    JSON.stringify(languages),
    unitId,
  );
  const byLanguage = new Map(rows.map((r) => [r.language, r]));
  return languages.map((language) => byLanguage.get(language) ?? { language, ...ZERO });
}

const same = (a: Omit<CountRow, "language">, b: Omit<CountRow, "language">) => FIELDS.every((f) => a[f] === b[f]);
const minus = (a: Omit<CountRow, "language">, b: Omit<CountRow, "language">) => Object.fromEntries(FIELDS.map((f) => [f, a[f] - b[f]])) as Omit<CountRow, "language">;

/**
 * The counts of a unit just created without imports: every live segment is missing in each of
 * its languages, so they are known without a query. `needsWork` and `segments` are what its
 * units row holds (with `counted` = 1); `writeNewUnitCounts` writes the rest.
 */
export function newUnitCounts(siteTargets: readonly string[], writableLanguages: string | null, segments: number) {
  const languages = unitTargets(siteTargets, writableLanguages);
  return { languages, segments, needsWork: segments > 0 && languages.length > 0 ? 1 : 0 };
}

/**
 * Writes the unit_counts rows of a unit just created (its units row already holds the fields
 * of `newUnitCounts`), held in `writes` with the batch's other new rows, and carries them into
 * the site's sums: what `refreshUnit` would write for it, without its two reads and its
 * per-language writes.
 */
export function writeNewUnitCounts(store: Store, writes: PushWrites, unit: UnitRef, externalKey: string, counts: ReturnType<typeof newUnitCounts>, sink?: CountSink) {
  const type = keyType(externalKey);
  for (const language of counts.languages) writes.newUnitCount(unit, language, externalKey, counts.segments);
  for (const language of counts.languages) addToSite(store, language, 1, { ...ZERO, total: counts.segments }, type, sink);
  addToSite(store, "", 1, { ...ZERO, total: counts.segments, ok: 1 }, type, sink);
}

/**
 * Recomputes one unit's counts and carries the difference into the site's sums. Only rows
 * that changed are written, so refreshing a unit whose states did not move costs two reads.
 */
export function refreshUnit(store: Store, siteTargets: readonly string[], unitId: number, sink?: CountSink) {
  const unit = store.one<{ external_key: string; writable_languages: string | null; deleted: number; segment_count: number; counted: number }>(
    "SELECT external_key, writable_languages, deleted, segment_count, counted FROM units WHERE id = ?",
    unitId,
  );
  if (!unit) return;
  const previous = new Map(
    (unit.counted ? store.all<CountRow>("SELECT language, total, ok, stale, review, attention FROM unit_counts WHERE unit_id = ?", unitId) : []).map((r) => [r.language, r]),
  );
  const type = keyType(unit.external_key);
  const before = unit.counted ? { ...ZERO, total: unit.segment_count, ok: 1 } : ZERO;

  let rows: CountRow[] = [];
  let segments = 0;
  if (!unit.deleted) {
    rows = countUnit(store, unitId, unitTargets(siteTargets, unit.writable_languages));
    // Every language row counts all live segments; without languages, count them directly.
    segments = rows.length ? rows[0].total : store.one<{ n: number }>("SELECT count(*) AS n FROM segments WHERE unit_id = ? AND removed = 0", unitId)!.n;
  }
  for (const row of rows) {
    const old = previous.get(row.language);
    previous.delete(row.language);
    if (old && same(old, row)) continue;
    store.run(
      `INSERT INTO unit_counts (unit_id, language, unit_key, total, ok, stale, review, attention) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (unit_id, language) DO UPDATE SET total = excluded.total, ok = excluded.ok, stale = excluded.stale,
         review = excluded.review, attention = excluded.attention`,
      unitId,
      row.language,
      unit.external_key,
      ...FIELDS.map((f) => row[f]),
    );
    addToSite(store, row.language, 1, old ? minus(row, old) : row, type, sink);
  }
  // Languages the unit no longer targets.
  for (const old of previous.values()) {
    store.run("DELETE FROM unit_counts WHERE unit_id = ? AND language = ?", unitId, old.language);
    addToSite(store, old.language, -1, old, type, sink);
  }
  const after = unit.deleted ? ZERO : { ...ZERO, total: segments, ok: 1 };
  if (!same(before, after)) addToSite(store, "", 1, minus(after, before), type, sink);
  const needsWork = rows.some((r) => r.total > r.ok) ? 1 : 0;
  store.run("UPDATE units SET segment_count = ?, needs_work = ?, counted = ? WHERE id = ?", segments, needsWork, unit.deleted ? 0 : 1, unitId);
}

export function refreshUnits(store: Store, siteTargets: readonly string[], unitIds: Iterable<number>) {
  for (const id of new Set(unitIds)) refreshUnit(store, siteTargets, id);
}

/** Rebuilds every count from scratch: after the site's target languages change. O(site), rare. */
export function rebuildCounts(store: Store, siteTargets: readonly string[]) {
  store.run("DELETE FROM unit_counts");
  store.run("DELETE FROM site_counts");
  store.run("DELETE FROM prefix_counts");
  store.run("UPDATE units SET counted = 0, segment_count = 0");
  const ids = store.all<{ id: number }>("SELECT id FROM units WHERE deleted = 0").map((r) => r.id);
  refreshUnits(store, siteTargets, ids);
}
