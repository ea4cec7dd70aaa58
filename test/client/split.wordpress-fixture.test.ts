// The cases the WordPress connector's PHP port of splitHtml is tested against
// (connectors/wordpress/tests/fixtures/split-cases.json, written by its scripts/fixture.mjs):
// the kit must still answer each as the file says, so both splitters answer the same.
import { describe, expect, it } from "vitest";
import { joinHtml, splitHtml } from "../../client/src/split/index.js";
import fixture from "../../connectors/wordpress/tests/fixtures/split-cases.json";

interface Case {
  name: string;
  doc: string;
  previous?: { key: string; text: string }[];
  segments: { key: string; text: string; kind: string | null }[];
  parts: unknown[];
  problems: unknown[];
  joined: string;
}

describe("the WordPress connector's split cases", () => {
  const cases = (fixture as { cases: Case[] }).cases;

  it("has cases of every kind", () => {
    expect(cases.length).toBeGreaterThan(600);
    for (const kind of ["a WordPress post", "edge", "tag soup", "random text", "edit"]) expect(cases.some((c) => c.name.startsWith(kind))).toBe(true);
  });

  it("splitHtml answers each case's segments, template and join", () => {
    for (const c of cases) {
      const split = splitHtml(c.doc, c.previous ? { previous: c.previous } : {});
      expect(
        split.segments.map((s) => ({ key: s.key, text: s.text, kind: s.kind })),
        c.name,
      ).toEqual(c.segments);
      expect(split.parts, c.name).toEqual(c.parts);
      expect(split.problems ?? [], c.name).toEqual(c.problems);
      const translations = Object.fromEntries(split.segments.map((s) => [s.key, `[${s.key}] ${s.text}`]));
      expect(joinHtml(split, translations), c.name).toBe(c.joined);
    }
  });
});
