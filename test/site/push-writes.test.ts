// New segments are written in bulk, one statement over jsonb_each per batch (src/site/sync/push-writes.ts).
// What lands must be exactly what row-by-row INSERTs stored: every field, every character, ids in
// the order sent; a batch too large for one statement's parameter goes in several; and a unit
// pushed twice in one batch sees its first push's segments (and its row: units are read for the
// whole batch at once only when their key occurs once).
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import { UnitSnapshotIn } from "../../src/api/schemas";
import type { SiteSettings } from "../../src/control/sites.control";
import { characters, fingerprint } from "../../src/site/fingerprint";
import type { SiteObject } from "../../src/site/object";
import { siteTargets } from "../../src/site/settings";
import { rebuildCounts } from "../../src/site/sync/counts";
import type { StoredSegment } from "../../src/site/sync/sync";
import { createSite, unit } from "../helpers/api";
import { stubOf } from "../helpers/site";

/** A stored segment with its unit's key. */
type StoredRow = StoredSegment & { unit_key: string };

const storedRows = (o: SiteObject) =>
  o.store.all<StoredRow>(
    `SELECT s.id, u.external_key AS unit_key, s.key, s.text, s.fingerprint, s.characters, s.format, s.field, s.kind, s.max_length, s.position, s.parent_key, s.removed
     FROM segments s JOIN units u ON u.id = s.unit_id ORDER BY s.id`,
  );

const counts = (o: SiteObject) => ({
  site: o.store.all("SELECT * FROM site_counts ORDER BY language"),
  prefix: o.store.all("SELECT * FROM prefix_counts ORDER BY prefix, language"),
  units: o.store.all("SELECT * FROM unit_counts ORDER BY unit_id, language"),
  rows: o.store.all("SELECT external_key, segment_count, needs_work, counted FROM units ORDER BY id"),
});

/** Pushes `units` as one batch inside the object; answers the results, the stored rows and the segment INSERTs' JSON parameters. */
async function pushBatch(siteId: number, units: ReturnType<typeof unit>[]) {
  const parsed = units.map((u) => UnitSnapshotIn.parse(u));
  return runInDurableObject(stubOf(siteId), async (o: SiteObject) => {
    const settings = o.store.getMeta<SiteSettings>("settings")!;
    const run = o.store.run.bind(o.store);
    const params: string[] = [];
    const spy = vi.spyOn(o.store, "run").mockImplementation((query: string, ...args: unknown[]) => {
      if (query.startsWith("INSERT INTO segments")) params.push(String(args[0]));
      return run(query, ...args);
    });
    // A batch that fails is applied again unit by unit (and says so): these must not fail.
    const logged = vi.spyOn(console, "error");
    try {
      const results = await o.pushBatch(settings, { units: parsed, digests: parsed.map((_, i) => `digest-${i}`) });
      expect(logged).not.toHaveBeenCalled();
      // The maintained counts are exactly what a rebuild from the rows gives.
      const maintained = counts(o);
      o.store.tx(() => rebuildCounts(o.store, siteTargets(settings)));
      expect(counts(o)).toEqual(maintained);
      const units = o.store.all(
        `SELECT external_key, adapter, label, path, source_language, writable_languages, metadata, snapshot_digest, snapshot_mismatches, segment_count,
           needs_work, counted, deleted FROM units ORDER BY id`,
      );
      return { results, rows: storedRows(o), params, units };
    } finally {
      spy.mockRestore();
      logged.mockRestore();
    }
  });
}

// Texts whose JSON differs from the text: escapes, control characters, astral and combining characters, CRLF.
const TRICKY = [
  'Quotes " and \\ backslashes \\" and a slash /',
  "Tab\there, new\nline, CRLF\r\nand a bell \u0007 and \u001f",
  "Emoji 👋🏽 and 𝄞, CJK 漢字, Arabic مرحبا",
  "Combining e\u0301 (not NFC) and precomposed é",
  "Line separator \u2028 and paragraph \u2029, BOM \ufeff",
  "<p>Markup &amp; entities</p>",
  "   leading and trailing spaces   ",
];

