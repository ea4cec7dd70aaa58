/**
 * Maintained state counts, so status reads cost the same on a site of any size:
 * unit_counts holds per unit and language counts, site_counts their sums per language and,
 * under language '', the site totals (total = live segments, ok = live units).
 * Every write that can change a state ends by calling `refreshUnits` for the units it touched.
 */
import { unitTargets } from "./settings";
import { stateSql } from "./state";
import type { Store } from "./store";

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

function addToSite(store: Store, language: string, sign: 1 | -1, row: Omit<CountRow, "language">) {
  store.run(
    `INSERT INTO site_counts (language, total, ok, stale, review, attention) VALUES (?1, ?2, ?3, ?4, ?5, ?6)
     ON CONFLICT (language) DO UPDATE SET total = total + ?2, ok = ok + ?3, stale = stale + ?4, review = review + ?5, attention = attention + ?6`,
    language,
    ...FIELDS.map((f) => sign * row[f]),
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

/** Recomputes one unit's counts and carries the difference into the site's sums. */
export function refreshUnit(store: Store, siteTargets: readonly string[], unitId: number) {
  const unit = store.one<{ external_key: string; writable_languages: string | null; deleted: number; segment_count: number; counted: number }>(
    "SELECT external_key, writable_languages, deleted, segment_count, counted FROM units WHERE id = ?",
    unitId,
  );
  if (!unit) return;
  for (const row of store.all<CountRow>("SELECT language, total, ok, stale, review, attention FROM unit_counts WHERE unit_id = ?", unitId))
    addToSite(store, row.language, -1, row);
  store.run("DELETE FROM unit_counts WHERE unit_id = ?", unitId);
  if (unit.counted) addToSite(store, "", -1, { ...ZERO, total: unit.segment_count, ok: 1 });

  if (unit.deleted) {
    store.run("UPDATE units SET segment_count = 0, needs_work = 0, counted = 0 WHERE id = ?", unitId);
    return;
  }
  const segments = store.one<{ n: number }>("SELECT count(*) AS n FROM segments WHERE unit_id = ? AND removed = 0", unitId)!.n;
  let needsWork = 0;
  for (const row of countUnit(store, unitId, unitTargets(siteTargets, unit.writable_languages))) {
    store.run(
      "INSERT INTO unit_counts (unit_id, language, unit_key, total, ok, stale, review, attention) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
      unitId,
      row.language,
      unit.external_key,
      ...FIELDS.map((f) => row[f]),
    );
    addToSite(store, row.language, 1, row);
    if (row.total > row.ok) needsWork = 1;
  }
  addToSite(store, "", 1, { ...ZERO, total: segments, ok: 1 });
  store.run("UPDATE units SET segment_count = ?, needs_work = ?, counted = 1 WHERE id = ?", segments, needsWork, unitId);
}

export function refreshUnits(store: Store, siteTargets: readonly string[], unitIds: Iterable<number>) {
  for (const id of new Set(unitIds)) refreshUnit(store, siteTargets, id);
}

/** Rebuilds every count from scratch: after the site's target languages change. O(site), rare. */
export function rebuildCounts(store: Store, siteTargets: readonly string[]) {
  store.run("DELETE FROM unit_counts");
  store.run("DELETE FROM site_counts");
  store.run("UPDATE units SET counted = 0, segment_count = 0");
  const ids = store.all<{ id: number }>("SELECT id FROM units WHERE deleted = 0").map((r) => r.id);
  refreshUnits(store, siteTargets, ids);
}
