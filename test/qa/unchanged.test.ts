import { describe, expect, it } from "vitest";
import type { Format } from "../../src/limits";
import { checkUnchanged } from "../../src/qa/unchanged";
import { qaInput } from "./input";

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
});
