import { describe, expect, it } from "vitest";
import { checkDoubleSpace, checkWhitespace } from "../../src/qa/whitespace.check";
import { qaInput } from "../helpers/qa";

describe("whitespace", () => {
  it.each([
    ["Hello", "Hallo"],
    [" Hello ", " Hallo "],
    ["Hello\n", "Hallo\n"],
    ["\tHello", "\tHallo"],
  ])("passes %j → %j", (source, target) => {
    expect(checkWhitespace(qaInput({ source, target }))).toBeNull();
  });

  it.each([
    [" Hello", "Hallo", "Leading whitespace differs from the source."],
    ["Hello ", "Hallo", "Trailing whitespace differs from the source."],
    ["Hello", "Hallo\n", "Trailing whitespace differs from the source."],
    ["Hello\n", "Hallo ", "Trailing whitespace differs from the source."],
    [" Hello ", "Hallo", "Leading and trailing whitespace differ from the source."],
  ])("fails %j → %j", (source, target, message) => {
    expect(checkWhitespace(qaInput({ source, target }))).toEqual({ code: "whitespace", severity: "warning", message });
  });
});

describe("double_space", () => {
  it.each([
    ["Hello world", "Hallo Welt"],
    ["Hello  world", "Hallo  Welt"],
    ["Line  \nbreak", "Zeile  \nUmbruch"],
    ["List:\n    indented", "Liste:\n    eingerückt"],
    ["End. ", "Ende. "],
  ])("passes %j → %j", (source, target) => {
    expect(checkDoubleSpace(qaInput({ source, target }))).toBeNull();
  });

  it.each([
    ["Hello world", "Hallo  Welt"],
    ["Hello world", "Hallo   Welt"],
    ["A  b c", "A  b  c"],
  ])("fails %j → %j", (source, target) => {
    expect(checkDoubleSpace(qaInput({ source, target }))).toEqual({
      code: "double_space",
      severity: "warning",
      message: "The translation contains a double space that the source does not.",
    });
  });
});
