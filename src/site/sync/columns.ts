/**
 * The columns a push writes, one list per table: each column of `units` and `segments` (as
 * src/site/schema.ts names it) with how its value is read from the snapshot. The push's INSERTs
 * (one row with `VALUES`, or many over `jsonb_each`: src/site/sync/push-writes.ts), its UPDATEs
 * (src/site/sync/sync.ts), the values they bind and the segments a push reads back and compares
 * are all built from these lists, so a new unit or segment field is its column in
 * src/site/schema.ts, its migration, one entry here and its zod field in src/api/schemas.ts (a
 * segment field also its line in `sameSegment` below, which the test holds to the list, and its
 * fast check in src/api/batch-unit.ts, which the compiler asks for).
 *
 * Typed against the drizzle tables: a column of the table that is neither in its list nor in its
 * `…_WRITTEN_ELSEWHERE` (with the reason) is a compile error, and so is an entry whose value has
 * another type than its column (test/site/push-columns.test.ts checks the same at run time).
 * Statements name the columns in the table's order (a bulk INSERT its sparse ones last), wherever
 * an entry stands in its list.
 */
import { getTableColumns, type Table } from "drizzle-orm";
import type { SegmentInput, UnitSnapshot } from "../../api/schemas";
import { segments, units } from "../schema";

/** One column a push writes: how its value is read, and whether only its INSERT writes it. */
interface Column<Source, Value> {
  read: (source: Source) => Value;
  /** Written when the row is created, never changed by a later push (its identity, or what another step maintains). */
  insertOnly?: boolean;
  /**
   * Null for most rows: rows whose sparse values are all null end before them (past a row's
   * end, `->>` reads NULL), and their statement reads only the others.
   */
  sparse?: boolean;
}

/** Every column of a table (its drizzle `$inferInsert` row) but those written elsewhere, each with a value of its column's type (null where the column takes it, never undefined). */
type ColumnsOf<Row, Source, Elsewhere extends keyof Row> = {
  [K in Exclude<keyof Row, Elsewhere>]-?: Column<Source, Exclude<Row[K], undefined>>;
};
type UnitRow = typeof units.$inferInsert;
type SegmentRow = typeof segments.$inferInsert;

/** What a unit's row is written from: the snapshot and what the push derived from it. */
export interface UnitSource {
  snapshot: UnitSnapshot;
  /** The writable languages as stored (JSON), or null. */
  writable: string | null;
  now: string;
  /** The snapshot's digest, or null when it imports translations (see applySnapshot). */
  digest: string | null;
  /** The push's fingerprint_mismatches, as JSON. */
  mismatches: string;
  /** A new unit's counts (src/site/sync/counts.ts newUnitCounts); a unit whose counts are refreshed after is written with zeros. */
  counts: { segments: number; needsWork: number; counted: number };
}

/** The columns of `units` a push does not write from its list, and why (each is still in the table: the test and the types check both lists cover it). */
export const UNIT_WRITTEN_ELSEWHERE = {
  id: "SQLite gives it",
  deleted: "a push restores a deleted unit: its UPDATE writes deleted = 0",
  deletedAt: "written by the deletion; retention reads it only while deleted = 1",
  seq: "stamped with the site's change sequence by the UPDATE itself, as an SQL expression (src/site/change-seq.ts)",
} as const satisfies Partial<Record<keyof UnitRow, string>>;

export const UNIT_COLUMNS = {
  externalKey: { read: (u) => u.snapshot.external_key, insertOnly: true },
  adapter: { read: (u) => u.snapshot.adapter },
  label: { read: (u) => u.snapshot.label ?? null },
  path: { read: (u) => u.snapshot.path ?? null },
  sourceLanguage: { read: (u) => u.snapshot.source_language ?? null },
  writableLanguages: { read: (u) => u.writable },
  metadata: { read: (u) => (u.snapshot.metadata ? JSON.stringify(u.snapshot.metadata) : null) },
  lastSyncedAt: { read: (u) => u.now },
  snapshotDigest: { read: (u) => u.digest },
  snapshotMismatches: { read: (u) => u.mismatches },
  // The counts' columns (src/site/sync/counts.ts maintains them after).
  segmentCount: { read: (u) => u.counts.segments, insertOnly: true },
  needsWork: { read: (u) => u.counts.needsWork, insertOnly: true },
  counted: { read: (u) => u.counts.counted, insertOnly: true },
} satisfies ColumnsOf<UnitRow, UnitSource, keyof typeof UNIT_WRITTEN_ELSEWHERE>;

/** What a segment's row is written from: the snapshot's segment and what the push derived from it. */
export interface SegmentSource {
  segment: SegmentInput;
  /** Its position (its index when the snapshot gives none). */
  position: number;
  fingerprint: string;
  characters: number;
}

