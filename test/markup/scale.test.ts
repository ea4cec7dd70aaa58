import { describe, expect, it } from "vitest";
import { FORMATS } from "../../src/limits";
import { protect } from "../../src/markup/protect";
import { runQA } from "../../src/qa";

/**
 * Segment text may be 100,000 characters: protect, restore and QA handle stray syntax of that
 * length without throwing and restore it exactly. How long they take is a figure of the bench
 * (`npm run bench -- k`, bench/scenarios/k-markup.mjs), not an assertion here: inside workerd the
 * clock stands still during synchronous work.
 */
const LENGTH = 100_000;
const repeat = (unit: string) => unit.repeat(Math.ceil(LENGTH / unit.length)).slice(0, LENGTH);
const LONG_TEXTS: [string, string][] = [
  ...["[a](", "[", "<a ", "<b>", "</b>", "<code>", " `` ", "*a ", "_", "%", ":a", "- a\n", "https://x.org/{a} ", "1,000 ", "&"].map((unit): [string, string] => [
    JSON.stringify(unit),
    repeat(unit),
  ]),
  ["a long run of spaces", `a${" ".repeat(LENGTH - 3)}.b`],
  ["a URL of dots", `https://x.org/${".".repeat(LENGTH - 20)}a`],
];

describe("long segments", () => {
  it.each(LONG_TEXTS)("protect, restore and QA handle 100,000 characters of %s", (_, text) => {
    for (const format of FORMATS) {
      for (const mode of ["text", "html"] as const) {
        const p = protect(text, format, mode);
        expect(p.restore(p.text)).toBe(text);
      }
      runQA({ source: text, target: text, format, maxLength: null, sourceLanguage: "en", targetLanguage: "de", glossary: [] });
    }
  });
});
