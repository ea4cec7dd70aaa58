/**
 * The rows a push creates, written in bulk: a new unit's row (when it imports nothing), its
 * segments and its count rows are held here and written with one statement per table over
 * `jsonb_each` when `flush` is called, instead of one statement per row. In a Durable Object
 * each statement costs a crossing into the runtime and a binding of every value; 5,000 segment
 * rows in one statement measured about a third less than 5,000 single-row INSERTs, and 100
 * units in one INSERT … RETURNING less than 100 of them (bench a; docs/decisions.md
 * "Pushes"). Statements of 50 rows (one per unit) saved nothing, so a batch holds its rows
 * until it ends.
 *
 * Whoever reads what is held must flush first: `applySnapshot` flushes before it looks up a
 * unit it did not read ahead, and before it reads a stored unit's segments or counts; the
 * caller flushes before its transaction ends. A held unit is named by its key until its
 * INSERT gives it an id (`UnitRef`).
 */
import { CHANGE_SEQ } from "../change-seq";
import type { Row, Store } from "../store";
import { jsonValues, SEGMENT_ROW, type SegmentSource, UNIT_ROW } from "./columns";

/**
 * A statement's JSON parameter stays under this many UTF-16 units: at most 3 bytes each in
 * UTF-8, so under 1.5 MB, below the 2 MB a string may have in a Durable Object's SQLite. One
 * row alone is always below that limit (a segment's text of 100,000 characters is at most
 * 600,000 bytes as JSON), so a row longer than the budget is written alone.
 */
const MAX_JSON_UNITS = 500_000;

// The columns of each INSERT and their `value ->> n` come from the push's column lists (src/site/sync/columns.ts).
const INSERT_UNITS = `INSERT INTO units (${UNIT_ROW.insert.names.join(", ")})
  SELECT ${jsonValues(UNIT_ROW.insert.names.length)} FROM jsonb_each(jsonb(?)) RETURNING id, external_key`;
// A new segment carries the site's change sequence (src/site/change-seq.ts): jobs created before it leave it to the next
// one. The same value for every row: the subquery names no column of the row, so SQLite reads it once per statement.
const INSERT_SEGMENTS = `INSERT INTO segments (unit_id, ${SEGMENT_ROW.insert.names.join(", ")}, seq)
  SELECT value ->> 0, ${jsonValues(SEGMENT_ROW.insert.names.length, 1)}, ${CHANGE_SEQ} FROM jsonb_each(jsonb(?))`;
// Most segments carry none of the sparse fields (field, kind, …): their rows end before them, and a
// statement of such rows reads only the others (past a row's end, `->>` reads NULL).
const INSERT_PLAIN_SEGMENTS = `INSERT INTO segments (unit_id, ${SEGMENT_ROW.insert.names.slice(0, SEGMENT_ROW.dense).join(", ")}, seq)
  SELECT value ->> 0, ${jsonValues(SEGMENT_ROW.dense, 1)}, ${CHANGE_SEQ} FROM jsonb_each(jsonb(?))`;
const INSERT_UNIT_COUNTS = `INSERT INTO unit_counts (unit_id, language, unit_key, total, ok, stale, review, attention)
  SELECT value ->> 0, value ->> 1, value ->> 2, value ->> 3, 0, 0, 0, 0 FROM jsonb_each(jsonb(?))`;

/** A unit as rows name it: its id, or the external key of a new unit still held here (its id comes with its INSERT). */
export type UnitRef = number | { held: string };

/**
 * Rows of one statement as JSON, in the order they were added: jsonb_each gives them in that
 * order, so ids are given as row-by-row INSERTs gave them. (`jsonb_each(jsonb(?))`, not
 * `json_each(?)`: each `->>` on a text row parses it again, which for 11 columns cost more than
 * the statements saved.) A row's first value is its unit, written once the unit's id is known.
 */