/** The columns of `segments` a push does not write from its list, and why. */
export const SEGMENT_WRITTEN_ELSEWHERE = {
  id: "SQLite gives it",
  unitId: "the row's unit: the INSERT's first value, known once the unit's own row is written (src/site/sync/push-writes.ts)",
  removed: "a push marks absent keys removed, and its UPDATE brings one back: removed = 0",
  seq: "stamped with the site's change sequence by the statements themselves, as an SQL expression (src/site/change-seq.ts)",
} as const satisfies Partial<Record<keyof SegmentRow, string>>;

export const SEGMENT_COLUMNS = {
  key: { read: (s) => s.segment.key, insertOnly: true },
  text: { read: (s) => s.segment.text },
  fingerprint: { read: (s) => s.fingerprint },
  characters: { read: (s) => s.characters },
  format: { read: (s) => s.segment.format },
  position: { read: (s) => s.position },
  field: { read: (s) => s.segment.field ?? null, sparse: true },
  kind: { read: (s) => s.segment.kind ?? null, sparse: true },
  maxLength: { read: (s) => s.segment.max_length ?? null, sparse: true },
  parentKey: { read: (s) => s.segment.parent_key ?? null, sparse: true },
} satisfies ColumnsOf<SegmentRow, SegmentSource, keyof typeof SEGMENT_WRITTEN_ELSEWHERE>;

type SegmentTable = (typeof segments)["_"]["columns"];
/**
 * A segment as a push reads it back (`SEGMENT_ROW.selected("id", "removed")`): each column by its
 * SQL name with its type in src/site/schema.ts, but the two it does not read.
 */
export type StoredSegment = Omit<{ [K in keyof SegmentTable as SegmentTable[K]["_"]["name"]]: (typeof segments)["$inferSelect"][K] }, "unit_id" | "seq">;

/**
 * Whether a stored segment holds what the snapshot's segment gives in every column an UPDATE
 * sets; the push writes it again when not. Written out column by column, with the segment's
 * values as arguments, as the push compared before the lists: every stored segment of a unit is
 * compared, and versions that looped over SEGMENT_COLUMNS or took an object per segment measured
 * about 24 ms instead of 14 in some runs of bench b (object side, 5,000 segments). A column of
 * SEGMENT_ROW.update compared here not as SEGMENT_COLUMNS reads it, or not at all, fails
 * test/site/push-columns.test.ts.
 */
export function sameSegment(stored: StoredSegment, s: SegmentInput, position: number, fingerprint: string, characters: number): boolean {
  return (
    stored.text === s.text &&
    stored.fingerprint === fingerprint &&
    stored.characters === characters &&
    stored.format === s.format &&
    stored.field === (s.field ?? null) &&
    stored.kind === (s.kind ?? null) &&
    stored.max_length === (s.max_length ?? null) &&
    stored.position === position &&
    stored.parent_key === (s.parent_key ?? null)
  );
}

/** The pieces of a table's statements, built once from its list, each in the table's column order. */
export interface Written<Source> {
  /** The columns a row is inserted with, sparse ones last: their SQL names, and the values in that order. */
  insert: { names: string[]; values(source: Source): unknown[] };
  /** How many of `insert`'s columns come before the sparse ones. */
  dense: number;
  /** The columns an UPDATE sets (not the insert-only ones): their SQL names, `a = ?, b = ?`, and the values in that order. */
  update: { names: string[]; set: string; values(source: Source): unknown[] };
  /**
   * The list's columns and `extra` (SQL names), in the table's order, for a SELECT that reads a
   * row back: the segments' SELECT is then the one the push ran before the lists.
   */
  selected(...extra: string[]): string;
}

function written<Source>(table: Table, columns: Record<string, Column<Source, unknown>>): Written<Source> {
  const inTable = Object.entries(getTableColumns(table));
  const all = inTable.filter(([property]) => Object.hasOwn(columns, property)).map(([property, column]) => ({ name: column.name, ...columns[property] }));
  const ordered = [...all.filter((c) => !c.sparse), ...all.filter((c) => c.sparse)];
  const updated = all.filter((c) => !c.insertOnly);
  const reads = (list: typeof all) => {
    const read = list.map((c) => c.read);
    return (source: Source) => read.map((r) => r(source));
  };
  const names = updated.map((c) => c.name);
  return {
    insert: { names: ordered.map((c) => c.name), values: reads(ordered) },
    dense: ordered.filter((c) => !c.sparse).length,
    update: { names, set: names.map((name) => `${name} = ?`).join(", "), values: reads(updated) },
    selected: (...extra) =>
      inTable
        .map(([, column]) => column.name)
        .filter((name) => extra.includes(name) || all.some((c) => c.name === name))
        .join(", "),
  };
}

export const UNIT_ROW = written<UnitSource>(units, UNIT_COLUMNS);
export const SEGMENT_ROW = written<SegmentSource>(segments, SEGMENT_COLUMNS);

/** `value ->> from, …` for `count` values of a `jsonb_each` row: the extraction of a bulk INSERT's columns. */
export const jsonValues = (count: number, from = 0) => Array.from({ length: count }, (_, i) => `value ->> ${from + i}`).join(", ");
