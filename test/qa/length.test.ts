import { describe, expect, it } from "vitest";
import type { Format } from "../../src/limits";
import { checkEmpty, checkMaxLength } from "../../src/qa/length.check";
import { qaInput } from "../helpers/qa";

describe("empty", () => {
  it.each<[string, string, Format]>([
    ["Hello", "Hallo", "plain"],
    ["<p>Hello</p>", "<p>Hallo</p>", "html"],
    ['<img src="a.png">', '<img src="a.png">', "html"],
    ["", "", "plain"],
    ["   ", "", "plain"],
  ])("passes %j → %j (%s)", (source, target, format) => {
    expect(checkEmpty(qaInput({ source, target, format }))).toBeNull();
  });

  it.each<[string, string, Format]>([
    ["Hello", "", "plain"],
    ["Hello", "  \n ", "markdown"],
    ["<p>Hello</p>", "<p></p>", "html"],
    ["<p>Hello</p>", "<p>&nbsp;</p>", "rich_text"],
  ])("fails %j → %j (%s)", (source, target, format) => {
    expect(checkEmpty(qaInput({ source, target, format }))).toEqual({
      code: "empty",
      severity: "error",
      message: "The translation is empty.",
    });
  });
});

describe("max_length", () => {
  it.each<[string, Format, number | null]>([
    ["Hallo", "plain", null],
    ["Hallo", "plain", 5],
    ["<p><b>Hallo</b></p>", "html", 5],
    ["Tom &amp; Jerry", "rich_text", 11],
    ["😀😀😀", "plain", 3],
    ["日本語", "plain", 3],
  ])("passes %j (%s) with limit %s", (target, format, maxLength) => {
    expect(checkMaxLength(qaInput({ source: "x", target, format, maxLength }))).toBeNull();
  });

  it.each<[string, Format, number, number]>([
    ["Hallo!", "plain", 5, 6],
    ["<p>Hallo!</p>", "html", 5, 6],
    ["**Hallo**", "markdown", 5, 9],
    ["😀😀😀😀", "plain", 3, 4],
  ])("fails %j (%s) with limit %s", (target, format, maxLength, length) => {
    expect(checkMaxLength(qaInput({ source: "x", target, format, maxLength }))).toEqual({
      code: "max_length",
      severity: "error",
      message: `The translation is ${length} characters long; the limit is ${maxLength}.`,
    });
  });
});
