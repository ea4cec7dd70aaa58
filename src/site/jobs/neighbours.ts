/**
 * The unit context a slice gives engines (engines/types.ts, SegmentContext): each item's unit
 * label and path and the source texts of its neighbouring segments, read for the slice's units
 * not read yet and kept for the job's other languages (UnitContexts).
 */
import type { SegmentContext } from "../../engines/types";
import type { ScopeMark, Store } from "../store";

/** Neighbouring segments given on each side of a text. */
export const NEIGHBOURS = 2;
/** Characters (code points) kept of each neighbour, of a label and of a path. */
export const NEIGHBOUR_CHARACTERS = 200;

/** What an item needs for its context: its segment and unit. */
export interface ContextItem {
  segment_id: number;
  unit_id: number;
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

/** A unit's part of the context: its label and path, cut, and its live segments' texts as neighbours, in order. */
interface UnitContext {
  label?: string;
  path?: string;
  texts: string[];
  /** Each live segment's place in `texts`, by segment id. */
  place: Map<number, number>;
}

/** Neighbour texts UnitContexts keeps at most (each of at most NEIGHBOUR_CHARACTERS code points): a few MB. */
export const KEPT_TEXTS = 20_000;

/**
 * The units' contexts a job's slices give engines. A job's languages take the same units in turn,
 * so each unit is read once (its label, path and live segments, with texts already cut in SQL so
 * long texts are not copied out whole) and kept for the other languages' slices, until anything
 * but the runner's own commits writes a scope table (Store.othersMark: a push may change a text,
 * a label, a position), which drops what was kept. At most KEPT_TEXTS texts are kept, the units
 * read first going first.
 */
export class UnitContexts {
  private readonly units = new Map<number, UnitContext>();
  private texts = 0;
  private mark?: ScopeMark;

  constructor(
    private readonly store: Store,
    /** Neighbour texts kept at most (a test seam: KEPT_TEXTS). */
    private readonly keep = KEPT_TEXTS,
  ) {}

  /** Each item's context, by segment id. */
  of(items: readonly ContextItem[]): Map<number, SegmentContext> {
    const contexts = new Map<number, SegmentContext>();
    if (!items.length) return contexts;
    if (!this.store.othersUnchangedSince(this.mark)) {
      this.units.clear();
      this.texts = 0;
      this.mark = this.store.othersMark();
    }
    this.read([...new Set(items.map((i) => i.unit_id))].filter((id) => !this.units.has(id)));
    for (const item of items) {
      const unit = this.units.get(item.unit_id);
      const context: SegmentContext = {};
      if (unit?.label) context.label = unit.label;
      if (unit?.path) context.path = unit.path;
      const at = unit?.place.get(item.segment_id);
      if (unit && at !== undefined) {
        const before = unit.texts.slice(Math.max(0, at - NEIGHBOURS), at).filter(Boolean);
        const after = unit.texts.slice(at + 1, at + 1 + NEIGHBOURS).filter(Boolean);
        if (before.length) context.before = before;
        if (after.length) context.after = after;
      }
      contexts.set(item.segment_id, context);
    }
    return contexts;
  }

  /**
   * Reads the units (a unit has at most 5,000 segments; positions may have gaps, so neighbours are
   * the nearest live segments by position, not position ± k): one query for their labels and
   * paths, one for their live segments.
   */
  private read(unitIds: number[]) {
    if (!unitIds.length) return;
    const ids = JSON.stringify(unitIds);
    for (const u of this.store.all<{ id: number; label: string | null; path: string | null }>(
      "SELECT id, label, path FROM units WHERE id IN (SELECT value FROM json_each(?1))",
      ids,
    )) {
      const unit: UnitContext = { texts: [], place: new Map() };
      if (u.label) unit.label = cut(u.label, NEIGHBOUR_CHARACTERS);
      if (u.path) unit.path = cut(u.path, NEIGHBOUR_CHARACTERS);
      this.units.set(u.id, unit);
    }
    const rows = this.store.all<{ id: number; unit_id: number; text: string }>(
      `SELECT id, unit_id, substr(text, 1, ?2) AS text FROM segments
       WHERE unit_id IN (SELECT value FROM json_each(?1)) AND removed = 0
       ORDER BY unit_id, position, id`,
      ids,
      // Room for markup that neighbourText() strips.
      NEIGHBOUR_CHARACTERS * 4,
    );
    for (const row of rows) {
      const unit = this.units.get(row.unit_id);
      if (!unit) continue;
      unit.place.set(row.id, unit.texts.length);
      unit.texts.push(neighbourText(row.text));
      this.texts++;
    }
    // Over the bound: the units kept longest go first (a Map iterates in insertion order), never those just read.
    const fresh = new Set(unitIds);
    for (const [id, unit] of this.units) {
      if (this.texts <= this.keep) break;
      if (fresh.has(id)) continue;
      this.units.delete(id);
      this.texts -= unit.texts.length;
    }
  }
}
