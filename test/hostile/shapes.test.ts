/**
 * Issue 23, findings 2 and 3: the worst shapes a body under 10 MB can take (4,000,000 nested
 * arrays, 500,000-item arrays, 100,000-key objects, long strings of escapes), single and in a
 * batch. Each is refused with a 422 naming the field (in a batch: that unit alone, `ok: false`,
 * its siblings applied), and the cost is bounded by counting work, not by a clock: the body
 * is never handed whole to `JSON.parse`, the refused value never to `JSON.stringify`, and the
 * text pass stops where the bound is passed.
 */
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { scanJsonText } from "../../src/api/json-text";
import { jsonBoundsProblem } from "../../src/api/schemas";
import { LIMITS } from "../../src/limits";
import { createSite, type TestSite, unit } from "../helpers/api";
import { raw } from "../helpers/hostile";

const DEEP = 4_000_000; // 8 MB of brackets: under the 10 MB limit
const deep = (n = DEEP) => "[".repeat(n) + "]".repeat(n);
const wide = (n = 500_000) => `[${"0,".repeat(n - 1)}0]`;
/** 4,500,000 escaped quotes (9 MB): one string literal longer than any valid field can be. */
const escapedQuotes = () => `{"a":"${'\\"'.repeat(4_500_000)}"}`;
const manyKeys = (n = 100_000) => `{${Array.from({ length: n }, (_, i) => `"k${i}":0`).join(",")}}`;
const unitText = (key: string, metadata: string) =>
  JSON.stringify(unit(key, [{ key: "a", text: "Hello" }], { metadata: { placeholder: true } })).replace('{"placeholder":true}', metadata);

let site: TestSite;
beforeAll(async () => {
  site = await createSite();
});
afterEach(() => vi.restoreAllMocks());

/** Watches JSON.parse and JSON.stringify for the duration of `run`: the longest text parsed, and how often a refused value was stringified. */
async function watched<T>(run: () => Promise<T>, refused: (value: unknown) => boolean = () => false) {
  const parse = vi.spyOn(JSON, "parse");
  const stringify = vi.spyOn(JSON, "stringify");
  const result = await run();
  const longestParsed = Math.max(0, ...parse.mock.calls.map(([text]) => String(text).length));
  const refusedStringified = stringify.mock.calls.filter(([value]) => refused(value)).length;
  parse.mockRestore();
  stringify.mockRestore();
  return { result, longestParsed, refusedStringified };
}

describe("the text pass", () => {
  it("stops at the first level past the depth bound", () => {
    const scan = scanJsonText(unitText("deep:1", `{"a":${deep()}}`));
    expect(scan.problem).toEqual({ path: "metadata", rule: `must be nested at most ${LIMITS.jsonDepth} levels deep` });
    expect(scan.visited).toBeLessThan(1_000);
  });

  it("stops at the first item past the width bound, naming the container", () => {
    const scan = scanJsonText(unitText("wide:1", `{"a":${wide()}}`));
    expect(scan.problem).toEqual({ path: "metadata.a", rule: `must have at most ${LIMITS.jsonWidth} items` });
    expect(scan.visited).toBeLessThan(LIMITS.jsonWidth * 2 + 1_000);
    expect(scanJsonText(unitText("keys:1", manyKeys())).problem).toEqual({ path: "metadata", rule: `must have at most ${LIMITS.jsonWidth} keys` });
  });

  it("accepts the bounds themselves, and brackets inside strings are text", () => {
    const atDepth = "[".repeat(LIMITS.jsonDepth - 1) + "]".repeat(LIMITS.jsonDepth - 1);
    expect(scanJsonText(unitText("edge:1", `{"a":${atDepth}}`)).problem).toBeUndefined();
    expect(scanJsonText(unitText("edge:1", `{"a":${"[".repeat(LIMITS.jsonDepth)}${"]".repeat(LIMITS.jsonDepth)}}`)).problem?.rule).toMatch(/nested/);
    expect(scanJsonText(unitText("edge:1", `{"a":${wide(LIMITS.jsonWidth)}}`)).problem).toBeUndefined();
    expect(scanJsonText(unitText("edge:1", `{"a":"${"[".repeat(100)}\\"${"{".repeat(100)}"}`)).problem).toBeUndefined();
  });

  it("metadata bounds after parsing are one walk that stops at the size budget", () => {
    // 100,000 levels built without recursion: the walk neither recurses nor stringifies the whole.
    let nested: unknown = 0;
    for (let i = 0; i < 100_000; i++) nested = [nested];
    const stringify = vi.spyOn(JSON, "stringify");
    expect(jsonBoundsProblem({ a: nested }, LIMITS.metadataChars)).toBe(`must be nested at most ${LIMITS.jsonDepth} levels deep`);
    expect(jsonBoundsProblem({ a: new Array(500_000).fill(0) }, LIMITS.metadataChars)).toBe(`must be at most ${LIMITS.metadataChars} characters as JSON`);
    expect(jsonBoundsProblem({ a: "\u0000".repeat(20_000) }, LIMITS.metadataChars)).toBe(`must be at most ${LIMITS.metadataChars} characters as JSON`);
    expect(jsonBoundsProblem({ a: "x".repeat(1_000_000) }, LIMITS.metadataChars)).toBe(`must be at most ${LIMITS.metadataChars} characters as JSON`);
    expect(stringify.mock.calls.every(([v]) => typeof v === "string" && v.length <= LIMITS.metadataChars)).toBe(true);
    const value = { a: [1, "two", null, true, { b: 'é"\n' }], c: -1.5e-7 };
    expect(jsonBoundsProblem(value, JSON.stringify(value).length)).toBeUndefined();
    expect(jsonBoundsProblem(value, JSON.stringify(value).length - 1)).toMatch(/characters as JSON/);
  });
});

