/**
 * The unit context a slice gives engines (engines/types.ts, SegmentContext): each item's unit
 * label and path and the source texts of its neighbouring segments, read for the whole slice
 * in one query.
 */
import type { SegmentContext } from "../engines/types";
import type { Store } from "./store";

/** Neighbouring segments given on each side of a text. */
export const NEIGHBOURS = 2;
/** Characters (code points) kept of each neighbour, of a label and of a path. */
export const NEIGHBOUR_CHARACTERS = 200;

/** What the slice's load query brings for an item's context. */
export interface ContextItem {
  segment_id: number;
  unit_id: number;
  label: string | null;
  path: string | null;
}

/**
 * Markup says nothing a translator needs from a neighbour, and costs tokens: tags go, runs of
 * whitespace become one space, and the text is cut to NEIGHBOUR_CHARACTERS code points.
 */
export function neighbourText(text: string): string {
  let flat = text.includes("<") ? text.replace(TAG, " ") : text;
  // Most texts have neither a run of whitespace nor any but single spaces inside: left as they are (a slice cleans thousands).
  if (UNTIDY.test(flat)) flat = flat.replace(/\s+/g, " ").trim();
  return cut(flat, NEIGHBOUR_CHARACTERS);
}
const TAG = /<[^<>]{0,500}>/g;
/** Whitespace that `\s+` → " " and trim() would change: a run, any whitespace but a space, at either end. */
const UNTIDY = /\s\s|[^\S ]|^\s|\s$/;

/** At most `n` code points of `text`, "…" marking a cut. */
export function cut(text: string, n: number): string {
  if (text.length <= n) return text;
  const points = Array.from(text);
  return points.length <= n ? text : `${points.slice(0, n - 1).join("")}…`;
}

/**
 * Each item's context, by segment id. One query reads the live segments of the slice's units
 * (a unit has at most 5,000; positions may have gaps, so neighbours are the nearest live
 * segments by position, not position ± k), with texts already cut in SQL so long texts are not
 * copied out whole.
 */
export function unitContexts(store: Store, items: readonly ContextItem[]): Map<number, SegmentContext> {
  const contexts = new Map<number, SegmentContext>();
  if (!items.length) return contexts;
  const units = [...new Set(items.map((i) => i.unit_id))];
  const rows = store.all<{ id: number; unit_id: number; text: string }>(
    `SELECT id, unit_id, substr(text, 1, ?2) AS text FROM segments
     WHERE unit_id IN (SELECT value FROM json_each(?1)) AND removed = 0
     ORDER BY unit_id, position, id`,
    JSON.stringify(units),
    // Room for markup that neighbourText() strips.
    NEIGHBOUR_CHARACTERS * 4,
  );
  /** Per unit, its live segments' texts as neighbours (cleaned once each) in order; per segment id, its place there. */
  const byUnit = new Map<number, string[]>();
  const place = new Map<number, number>();
  for (const row of rows) {
    let list = byUnit.get(row.unit_id);
    if (!list) byUnit.set(row.unit_id, (list = []));
    place.set(row.id, list.length);
    list.push(neighbourText(row.text));
  }
  for (const item of items) {
    const list = byUnit.get(item.unit_id) ?? [];
    const at = place.get(item.segment_id);
    const context: SegmentContext = {};
    if (item.label) context.label = cut(item.label, NEIGHBOUR_CHARACTERS);
    if (item.path) context.path = cut(item.path, NEIGHBOUR_CHARACTERS);
    if (at !== undefined) {
      const before = list.slice(Math.max(0, at - NEIGHBOURS), at).filter(Boolean);
      const after = list.slice(at + 1, at + 1 + NEIGHBOURS).filter(Boolean);
      if (before.length) context.before = before;
      if (after.length) context.after = after;
    }
    contexts.set(item.segment_id, context);
  }
  return contexts;
}
