/**
 * Every live unit of the site, by key (the dashboard's Units page with "all units"): the
 * same row shape as GET /v1/units, but units that are up to date are listed too, each with
 * its counts in every target language. Keyset-paginated by key like GET /v1/units (the page
 * read by src/site/sync/unit-page.ts for both).
 */
import type { SiteSettings } from "../../control/sites.control";
import type { Store } from "../store";
import { type PageRange, type UnitRow, unitPage } from "./unit-page";

export interface UnitListItem {
  external_key: string;
  label: string;
  path: string;
  adapter: string;
  last_synced_at: string | null;
  languages: { code: string; ok: number; stale: number; review: number; missing: number; attention: number }[];
}

export function listUnits(store: Store, settings: SiteSettings, query: { prefix: string; cursor?: string; limit: number }) {
  const rows = (range: PageRange) =>
    store.all<UnitRow>(
      `SELECT id, external_key, label, path, adapter, last_synced_at FROM units
       WHERE deleted = 0 AND external_key >= ? AND external_key > ? AND external_key < ? ORDER BY external_key LIMIT ?`,
      range.prefix,
      range.after,
      range.end,
      range.limit,
    );
  const page = unitPage(store, settings, query, rows);
  const targets = new Set(settings.targetLanguages.map((t) => t.code));
  const items: UnitListItem[] = page.units.map(({ unit: u, counts }) => ({
    external_key: u.external_key,
    label: u.label ?? "",
    path: u.path ?? "",
    adapter: u.adapter,
    last_synced_at: u.last_synced_at,
    languages: counts
      .filter((c) => targets.has(c.language))
      .map((c) => ({ code: c.language, ok: c.ok, stale: c.stale, review: c.review, attention: c.attention, missing: c.total - c.ok - c.stale - c.review - c.attention })),
  }));
  return { units: items, next_cursor: page.next_cursor };
}
