/**
 * The rows a push creates, written in bulk: new segments and a new unit's count rows are held
 * here and written with one statement per kind over `json_each` when `flush` is called, instead
 * of one statement per row. In a Durable Object each statement costs a crossing into the
 * runtime and a binding of every value; 5,000 segment rows in one statement measured about a
 * third less than 5,000 single-row INSERTs (bench a, docs/scaling.md "Bench a, fourth pass"),
 * while statements of 50 rows (one per unit) saved nothing, so a batch holds its rows until it
 * ends.
 *
 * Whoever reads what is held must flush first: `applySnapshot` flushes before it reads a stored
 * unit's segments or counts, and the caller flushes before its transaction ends.
 */
import type { Store } from "./store";

/**
 * A statement's JSON parameter stays under this many UTF-16 units: at most 3 bytes each in
 * UTF-8, so under 1.5 MB, below the 2 MB a string may have in a Durable Object's SQLite. One
 * row alone is always below that limit (a segment's text of 100,000 characters is at most
 * 600,000 bytes as JSON), so a row longer than the budget is written alone.
 */
const MAX_JSON_UNITS = 500_000;

const INSERT_SEGMENTS = `INSERT INTO segments (unit_id, key, text, fingerprint, characters, format, field, kind, max_length, position, parent_key)
  SELECT value ->> 0, value ->> 1, value ->> 2, value ->> 3, value ->> 4, value ->> 5, value ->> 6, value ->> 7, value ->> 8, value ->> 9, value ->> 10
  FROM jsonb_each(jsonb(?))`;
const INSERT_UNIT_COUNTS = `INSERT INTO unit_counts (unit_id, language, unit_key, total, ok, stale, review, attention)
  SELECT value ->> 0, value ->> 1, value ->> 2, value ->> 3, 0, 0, 0, 0 FROM jsonb_each(jsonb(?))`;

/** One new segment as `segments` stores it. */
export interface NewSegment {
  key: string;
  text: string;
  format: string;
  field?: string | null;
  kind?: string | null;
  max_length?: number | null;
  parent_key?: string | null;
}

/**
 * Rows of one statement as JSON arrays, in the order they were added: jsonb_each gives them in
 * that order, so ids are given as row-by-row INSERTs gave them. (`jsonb_each(jsonb(?))`, not
 * `json_each(?)`: each `->>` on a text row parses it again, which for 11 columns cost more than
 * the statements saved.)
 */
class Rows {
  private rows: string[] = [];
  private units = 0;

  constructor(
    private readonly store: Store,
    private readonly statement: string,
  ) {}

  add(row: unknown[]) {
    const json = JSON.stringify(row);
    if (this.units + json.length + 1 > MAX_JSON_UNITS) this.flush();
    this.rows.push(json);
    this.units += json.length + 1;
  }

  flush() {
    if (!this.rows.length) return;
    const json = `[${this.rows.join(",")}]`;
    this.rows = [];
    this.units = 0;
    this.store.run(this.statement, json);
  }
}

export class PushWrites {
  private readonly segments: Rows;
  private readonly unitCounts: Rows;

  constructor(store: Store) {
    this.segments = new Rows(store, INSERT_SEGMENTS);
    this.unitCounts = new Rows(store, INSERT_UNIT_COUNTS);
  }

  segment(unitId: number, seg: NewSegment, position: number, fingerprint: string, characters: number) {
    this.segments.add([
      unitId,
      seg.key,
      seg.text,
      fingerprint,
      characters,
      seg.format,
      seg.field ?? null,
      seg.kind ?? null,
      seg.max_length ?? null,
      position,
      seg.parent_key ?? null,
    ]);
  }

  /** A new unit's count row in `language`: `total` segments, all missing. */
  newUnitCount(unitId: number, language: string, unitKey: string, total: number) {
    this.unitCounts.add([unitId, language, unitKey, total]);
  }

  /** Writes everything held, in the order it was added. */
  flush() {
    this.segments.flush();
    this.unitCounts.flush();
  }
}