describe("new segments written in bulk", () => {
  it("stores every field and character exactly, with ids in the order sent", async () => {
    const site = await createSite();
    type Sent = {
      key: string;
      text: string;
      format?: string;
      field?: string | null;
      kind?: string | null;
      max_length?: number | null;
      position?: number | null;
      parent_key?: string | null;
    };
    const segments: Sent[] = [
      ...TRICKY.map((text, i) => ({ key: `t${i}`, text })),
      { key: "full", text: "All the optional fields", format: "html", field: "content", kind: "paragraph", max_length: 40, position: 99, parent_key: "block-1" },
      { key: "nulls", text: "Optional fields given as null", field: null, kind: null, max_length: null, position: null, parent_key: null },
      { key: 'ключ 🔑 "quoted"', text: "A key that needs escaping" },
      // Strings that read as numbers stay strings: "007" keeps its zeros.
      { key: "007", text: "42" },
    ];
    const extra = { source_language: "en-GB", writable_languages: ["de"], metadata: { tags: ["a", 'quote " and \\ backslash'], n: 1.5, nested: { ok: true, none: null } } };
    const { results, rows, units } = await pushBatch(site.siteId, [unit("post:1", segments, extra), unit("page:2", [{ key: "a", text: TRICKY[2] }], { label: TRICKY[0] })]);

    expect(results.map((r) => [r.external_key, r.ok, r.result?.added])).toEqual([
      ["post:1", true, segments.length],
      ["page:2", true, 1],
    ]);
    const expected = [
      ...segments.map((s, i) => ({
        unit_key: "post:1",
        key: s.key,
        text: s.text,
        fingerprint: fingerprint(s.text),
        characters: characters(s.text),
        format: s.format ?? "plain",
        field: s.field ?? null,
        kind: s.kind ?? null,
        max_length: s.max_length ?? null,
        position: s.position ?? i,
        parent_key: s.parent_key ?? null,
        removed: 0,
      })),
      { unit_key: "page:2", key: "a", text: TRICKY[2], fingerprint: fingerprint(TRICKY[2]), characters: characters(TRICKY[2]) },
    ];
    expect(rows).toMatchObject(expected);
    expect(rows.map((r) => r.id)).toEqual([...rows.map((r) => r.id)].sort((a, b) => a - b));
    // The units' rows, written in one statement too: every column as a push of one unit writes it.
    expect(units).toEqual([
      {
        external_key: "post:1",
        adapter: "wordpress",
        label: "post:1",
        path: "/post:1",
        source_language: "en-GB",
        writable_languages: JSON.stringify(["de"]),
        metadata: JSON.stringify(extra.metadata),
        snapshot_digest: "digest-0",
        snapshot_mismatches: "[]",
        segment_count: segments.length,
        needs_work: 1,
        counted: 1,
        deleted: 0,
      },
      {
        external_key: "page:2",
        adapter: "wordpress",
        label: TRICKY[0],
        path: "/page:2",
        source_language: null,
        writable_languages: null,
        metadata: null,
        snapshot_digest: "digest-1",
        snapshot_mismatches: "[]",
        segment_count: 1,
        needs_work: 1,
        counted: 1,
        deleted: 0,
      },
    ]);
    // The same text in two units has one fingerprint: the index finds both.
    expect(rows.filter((r) => r.fingerprint === fingerprint(TRICKY[2])).map((r) => r.unit_key)).toEqual(["post:1", "page:2"]);
  });

  it("writes a batch too large for one statement's parameter in several, every row intact", async () => {
    const site = await createSite();
    // 6 units × 4 segments of 30,000 two-byte characters: 720,000 characters, past one parameter's budget.
    const long = (u: number, s: number) => `${u}-${s}:${"é".repeat(30_000)}`;
    const units = Array.from({ length: 6 }, (_, u) =>
      unit(
        `post:${u}`,
        Array.from({ length: 4 }, (_, s) => ({ key: `s${s}`, text: long(u, s) })),
      ),
    );
    const { results, rows, params } = await pushBatch(site.siteId, units);

    expect(results.every((r) => r.ok && r.result?.added === 4)).toBe(true);
    expect(params.length).toBeGreaterThan(1);
    for (const p of params) expect(p.length).toBeLessThanOrEqual(500_000);
    expect(rows.map((r) => `${r.unit_key}/${r.key}`)).toEqual(units.flatMap((u) => u.segments.map((s) => `${u.external_key}/${s.key}`)));
    rows.forEach((r, i) => expect(r.text).toBe(long(Math.floor(i / 4), i % 4)));
  });

  it("lets a unit pushed twice in one batch see its first push's segments", async () => {
    const site = await createSite();
    const { results, rows } = await pushBatch(site.siteId, [
      unit("post:1", [
        { key: "a", text: "One" },
        { key: "b", text: "Two" },
      ]),
      unit("page:9", [{ key: "a", text: "Between" }]),
      unit("post:1", [
        { key: "a", text: "One" },
        { key: "b", text: "Deux" },
        { key: "c", text: "Three" },
      ]),
    ]);

    expect(results[2].result).toMatchObject({ unit_created: false, added: 1, changed: 1, unchanged: 1, removed: 0 });
    expect(rows.map((r) => [r.unit_key, r.key, r.text])).toEqual([
      ["post:1", "a", "One"],
      ["post:1", "b", "Deux"],
      ["page:9", "a", "Between"],
      ["post:1", "c", "Three"],
    ]);
  });
});
