/**
 * A page of units with their counts, as both unit lists read it: GET /v1/units (units with work,
 * src/site/sync/status.ts) and the dashboard's "all units" (src/site/sync/unit-list.ts). The
 * page is keyset-paginated by key (each unit once); its units' unit_counts rows come in one
 * read, each unit's in the site's order of target languages.
 */
import type { SiteSettings } from "../../control/sites.control";
import { decodeCursor, encodeCursor, isString } from "../cursor";
import type { Store } from "../store";
import type { CountRow } from "./counts";

/** A unit's row as the lists and the unit's status show it. */
export interface UnitRow {
  id: number;
  external_key: string;
  label: string | null;
  path: string | null;
  adapter: string;
  last_synced_at: string | null;
}

/** Where a page lies among the keys: at or after `prefix`, after `after` (the cursor), before `end`; `limit` rows at most. */
export interface PageRange {
  prefix: string;
  after: string;
  end: string;
  limit: number;
}

/** The smallest string greater than every string starting with `prefix`. */
export function prefixEnd(prefix: string): string {
  return `${prefix}\u{10FFFF}`;
}

/**
 * A page of units: `rows` reads the units of the range in key order (asked for one more than the
 * page, to tell whether more follow), then their counts (`work`: only languages with something
 * not ok; `language`: only that one), in the site's language order.
 */
export function unitPage(
  store: Store,
  settings: SiteSettings,
  query: { prefix: string; cursor?: string; limit: number },
  rows: (range: PageRange) => UnitRow[],
  counts: { work?: boolean; language?: string } = {},
): { units: { unit: UnitRow; counts: CountRow[] }[]; next_cursor: string | null } {
  // Unit keys are never empty, so "" as the default position excludes nothing.
  const after = decodeCursor(query.cursor, isString) ?? "";
  const end = query.prefix ? prefixEnd(query.prefix) : "\u{10FFFF}\u{10FFFF}";
  const page = rows({ prefix: query.prefix, after, end, limit: query.limit + 1 });
  const more = page.length > query.limit;
  const units = page.slice(0, query.limit);
  const where = [counts.work ? "c.total > c.ok" : "", counts.language ? "c.language = ?2" : ""].filter(Boolean);
  const byUnit = new Map<number, CountRow[]>(units.map((u) => [u.id, []]));
  if (units.length)
    for (const c of store.all<CountRow & { unit_id: number }>(
      `SELECT c.unit_id, c.language, c.total, c.ok, c.stale, c.review, c.attention
       FROM json_each(?1) j CROSS JOIN unit_counts c ON c.unit_id = j.value
       ${where.length ? `WHERE ${where.join(" AND ")}` : ""}`,
      JSON.stringify(units.map((u) => u.id)),
      ...(counts.language ? [counts.language] : []),
    ))
      byUnit.get(c.unit_id)?.push(c);
  const order = new Map(settings.targetLanguages.map((t, i) => [t.code, i]));
  return {
    units: units.map((unit) => ({
      unit,
      counts: byUnit.get(unit.id)!.sort((a, b) => (order.get(a.language) ?? 0) - (order.get(b.language) ?? 0)),
    })),
    next_cursor: more ? encodeCursor(units[units.length - 1].external_key) : null,
  };
}
