// The push's column lists (src/site/sync/columns.ts): every column of `units` and `segments` is in
// its table's list or named as written elsewhere, so a column forgotten there fails here (and in
// the typecheck); and what a push stores in each listed column is what the list reads from the
// snapshot, through each statement built from the lists: the bulk INSERTs of new rows, the
// single INSERT of a unit that imports translations, and the UPDATEs of a second push.
import { runInDurableObject } from "cloudflare:test";
import { getTableColumns, type Table } from "drizzle-orm";
import { describe, expect, it, vi } from "vitest";
import { UnitSnapshotIn } from "../../src/api/schemas";
import type { SiteSettings } from "../../src/control/sites.control";
import { characters, fingerprint } from "../../src/site/fingerprint";
import type { SiteObject } from "../../src/site/object";
import { segments, units } from "../../src/site/schema";
import {
  SEGMENT_COLUMNS,
  SEGMENT_ROW,
  SEGMENT_WRITTEN_ELSEWHERE,
  type SegmentSource,
  sameSegment,
  UNIT_COLUMNS,
  UNIT_ROW,
  UNIT_WRITTEN_ELSEWHERE,
  type UnitSource,
} from "../../src/site/sync/columns";
import { createSite, unit } from "../helpers/api";
import { stubOf } from "../helpers/site";

const sqlNames = (table: Table) => new Map(Object.entries(getTableColumns(table)).map(([property, column]) => [property, column.name]));

describe("the push's column lists", () => {
  it("name every column of units and segments once: in the list, or written elsewhere with its reason", () => {
    for (const [table, list, elsewhere] of [
      [units, UNIT_COLUMNS, UNIT_WRITTEN_ELSEWHERE],
      [segments, SEGMENT_COLUMNS, SEGMENT_WRITTEN_ELSEWHERE],
    ] as const) {
      const named = [...Object.keys(list), ...Object.keys(elsewhere)];
      expect(named.toSorted()).toEqual([...sqlNames(table).keys()].toSorted());
      for (const reason of Object.values(elsewhere)) expect(reason.length).toBeGreaterThan(10);
    }
    // The statements name the list's columns by their SQL names, sparse ones last, and an UPDATE never changes a row's identity.
    // In the table's order wherever an entry stands in its list: the order rows are read back in cost time (columns.ts `selected`).
    expect(UNIT_ROW.insert.names).toEqual([...sqlNames(units)].filter(([p]) => p in UNIT_COLUMNS).map(([, name]) => name));
    expect(SEGMENT_ROW.selected("id", "removed")).toBe("id, key, text, fingerprint, characters, format, field, kind, max_length, position, parent_key, removed");
    expect(UNIT_ROW.update.names).not.toContain("external_key");
    expect(SEGMENT_ROW.insert.names.slice(SEGMENT_ROW.dense)).toEqual(["field", "kind", "max_length", "parent_key"]);
    expect(SEGMENT_ROW.update.names).not.toContain("key");
    expect(SEGMENT_ROW.update.set).toBe(SEGMENT_ROW.update.names.map((n) => `${n} = ?`).join(", "));
  });
});

describe("sameSegment", () => {
  it("compares every column an UPDATE sets, as SEGMENT_COLUMNS reads it", () => {
    const sources: SegmentSource[] = [
      { segment: { key: "a", text: "Plain.", format: "plain" }, position: 0, fingerprint: fingerprint("Plain."), characters: 6 },
      {
        segment: { key: "b", text: "<p>All</p>", format: "html", field: "content", kind: "paragraph", max_length: 70, position: 9, parent_key: "block-1" },
        position: 9,
        fingerprint: fingerprint("<p>All</p>"),
        characters: 10,
      },
    ];
    for (const source of sources) {
      const values = SEGMENT_ROW.update.values(source);
      const stored = Object.fromEntries(SEGMENT_ROW.update.names.map((name, i) => [name, values[i]]));
      const same = (row: Record<string, unknown>) => sameSegment(row as Parameters<typeof sameSegment>[0], source.segment, source.position, source.fingerprint, source.characters);
      expect(same(stored)).toBe(true);
      for (const name of SEGMENT_ROW.update.names) expect(same({ ...stored, [name]: "another value" }), name).toBe(false);
    }
  });
});

const NOW = "2026-03-04T05:06:07.000Z";

