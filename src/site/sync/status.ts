/** Status reads: the site's counts, units with work, and one unit's segment × language matrix. */
import type { LanguageCounts, SegmentResult, TranslationStatus, UnitStatus, UnitStatusInclude, UnitsWork, WorkState } from "../../api/schemas";
import type { SiteSettings } from "../../control/sites.control";
import { notFound } from "../../errors";
import { resultId } from "../result-id";
import { lower, siteTargets } from "../settings";
import { stateSql } from "../state";
import type { Store } from "../store";
import type { CountRow } from "./counts";
import { isKeyType } from "./counts";
import { type PageRange, prefixEnd, type UnitRow, unitPage } from "./unit-page";

export interface Links {
  dashboardUrl: string;
  siteId: number;
}

export const unitUrl = (links: Links, key: string) => `${links.dashboardUrl}/sites/${links.siteId}/units/${encodeURIComponent(key)}`;
export const attentionUrl = (links: Links, key: string, language: string) =>
  `${links.dashboardUrl}/sites/${links.siteId}/attention?unit=${encodeURIComponent(key)}&language=${encodeURIComponent(language)}`;

function languageCounts(row: CountRow): Omit<LanguageCounts, "attention_url"> {
  return {
    code: row.language,
    ok: row.ok,
    stale: row.stale,
    review: row.review,
    missing: row.total - row.ok - row.stale - row.review - row.attention,
    attention: row.attention,
  };
}

export function siteStatus(store: Store, settings: SiteSettings, prefix: string, glossaryTerms: number) {
  const targets = siteTargets(settings);
  let rows: CountRow[];
  let totals: { units: number; segments: number };
  if (!prefix) {
    rows = store.all<CountRow>("SELECT language, total, ok, stale, review, attention FROM site_counts");
    const t = rows.find((r) => r.language === "");
    totals = { units: t?.ok ?? 0, segments: t?.total ?? 0 };
  } else if (isKeyType(prefix)) {
    // A whole key type (`post:`): maintained sums, the same cost on a site of any size.
    rows = store.all<CountRow>("SELECT language, total, ok, stale, review, attention FROM prefix_counts WHERE prefix = ?", prefix);
    const t = rows.find((r) => r.language === "");
    totals = { units: t?.ok ?? 0, segments: t?.total ?? 0 };
  } else {
    const end = prefixEnd(prefix);
    rows = store.all<CountRow>(
      `SELECT language, sum(total) AS total, sum(ok) AS ok, sum(stale) AS stale, sum(review) AS review, sum(attention) AS attention
       FROM unit_counts WHERE unit_key >= ? AND unit_key < ? GROUP BY language`,
      prefix,
      end,
    );
    totals = store.one<{ units: number; segments: number }>(
      "SELECT count(*) AS units, coalesce(sum(segment_count), 0) AS segments FROM units WHERE external_key >= ? AND external_key < ? AND deleted = 0",
      prefix,
      end,
    )!;
  }
  const byLanguage = new Map(rows.map((r) => [r.language, r]));
  return {
    units_total: totals.units,
    segments_total: totals.segments,
    glossary_terms: glossaryTerms,
    languages: targets.map((code) => ({
      ...languageCounts(byLanguage.get(code) ?? { language: code, total: 0, ok: 0, stale: 0, review: 0, attention: 0 }),
      attention_url: "",
    })),
  };
}

/**
 * A unit_counts row (alias `c`) that has work of one kind in its language. `missing` has no
 * column: it is what the other counts leave of the total.
 */
const HAS_STATE: Record<WorkState, string> = {
  missing: "c.total > c.ok + c.stale + c.review + c.attention",
  stale: "c.stale > 0",
  review: "c.review > 0",
  attention: "c.attention > 0",
};

/**
 * GET /v1/units: units with work, keyset-paginated by key, each unit exactly once. `state`
 * only selects units (one of whose languages has that work); each listed unit is the same
 * item as in the list without it, its languages included.
 */
export function unitsWithWork(
  store: Store,
  settings: SiteSettings,
  links: Links,
  query: { prefix: string; language?: string; state?: WorkState; cursor?: string; limit: number },
): UnitsWork {
  const language = query.language ? settings.targetLanguages.find((t) => lower(t.code) === lower(query.language!))?.code : undefined;
  const state = query.state ? HAS_STATE[query.state] : undefined;
  const rows = (range: PageRange): UnitRow[] => {
    // A language the site does not translate into: no unit has work in it.
    if (query.language && !language) return [];
    return language
      ? store.all<UnitRow>(
          `SELECT u.id, u.external_key, u.label, u.path, u.adapter, u.last_synced_at
           FROM unit_counts c JOIN units u ON u.id = c.unit_id
           WHERE c.language = ? AND c.total > c.ok ${state ? `AND ${state}` : ""} AND c.unit_key >= ? AND c.unit_key > ? AND c.unit_key < ?
           ORDER BY c.unit_key LIMIT ?`,
          language,
          range.prefix,
          range.after,
          range.end,
          range.limit,
        )
      : store.all<UnitRow>(
          `SELECT id, external_key, label, path, adapter, last_synced_at FROM units
           WHERE needs_work = 1 AND deleted = 0 AND external_key >= ? AND external_key > ? AND external_key < ?
           ${state ? `AND EXISTS (SELECT 1 FROM unit_counts c WHERE c.unit_id = units.id AND ${state})` : ""}
           ORDER BY external_key LIMIT ?`,
          range.prefix,
          range.after,
          range.end,
          range.limit,
        );
  };
  const page = unitPage(store, settings, query, rows, { work: true, language });
  return {
    units: page.units.map(({ unit: u, counts }) => ({
      external_key: u.external_key,
      label: u.label ?? "",
      path: u.path ?? "",
      adapter: u.adapter,
      last_synced_at: u.last_synced_at,
      dashboard_url: unitUrl(links, u.external_key),
      languages: counts.map((c) => {
        const { ok: _ok, ...work } = languageCounts(c);
        return { ...work, attention_url: c.attention ? attentionUrl(links, u.external_key, c.language) : "" };
      }),
    })),
    next_cursor: page.next_cursor,
  };
}

