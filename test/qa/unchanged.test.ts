import { describe, expect, it } from "vitest";
import type { Format } from "../../src/limits";
import { checkUnchanged } from "../../src/qa/unchanged.check";
import { qaInput } from "../helpers/qa";

describe("unchanged", () => {
  it.each<[string, string, Format, string]>([
    ["Hello world", "Hallo Welt", "plain", "de"],
    ["OK", "OK", "plain", "de"],
    ["{name}", "{name}", "plain", "de"],
    ["%1$s: %2$d", "%1$s: %2$d", "plain", "de"],
    ["1,000", "1,000", "plain", "de"],
    ["https://example.com/page", "https://example.com/page", "plain", "de"],
    ["<b>{count}</b>", "<b>{count}</b>", "html", "de"],
    ["`npm install`", "`npm install`", "markdown", "de"],
    ["Colour settings", "Colour settings", "plain", "en-GB"],
  ])("passes %j → %j (%s, into %s)", (source, target, format, targetLanguage) => {
    expect(checkUnchanged(qaInput({ source, target, format, targetLanguage }))).toBeNull();
  });

  it.each<[string, string, Format]>([
    ["Hello world", "Hello world", "plain"],
    ["Hello world", "  hello   WORLD ", "plain"],
    ["<p>Save changes</p>", "<p>Save changes</p>", "html"],
    ["**Save** {n} items", "**save** {n} items", "markdown"],
    ["Yes", "Yes", "plain"],
  ])("fails %j → %j (%s)", (source, target, format) => {
    expect(checkUnchanged(qaInput({ source, target, format }))).toEqual({
      code: "unchanged",
      severity: "warning",
      message: "The translation is the same as the source text.",
    });
  });

  it("compares Latin text case- and space-blind without normalizing it, exactly as NFC, lowercase and no spaces would", () => {
    expect(checkUnchanged(qaInput({ source: "Café crème brûlée", target: "CAFÉ  CRÈME\u00a0BRÛLÉE" }))).not.toBeNull();
    expect(checkUnchanged(qaInput({ source: "Café", target: "Cafe\u0301" }))).not.toBeNull(); // decomposed é
    expect(checkUnchanged(qaInput({ source: "İstanbul", target: "i\u0307stanbul" }))).not.toBeNull(); // İ lowercases to two characters
    expect(checkUnchanged(qaInput({ source: "Straße", target: "Strasse" }))).toBeNull();
    expect(checkUnchanged(qaInput({ source: "İstanbul", target: "istanbul" }))).toBeNull();
    // Fuzzed against the definition, over an alphabet that has every case the fast comparison must get right.
    const alphabet = ["a", "A", "é", "É", "e\u0301", "İ", "i", "ß", "Ⱥ", "ⱥ", "ǅ", "ǆ", " ", "\t", "\u00a0", "\u2003", "ø", "Ø", "1"];
    const normalize = (t: string) => t.normalize("NFC").toLowerCase().replace(/\s+/g, "");
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const text = () => Array.from({ length: 3 + Math.floor(next() * 4) }, () => alphabet[Math.floor(next() * alphabet.length)]).join("");
    let same = 0;
    for (let n = 0; n < 20_000; n++) {
      const source = `Abc${text()}`;
      // Often a variant of the source (case, spaces), so that equal texts are well represented.
      const target = next() < 0.5 ? `abc${text()}` : source.replace(/ /g, "  ").toUpperCase();
      const expected = normalize(source) === normalize(target);
      if (expected) same++;
      expect(checkUnchanged(qaInput({ source, target })) !== null, JSON.stringify([source, target])).toBe(expected);
    }
    expect(same).toBeGreaterThan(1_000);
  });
});