/** Pushes `batch` as one batch in the site's object at NOW; answers the stored units and segments by key. */
async function push(siteId: number, batch: ReturnType<typeof unit>[]) {
  const parsed = batch.map((u) => UnitSnapshotIn.parse(u));
  return runInDurableObject(stubOf(siteId), async (o: SiteObject) => {
    const settings = o.store.getMeta<SiteSettings>("settings")!;
    const now = vi.spyOn(o.store, "now").mockReturnValue(NOW);
    const logged = vi.spyOn(console, "error");
    try {
      const results = await o.pushBatch(settings, { units: parsed, digests: parsed.map((u) => `digest-of-${u.external_key}`) });
      expect(results.every((r) => r.ok)).toBe(true);
      expect(logged).not.toHaveBeenCalled();
    } finally {
      now.mockRestore();
      logged.mockRestore();
    }
    const unitRows = new Map(o.store.all<Record<string, unknown>>("SELECT * FROM units").map((r) => [r.external_key as string, r]));
    const segmentRows = o.store.all<Record<string, unknown>>("SELECT s.*, u.external_key AS unit_key FROM segments s JOIN units u ON u.id = s.unit_id");
    return { parsed, unitRows, segmentRows };
  });
}

/** Every stored row holds, in each listed column, what the list reads from the snapshot it was pushed with. */
function expectWrittenAsListed({ parsed, unitRows, segmentRows }: Awaited<ReturnType<typeof push>>) {
  const unitNames = sqlNames(units);
  const segmentNames = sqlNames(segments);
  for (const snapshot of parsed) {
    const row = unitRows.get(snapshot.external_key)!;
    const imports = snapshot.segments.some((s) => s.translations);
    const source: UnitSource = {
      snapshot,
      writable: snapshot.writable_languages ? JSON.stringify(snapshot.writable_languages) : null,
      now: NOW,
      digest: imports ? null : `digest-of-${snapshot.external_key}`,
      mismatches: JSON.stringify(snapshot.segments.filter((s) => s.fingerprint && s.fingerprint !== fingerprint(s.text)).map((s) => s.key)),
      counts: { segments: 0, needsWork: 0, counted: 0 },
    };
    // The counts' columns are maintained by src/site/sync/counts.ts once written (test/site/counts.test.ts).
    for (const [property, column] of Object.entries(UNIT_COLUMNS))
      if (!["segmentCount", "needsWork", "counted"].includes(property)) expect(row[unitNames.get(property)!], `units.${property}`).toEqual(column.read(source));
    snapshot.segments.forEach((segment, i) => {
      const stored = segmentRows.find((r) => r.unit_key === snapshot.external_key && r.key === segment.key)!;
      const source: SegmentSource = { segment, position: segment.position ?? i, fingerprint: fingerprint(segment.text), characters: characters(segment.text) };
      for (const [property, column] of Object.entries(SEGMENT_COLUMNS))
        expect(stored[segmentNames.get(property)!], `segments.${property} of ${segment.key}`).toEqual(column.read(source));
    });
  }
}

describe("what a push stores", () => {
  it("is each listed column's value, through the bulk INSERTs, the INSERT of a unit that imports, and the UPDATEs", async () => {
    const site = await createSite();
    // Distinct values everywhere, so that two columns swapped cannot store the same thing.
    const first = [
      unit(
        "post:1",
        [
          { key: "plain", text: "A plain paragraph." },
          { key: "full", text: "Every field given", format: "html", field: "content", kind: "paragraph", max_length: 70, position: 9, parent_key: "block-1" },
          { key: "mismatch", text: "Wrong fingerprint", fingerprint: "0".repeat(64), kind: "title" },
        ],
        { source_language: "en-GB", writable_languages: ["de"], metadata: { tags: ["a"], n: 1.5 } },
      ),
      unit("page:2", [{ key: "only", text: "Only a key and a text." }], { label: null, path: null }),
      // Imports translations: its row is written by the single INSERT (its counts are read after).
      unit("post:3", [{ key: "t", text: "Translated already.", field: "title", translations: { de: "Schon übersetzt." } }], { metadata: { imported: true } }),
    ];
    const pushed = await push(site.siteId, first);
    expect(pushed.segmentRows).toHaveLength(5);
    expectWrittenAsListed(pushed);

    // Every field changed: the UPDATEs of the units and of their segments, and a new segment of a stored unit.
    const second = [
      unit(
        "post:1",
        [
          { key: "plain", text: "A plain paragraph, edited.", format: "markdown", field: "body", kind: "intro", max_length: 300, position: 4, parent_key: "block-2" },
          { key: "full", text: "Every field given", position: 2 },
          { key: "added", text: "Added on the second push.", kind: "caption" },
        ],
        { label: "Post one", path: "/one", source_language: "fr", writable_languages: ["fr"], metadata: { edited: "yes" } },
      ),
      unit("page:2", [{ key: "only", text: "Only a key and a text." }], { label: "Page two", path: "/two", adapter: "strapi" }),
      unit("post:3", [{ key: "t", text: "Translated already.", field: "heading" }], { metadata: { imported: false } }),
    ];
    const again = await push(site.siteId, second);
    expectWrittenAsListed(again);
    expect(again.segmentRows.filter((r) => r.removed === 0)).toHaveLength(5);
  });
});