class Rows {
  private units: (UnitRef | undefined)[] = [];
  /** Each row's JSON without its unit: `,"key","text",…]` (or the whole row when it names no unit). */
  private rest: string[] = [];
  private size = 0;
  /** Whether a row held has values only `statement` reads (else `short` will do). */
  private long = false;

  constructor(
    private readonly store: Store,
    private readonly statement: string,
    private readonly short: string | undefined,
    /** Called before the rows are written: the ids of held units they name must be known. */
    private readonly resolve: (unit: UnitRef) => number,
    /** What the statement returned, each time it ran. */
    private readonly returned?: (rows: Row[]) => void,
  ) {}

  add(unit: UnitRef | undefined, values: unknown[], long = true) {
    this.long ||= long;
    const json = JSON.stringify(values);
    const rest = unit === undefined ? json : json.length > 2 ? `,${json.slice(1)}` : "]";
    if (this.size + rest.length + 24 > MAX_JSON_UNITS) this.flush();
    this.units.push(unit);
    this.rest.push(rest);
    this.size += rest.length + 24;
  }

  get length() {
    return this.rest.length;
  }

  /** Writes the rows held. */
  flush() {
    if (!this.rest.length) return;
    const rows = this.rest.map((rest, i) => {
      const unit = this.units[i];
      return unit === undefined ? rest : `[${this.resolve(unit)}${rest}`;
    });
    const statement = this.long || !this.short ? this.statement : this.short;
    this.units = [];
    this.rest = [];
    this.size = 0;
    this.long = false;
    const json = `[${rows.join(",")}]`;
    if (this.returned) this.returned(this.store.all(statement, json));
    else this.store.run(statement, json);
  }
}

export class PushWrites {
  private readonly units: Rows;
  private readonly segments: Rows;
  private readonly unitCounts: Rows;
  /** Ids of the units this batch created, by external key. */
  private readonly ids = new Map<string, number>();

  constructor(store: Store) {
    this.units = new Rows(
      store,
      INSERT_UNITS,
      undefined,
      () => 0,
      (rows) => {
        for (const row of rows) this.ids.set(row.external_key as string, row.id as number);
      },
    );
    const resolve = (unit: UnitRef) => this.idOf(unit);
    this.segments = new Rows(store, INSERT_SEGMENTS, INSERT_PLAIN_SEGMENTS, resolve);
    this.unitCounts = new Rows(store, INSERT_UNIT_COUNTS, undefined, resolve);
  }

  /**
   * A new unit's row (`UNIT_ROW.insert`'s values), held until the next flush: its id is known
   * from then on (`idOf`). A batch names each unit once before a flush (a key's second push in a
   * batch reads the unit, and flushes first).
   */
  unit(externalKey: string, values: unknown[]): UnitRef {
    this.units.add(undefined, values);
    return { held: externalKey };
  }

  /** A new segment's row, without its sparse values when they are all null. */
  segment(unit: UnitRef, source: SegmentSource) {
    const values = SEGMENT_ROW.insert.values(source);
    let plain = true;
    for (let i = SEGMENT_ROW.dense; i < values.length && plain; i++) plain = values[i] === null;
    if (plain) values.length = SEGMENT_ROW.dense;
    this.segments.add(unit, values, !plain);
  }

  /** A new unit's count row in `language`: `total` segments, all missing. */
  newUnitCount(unit: UnitRef, language: string, unitKey: string, total: number) {
    this.unitCounts.add(unit, [language, unitKey, total]);
  }

  /** A unit's id; a held unit's only once flushed. */
  idOf(unit: UnitRef): number {
    if (typeof unit === "number") return unit;
    if (this.units.length) this.units.flush();
    const id = this.ids.get(unit.held);
    if (id === undefined) throw new Error(`unit ${unit.held} was not written`);
    return id;
  }

  /** Writes everything held, units first (the other rows name them), in the order it was added. */
  flush() {
    this.units.flush();
    this.segments.flush();
    this.unitCounts.flush();
  }
}
