import { describe, expect, it } from "vitest";
import { scan } from "../../src/markup/scan";

/** The markdown spans of a text as [kind, text] pairs. */
const spans = (text: string) => scan(text, "markdown").map((s) => [s.kind, text.slice(s.start, s.end)]);

describe("markdown spans", () => {
  it.each([
    ["Use `npm install` now", [["code", "`npm install`"]]],
    ["Double ``a ` b`` ticks", [["code", "``a ` b``"]]],
    ["```js\nlet a = *b*;\n```\nafter", [["code", "```js\nlet a = *b*;\n```"]]],
    ["~~~\nunclosed *x*", [["code", "~~~\nunclosed *x*"]]],
    [
      'See [the docs](https://x.org/a_(b) "Title") now',
      [
        ["link_open", "["],
        ["link_close", '](https://x.org/a_(b) "Title")'],
      ],
    ],
    [
      "![Logo](logo.png)",
      [
        ["link_open", "!["],
        ["link_close", "](logo.png)"],
      ],
    ],
    [
      "[Docs][ref]\n\n[ref]: https://x.org",
      [
        ["link_open", "["],
        ["link_close", "][ref]"],
        ["line", "[ref]: https://x.org"],
      ],
    ],
    [
      "[![img](a.png)](https://x.org)",
      [
        ["link_open", "["],
        ["link_open", "!["],
        ["link_close", "](a.png)"],
        ["link_close", "](https://x.org)"],
      ],
    ],
    [
      "**bold** and *em* and __b__ and _i_ and ~~gone~~",
      [
        ["emphasis", "**"],
        ["emphasis", "**"],
        ["emphasis", "*"],
        ["emphasis", "*"],
        ["emphasis", "__"],
        ["emphasis", "__"],
        ["emphasis", "_"],
        ["emphasis", "_"],
        ["emphasis", "~~"],
        ["emphasis", "~~"],
      ],
    ],
    [
      "***both***",
      [
        ["emphasis", "*"],
        ["emphasis", "**"],
        ["emphasis", "**"],
        ["emphasis", "*"],
      ],
    ],
    [
      "# Title\n## Sub\n- item\n  * nested\n1. first\n> quote\n- [x] done",
      [
        ["line", "# "],
        ["line", "## "],
        ["line", "- "],
        ["line", "  * "],
        ["line", "1. "],
        ["line", "> "],
        ["line", "- [x] "],
      ],
    ],
    [
      "---\n| a | b |\n|---|:-:|",
      [
        ["line", "---"],
        ["line", "|---|:-:|"],
      ],
    ],
    [
      "Not \\*emphasis\\*",
      [
        ["escape", "\\*"],
        ["escape", "\\*"],
      ],
    ],
    [
      "<https://x.org> and <b>html</b>",
      [
        ["url", "<https://x.org>"],
        ["tag", "<b>"],
        ["tag", "</b>"],
      ],
    ],
    [
      "Hi {name}, see https://x.org",
      [
        ["placeholder", "{name}"],
        ["url", "https://x.org"],
      ],
    ],
    ["&copy; 2024", [["entity", "&copy;"]]],
  ])("in %j", (text, expected) => {
    expect(spans(text)).toEqual(expected);
  });

  it.each([["2 * 3 * 4"], ["snake_case_name and other_var"], ["#hashtag"], ["-5 degrees"], ["~5 minutes"], ["A lone * star"], ["[not a link] here"], ["\\[escaped](x)"]])(
    "finds no syntax in %j",
    (text) => {
      expect(spans(text).filter(([kind]) => kind !== "escape")).toEqual([]);
    },
  );

  it("finds inline HTML after code that shows a script tag", () => {
    expect(spans("`<script>` then <b>bold</b>")).toEqual([
      ["code", "`<script>`"],
      ["tag", "<b>"],
      ["tag", "</b>"],
    ]);
  });

  it("reads Windows line endings", () => {
    expect(spans("# Title\r\n```\r\ncode\r\n```\r\n- item\r\n---\r\n")).toEqual([
      ["line", "# "],
      ["code", "```\r\ncode\r\n```"],
      ["line", "- "],
      ["line", "---"],
    ]);
  });

  it("pairs emphasis openers and closers, and gives emphasis the glue markdown needs", () => {
    const [open, close] = scan("**bold**", "markdown");
    expect(open.pair).toBe(close.pair);
    expect([open.role, open.element, open.glueRight]).toEqual(["open", "strong", true]);
    expect([close.role, close.glueLeft]).toEqual(["close", true]);
  });
});
