// parseBatchUnit must answer exactly what UnitSnapshotIn answers: the same data for a valid
// unit (through its fast path for plain segments) and the same 422 detail for an invalid one.
import { describe, expect, it, vi } from "vitest";
import { parseBatchUnit } from "../../src/api/batch-unit";
import { validationDetail } from "../../src/api/issues";
import { UnitSnapshotIn } from "../../src/api/schemas";

/** A small deterministic generator (mulberry32), so a failure can be replayed. */
function random(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const text = (n: number, unit = "x") => unit.repeat(n);
// Each pool mixes valid values (most often first) with the ways a value can be wrong.
const POOLS: Record<string, unknown[]> = {
  key: ["a", "b", "c", "field_001", "", text(500), text(501), text(250, "😀"), text(251, "😀"), "k\u0000", "\uD800x", 5, null],
  text: ["Hello", "", "Grüße 😀", "a\r\nb", text(100_000), text(100_001), text(50_000, "😀"), "\uDC00", "a\u0000b", 42, null, ["x"]],
  format: ["plain", "html", "markdown", "rich_text", "PLAIN", null, 1, ""],
  field: ["title", null, "", text(200), text(201), "\u0000", 7],
  kind: ["heading", null, text(50), text(51), false],
  parent_key: ["p", null, text(500), text(501), "\uDBFF"],
  fingerprint: ["0".repeat(64), null, text(128), text(129), 64],
  max_length: [1, 200, null, 0, -1, 1.5, 2 ** 53, Infinity, "3"],
  position: [0, 3, null, -0, -1, 2.5, 2 ** 53 - 1, 2 ** 53, Infinity, "1"],
  translations: [null, {}, { de: "Hallo" }, { "d e": "x" }, { de: 5 }, "de"],
  extra: [1, "x", null],
};

function segment(next: () => number): unknown {
  if (next() < 0.03) return next() < 0.5 ? null : ["key", "a"];
  const s: Record<string, unknown> = {};
  for (const [name, pool] of Object.entries(POOLS)) {
    const required = name === "key" || name === "text";
    // Required fields are mostly present and valid; optional ones mostly absent.
    const roll = next();
    if (required ? roll < 0.02 : roll < 0.6) continue;
    const valid = next() < (required ? 0.9 : 0.7);
    s[name] = valid ? pool[Math.floor(next() * Math.min(3, pool.length))] : pool[Math.floor(next() * pool.length)];
  }
  return s;
}

function unitOf(next: () => number): unknown {
  const n = Math.floor(next() * 6);
  const segments = Array.from({ length: n }, () => segment(next));
  const u: Record<string, unknown> = { external_key: next() < 0.95 ? "post:1" : "bad key", adapter: next() < 0.95 ? "wordpress" : "joomla", segments };
  if (next() < 0.3) u.label = next() < 0.9 ? "Label" : 5;
  if (next() < 0.1) u.metadata = { a: [1, { b: null }] };
  if (next() < 0.05) u.segments = next() < 0.5 ? null : {};
  if (next() < 0.05) u.extra = true;
  return u;
}

function expectSame(raw: unknown) {
  const fast = parseBatchUnit(raw);
  const zod = UnitSnapshotIn.safeParse(raw);
  expect(fast.success, JSON.stringify(raw)?.slice(0, 300)).toBe(zod.success);
  if (zod.success) expect(JSON.parse(JSON.stringify(fast.data))).toEqual(JSON.parse(JSON.stringify(zod.data)));
  else expect(validationDetail(fast.error!, "units[0]", raw)).toBe(validationDetail(zod.error, "units[0]", raw));
  return fast.success;
}

describe("parseBatchUnit", () => {
  it("answers as UnitSnapshotIn on 3,000 generated units, valid and invalid", () => {
    const next = random(20261123);
    let valid = 0;
    for (let i = 0; i < 3000; i++) if (expectSame(unitOf(next))) valid++;
    // Both kinds are exercised.
    expect(valid).toBeGreaterThan(300);
    expect(valid).toBeLessThan(2700);
  });

  it("takes the fast path for plain segments, and refers every doubt to UnitSnapshotIn", () => {
    const spy = vi.spyOn(UnitSnapshotIn, "safeParse");
    try {
      const plain = {
        external_key: "post:1",
        adapter: "wordpress",
        segments: [
          { key: "a", text: "Hello", field: "title", position: 0, unknown: 1 },
          { key: "b", text: "World", format: "html" },
        ],
      };
      expect(parseBatchUnit(plain)).toEqual({
        success: true,
        data: {
          external_key: "post:1",
          adapter: "wordpress",
          segments: [
            { key: "a", text: "Hello", format: "plain", field: "title", position: 0 },
            { key: "b", text: "World", format: "html" },
          ],
        },
      });
      expect(spy).not.toHaveBeenCalled();
      expectSame(plain);
      spy.mockClear();
      expectSame({
        ...plain,
        segments: [
          { key: "a", text: "x" },
          { key: "a", text: "y" },
        ],
      });
      expectSame({ ...plain, segments: Array.from({ length: 5001 }, (_, i) => ({ key: `k${i}`, text: "x" })) });
      expect(expectSame({ ...plain, segments: Array.from({ length: 5000 }, (_, i) => ({ key: `k${i}`, text: "x" })) })).toBe(true);
    } finally {
      spy.mockRestore();
    }
  });
});
