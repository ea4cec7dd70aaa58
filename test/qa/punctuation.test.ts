import { describe, expect, it } from "vitest";
import type { Format } from "../../src/limits";
import { checkPunctuation } from "../../src/qa/punctuation.check";
import { qaInput } from "../helpers/qa";

describe("punctuation", () => {
  it.each<[string, string, string, Format]>([
    ["Hello.", "Hallo.", "de", "plain"],
    ["Hello", "Hallo", "de", "plain"],
    ["Hello.", "こんにちは。", "ja", "plain"],
    ["Hello.", "你好．", "zh", "plain"],
    ["Really?", "¿De verdad?", "es", "plain"],
    ["Great!", "¡Genial!", "es", "plain"],
    ["Really?", "本当？", "ja", "plain"],
    ["Really?", "حقا؟", "ar", "plain"],
    ["Really?", "Αλήθεια;", "el", "plain"],
    ["Great!", "Super !", "fr", "plain"],
    ["Note:", "Hinweis：", "zh", "plain"],
    ["Wait...", "Warte…", "de", "plain"],
    ["Wait…", "Warte...", "de", "plain"],
    ["Hello.", "हेलो।", "hi", "plain"],
    ['He said "Hi."', "Er sagte „Hallo.“", "de", "plain"],
    ["Hello.", "สวัสดี", "th", "plain"],
    ["<p>Hello.</p>", "<p>Hallo.</p>", "de", "html"],
    ["**Hello!**", "**Hallo!**", "de", "markdown"],
    ["Total: {n}", "Gesamt: {n}", "de", "plain"],
  ])("passes %j → %j (%s, %s)", (source, target, targetLanguage, format) => {
    expect(checkPunctuation(qaInput({ source, target, targetLanguage, format }))).toBeNull();
  });

  it.each<[string, string, string, string]>([
    ["Hello.", "Hallo", "de", 'The source ends with "." but the translation has no ending punctuation.'],
    ["Hello", "Hallo.", "de", 'The translation ends with "." but the source has no ending punctuation.'],
    ["Really?", "Wirklich.", "de", 'The source ends with "?" but the translation ends with ".".'],
    ["Great!", "Toll?", "de", 'The source ends with "!" but the translation ends with "?".'],
    ["Wait...", "Warte.", "de", 'The source ends with "..." but the translation ends with ".".'],
    ["Note:", "Hinweis;", "de", 'The source ends with ":" but the translation ends with ";".'],
    ["Really?", "Wirklich;", "de", 'The source ends with "?" but the translation ends with ";".'],
    ["Hello.", "Hallo", "ja", 'The source ends with "." but the translation has no ending punctuation.'],
  ])("fails %j → %j (%s)", (source, target, targetLanguage, message) => {
    expect(checkPunctuation(qaInput({ source, target, targetLanguage }))).toEqual({
      code: "punctuation",
      severity: "warning",
      message,
    });
  });
});
