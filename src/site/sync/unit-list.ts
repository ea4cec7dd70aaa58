/**
 * Every live unit of the site, by key (the dashboard's Units page with "all units"): the
 * same row shape as GET /v1/units, but units that are up to date are listed too, each with
 * its counts in every target language. Keyset-paginated by key like GET /v1/units.
 */
import type { SiteSettings } from "../../control/sites";
import { decodeCursor, encodeCursor, isString } from "../cursor";
import type { Store } from "../store";
import type { CountRow } from "./counts";

export interface UnitListItem {
  external_key: string;
  label: string;
  path: string;
  adapter: string;
  last_synced_at: string | null;
  languages: { code: string; ok: number; stale: number; review: number; missing: number; attention: number }[];
}

export function listUnits(store: Store, settings: SiteSettings, query: { prefix: string; cursor?: string; limit: number }) {
  const after = decodeCursor(query.cursor, isString) ?? "";
  const end = query.prefix ? `${query.prefix}\u{10FFFF}` : "\u{10FFFF}\u{10FFFF}";
  const page = store.all<{ id: number; external_key: string; label: string | null; path: string | null; adapter: string; last_synced_at: string | null }>(
    `SELECT id, external_key, label, path, adapter, last_synced_at FROM units
     WHERE deleted = 0 AND external_key >= ? AND external_key > ? AND external_key < ? ORDER BY external_key LIMIT ?`,
    query.prefix,
    after,
    end,
    query.limit + 1,
  );
  const more = page.length > query.limit;
  const units = page.slice(0, query.limit);
  const counts = units.length
    ? store.all<CountRow & { unit_id: number }>(
        `SELECT c.unit_id, c.language, c.total, c.ok, c.stale, c.review, c.attention
         FROM json_each(?1) j CROSS JOIN unit_counts c ON c.unit_id = j.value`,
        JSON.stringify(units.map((u) => u.id)),
      )
    : [];
  const order = new Map(settings.targetLanguages.map((t, i) => [t.code, i]));
  const items: UnitListItem[] = units.map((u) => ({
    external_key: u.external_key,
    label: u.label ?? "",
    path: u.path ?? "",
    adapter: u.adapter,
    last_synced_at: u.last_synced_at,
    languages: counts
      .filter((c) => c.unit_id === u.id && order.has(c.language))
      .sort((a, b) => order.get(a.language)! - order.get(b.language)!)
      .map((c) => ({ code: c.language, ok: c.ok, stale: c.stale, review: c.review, attention: c.attention, missing: c.total - c.ok - c.stale - c.review - c.attention })),
  }));
  return { units: items, next_cursor: more ? encodeCursor(units[units.length - 1].external_key) : null };
}
