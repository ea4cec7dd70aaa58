import { describe, expect, it } from "vitest";
import type { Format } from "../../src/limits";
import { checkMarkdownSyntax } from "../../src/qa/markdown.check";
import { qaInput } from "../helpers/qa";

describe("markdown_syntax", () => {
  it.each<[string, string, Format]>([
    ["A **bold** move", "Ein **kühner** Zug", "markdown"],
    ["See [docs](https://x.org)", "Siehe [Doku](https://x.org)", "markdown"],
    ['See [docs](https://x.org "Docs")', 'Siehe [Doku](https://x.org "Doku")', "markdown"],
    ["![Logo](a.png) and `code`", "`code` und ![Logo](a.png)", "markdown"],
    ["*a* and _b_", "_b_ und *a*", "markdown"],
    ["2 * 3 = 6", "2 × 3 = 6", "markdown"],
    ["```\ncode\n```", "```\ncode\n```", "markdown"],
    ["**bold**", "bold", "plain"],
  ])("passes %j → %j (%s)", (source, target, format) => {
    expect(checkMarkdownSyntax(qaInput({ source, target, format }))).toBeNull();
  });

  it.each([
    ["See [docs](https://x.org)", "Siehe [Doku](https://x.de)", "missing link […](https://x.org); unexpected link […](https://x.de)"],
    ["See [docs](https://x.org)", "Siehe Doku", "missing link […](https://x.org)"],
    ["![Logo](a.png)", "[Logo](a.png)", "missing image ![…](a.png); unexpected link […](a.png)"],
    ["Run `npm i`", "Führe `npm install` aus", "missing code `npm i`; unexpected code `npm install`"],
    ["Run `npm i`", "Führe npm i aus", "missing code `npm i`"],
    ["A **bold** move", "Ein kühner Zug", "missing emphasis marker ** ×2"],
    ["A **bold** move", "Ein **kühner Zug", "missing emphasis marker ** ×2"],
    ["A *bold* move", "Ein **kühner** Zug", "missing emphasis marker * ×2; unexpected emphasis marker ** ×2"],
    ["~~old~~", "alt", "missing emphasis marker ~~ ×2"],
  ])("fails %j → %j", (source, target, differences) => {
    expect(checkMarkdownSyntax(qaInput({ source, target, format: "markdown" }))).toEqual({
      code: "markdown_syntax",
      severity: "error",
      message: `The Markdown differs from the source: ${differences}.`,
    });
  });
});