/** `translations.status` (with its result's acknowledgement) as the result look-up names it; undefined for no translation. */
function translationStatus(status: string, acknowledged: number | null): TranslationStatus | undefined {
  if (status === "review") return acknowledged ? "pending_review" : "machine_translated";
  if (status === "ok") return "approved";
  if (status === "attention") return "needs_attention";
  return undefined;
}

/**
 * GET /v1/units/{key}/status: the segment × language matrix of one unit. `include` adds each
 * segment's source text and its current translations (read in the same two queries, so the
 * cost stays one pass over the unit's segments whatever it holds).
 */
export function unitStatus(store: Store, _settings: SiteSettings, links: Links, externalKey: string, include: ReadonlySet<UnitStatusInclude> = new Set()): UnitStatus {
  const unit = store.one<UnitRow & { deleted: number }>("SELECT id, external_key, label, path, adapter, last_synced_at, deleted FROM units WHERE external_key = ?", externalKey);
  if (!unit || unit.deleted) throw notFound(`Unit ${externalKey}`);
  const counts = store.all<CountRow>("SELECT language, total, ok, stale, review, attention FROM unit_counts WHERE unit_id = ?", unit.id);
  const languages = counts.map((c) => c.language);
  const withResults = include.has("results");
  const cells = store.all<{
    id: number;
    language: string;
    state: string;
    qa: string | null;
    status?: string | null;
    result_id?: number | null;
    text?: string | null;
    origin?: string | null;
    acknowledged?: number | null;
  }>(
    `SELECT s.id, l.value AS language, ${stateSql()} AS state, CASE WHEN t.source_fingerprint = s.fingerprint THEN t.qa END AS qa
       ${withResults ? ", t.status, t.result_id, t.text, t.origin, r.acknowledged" : ""}
     FROM segments s CROSS JOIN json_each(?1) l
     LEFT JOIN translations t ON t.segment_id = s.id AND t.language = l.value
     ${withResults ? "LEFT JOIN results r ON r.id = t.result_id" : ""}
     WHERE s.unit_id = ?2 AND s.removed = 0`,
    JSON.stringify(languages),
    unit.id,
  );
  const segs = store.all<{ id: number; key: string; field: string | null; kind: string | null; parent_key: string | null; position: number; text?: string }>(
    `SELECT id, key, field, kind, parent_key, position ${include.has("text") ? ", text" : ""} FROM segments WHERE unit_id = ? AND removed = 0 ORDER BY position, id`,
    unit.id,
  );
  const bySegment = new Map<number, typeof cells>();
  for (const cell of cells) {
    const list = bySegment.get(cell.id);
    if (list) list.push(cell);
    else bySegment.set(cell.id, [cell]);
  }
  let needingWork = 0;
  const segments = segs.map((s) => {
    const states: Record<string, "ok" | "stale" | "review" | "missing" | "attention"> = {};
    const qa: Record<string, { code: string; severity: "error" | "warning"; message: string }[]> = {};
    const heldBack: string[] = [];
    const results: Record<string, SegmentResult> = {};
    for (const cell of bySegment.get(s.id) ?? []) {
      states[cell.language] = cell.state as "ok";
      const status = withResults && cell.status ? translationStatus(cell.status, cell.acknowledged ?? null) : undefined;
      if (status) results[cell.language] = { id: cell.result_id ? resultId(cell.result_id) : null, text: cell.text ?? "", origin: cell.origin ?? "", status };
      if (cell.qa) {
        const issues = JSON.parse(cell.qa);
        if (issues.length) qa[cell.language] = issues;
      }
      if (cell.state === "attention") heldBack.push(cell.language);
    }
    if (Object.values(states).some((st) => st !== "ok")) needingWork++;
    return {
      key: s.key,
      field: s.field ?? "",
      kind: s.kind ?? "",
      parent_key: s.parent_key ?? "",
      position: s.position,
      states,
      ...(Object.keys(qa).length ? { qa } : {}),
      ...(heldBack.length ? { held_back: heldBack } : {}),
      ...(include.has("text") ? { text: s.text ?? "" } : {}),
      ...(withResults ? { results } : {}),
    };
  });
  return {
    external_key: unit.external_key,
    label: unit.label ?? "",
    path: unit.path ?? "",
    adapter: unit.adapter,
    last_synced_at: unit.last_synced_at,
    segments_total: segs.length,
    segments_needing_work: needingWork,
    languages: counts.map((c) => ({ ...languageCounts(c), attention_url: c.attention ? attentionUrl(links, unit.external_key, c.language) : "" })),
    segments,
    dashboard_url: unitUrl(links, unit.external_key),
  };
}