describe("PUT /v1/units", () => {
  const cases: [string, string, string][] = [
    ["4,000,000 nested arrays (8 MB)", `{"a":${deep()}}`, `metadata must be nested at most ${LIMITS.jsonDepth} levels deep`],
    ["an array of 500,000 zeros", `{"a":${wide()}}`, `metadata.a must have at most ${LIMITS.jsonWidth} items`],
    ["an object of 100,000 keys", manyKeys(), `metadata must have at most ${LIMITS.jsonWidth} keys`],
    ["a 9 MB string of escaped quotes", escapedQuotes(), `metadata.a is too long: no field takes more than ${LIMITS.segmentText} characters`],
  ];
  for (const [name, metadata, detail] of cases)
    it(`refuses ${name} in metadata with a 422 naming the field, without parsing the body`, async () => {
      const body = unitText(`shape:${name.length}`, metadata);
      const { result, longestParsed } = await watched(() => raw("PUT", "/v1/units", site.key, body));
      expect(result.status).toBe(422);
      expect(result.body.detail).toBe(detail);
      expect(longestParsed).toBeLessThan(1_000_000);
    });

  it("refuses metadata past 64 KiB as JSON (escapes count) without stringifying it", async () => {
    const escapes = "\u0000".repeat(20_000); // 120,000 characters as JSON
    const body = unitText("escapes:1", JSON.stringify({ a: escapes }));
    const { result, refusedStringified } = await watched(
      () => raw("PUT", "/v1/units", site.key, body),
      (v) => typeof v === "object" && v !== null && (v as { a?: unknown }).a === escapes,
    );
    expect(result.status).toBe(422);
    expect(result.body.detail).toBe(`metadata must be at most ${LIMITS.metadataChars} characters as JSON`);
    expect(refusedStringified).toBe(0);
  });
});

describe("PUT /v1/units/batch", () => {
  const cases: [string, string, string][] = [
    ["4,000,000 nested arrays (8 MB)", `{"a":${deep()}}`, `units[1].metadata must be nested at most ${LIMITS.jsonDepth} levels deep`],
    ["an array of 500,000 zeros", `{"a":${wide()}}`, `units[1].metadata.a must have at most ${LIMITS.jsonWidth} items`],
    ["an object of 100,000 keys", manyKeys(), `units[1].metadata must have at most ${LIMITS.jsonWidth} keys`],
    ["a 9 MB string of escaped quotes", escapedQuotes(), `units[1].metadata.a is too long: no field takes more than ${LIMITS.segmentText} characters`],
  ];
  cases.forEach(([name, metadata, detail], n) =>
    it(`fails only the unit with ${name}; its siblings are applied; the body is never parsed whole`, async () => {
      const tag = `batch${n}`;
      const body = `{"units":[${unitText(`${tag}:1`, "{}")},${unitText(`${tag}:2`, metadata)},${unitText(`${tag}:3`, '{"ok":true}')}]}`;
      const { result, longestParsed, refusedStringified } = await watched(
        () => raw("PUT", "/v1/units/batch", site.key, body),
        (v) => (v as { external_key?: unknown } | null)?.external_key === `${tag}:2`,
      );
      expect(result.status).toBe(200);
      expect(result.body.results.map((r: { external_key: string; ok: boolean }) => [r.external_key, r.ok])).toEqual([
        [`${tag}:1`, true],
        [`${tag}:2`, false],
        [`${tag}:3`, true],
      ]);
      expect(result.body.results[1].error).toBe(detail);
      expect(result.body.results[0].result.added).toBe(1);
      expect(longestParsed).toBeLessThan(10_000);
      expect(refusedStringified).toBe(0);
    }),
  );

  it("a unit refused by its metadata's size is validated once", async () => {
    const metadata = JSON.stringify({ a: "x".repeat(70_000) });
    const body = `{"units":[${unitText("size:1", metadata)}]}`;
    const stringify = vi.spyOn(JSON, "stringify");
    const res = await raw("PUT", "/v1/units/batch", site.key, body);
    expect(res.body.results[0]).toMatchObject({ ok: false, error: `units[0].metadata must be at most ${LIMITS.metadataChars} characters as JSON` });
    // Never: the digest is taken of the unit's text as sent, and the metadata's own string is never stringified (too long to matter).
    expect(stringify.mock.calls.filter(([v]) => (v as { external_key?: string } | null)?.external_key === "size:1")).toHaveLength(0);
  });

  it("a second `units` array (the one JSON.parse keeps) is answered as itself", async () => {
    const body = `{"units":[${unitText("dup:1", "{}")},${unitText("dup:2", `{"a":${deep(100)}}`)}],"units":[${unitText("dup:3", "{}")}]}`;
    const res = await raw("PUT", "/v1/units/batch", site.key, body);
    expect(res.status).toBe(200);
    expect(res.body.results.map((r: { external_key: string; ok: boolean }) => [r.external_key, r.ok])).toEqual([["dup:3", true]]);
  });

  it("refuses a body whose units array itself is too wide, or whose envelope is too deep, as a whole", async () => {
    const tooMany = await raw("PUT", "/v1/units/batch", site.key, `{"units":${wide(LIMITS.jsonWidth + 1)}}`);
    expect(tooMany.status).toBe(422);
    expect(tooMany.body.detail).toBe(`units must have at most ${LIMITS.jsonWidth} items`);
    const junk = await raw("PUT", "/v1/units/batch", site.key, `{"units":[],"junk":${deep(1_000)}}`);
    expect(junk.status).toBe(422);
    expect(junk.body.detail).toBe(`junk must be nested at most ${LIMITS.jsonDepth} levels deep`);
  });
});
