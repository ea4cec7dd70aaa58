import { describe, expect, it } from "vitest";
import { runQA } from "../../src/qa";
import { qaInput } from "../helpers/qa";

describe("runQA", () => {
  it("passes a good translation", () => {
    expect(runQA(qaInput({ source: "Hello {name}, you have 3 messages.", target: "Hallo {name}, du hast 3 Nachrichten." }))).toEqual([]);
  });

  it("reports an empty translation alone", () => {
    expect(runQA(qaInput({ source: "Hello {name}, 3 messages.", target: "", maxLength: 1 }))).toEqual([{ code: "empty", severity: "error", message: "The translation is empty." }]);
  });

  it("reports every failing check, errors first, each with its code and severity", () => {
    const issues = runQA(
      qaInput({
        source: "<p>Open your account with <b>{count}</b> credits at https://x.org in 5 days.</p>",
        target: " <p>Öffne  dein Profil bei https://y.org in fünf Tagen</p>",
        format: "html",
        maxLength: 10,
        glossary: [{ source: "account", target: "Konto", language: "de", caseSensitive: false }],
      }),
    );
    expect(issues.map((i) => [i.code, i.severity])).toEqual([
      ["max_length", "error"],
      ["html_tags", "error"],
      ["placeholders", "error"],
      ["numbers", "warning"],
      ["urls", "warning"],
      ["whitespace", "warning"],
      ["punctuation", "warning"],
      ["double_space", "warning"],
      ["glossary", "warning"],
    ]);
    expect(issues[0].message).toBe("The translation is 51 characters long; the limit is 10.");
  });

  it("reports unchanged text and broken markdown", () => {
    const issues = runQA(qaInput({ source: "Read **this** now", target: "Read this now", format: "markdown" }));
    expect(issues.map((i) => i.code)).toEqual(["markdown_syntax"]);
    expect(runQA(qaInput({ source: "Read this now", target: "Read this now" })).map((i) => i.code)).toEqual(["unchanged"]);
  });
});
