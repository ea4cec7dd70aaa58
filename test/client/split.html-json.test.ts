// The HTML and JSON splitters: round-trip, stable keys, what is kept.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { flattenJson, joinHtml, joinJson, normalize, splitHtml, unflattenJson } from "../../client/src/split/index.js";

const KEY = /^[A-Za-z0-9_.:-]{1,500}$/;
const sentence = fc.array(fc.stringMatching(/^[a-z]{1,8}$/), { minLength: 1, maxLength: 6 }).map((w) => w.join(" "));

describe("splitHtml", () => {
  const page =
    '<!doctype html>\n<html><head><title>Home</title><style>p{color:red}</style></head>\n<body>\n<!-- nav -->\n<h1>Hello <em>world</em></h1>\n<div><p>First.</p>\n<ul><li>One</li><li><p>Two</p></li></ul></div>\n<pre><code>keep()</code></pre>\n<script>var p = "<p>x</p>";</script>\n</body></html>\n';

  it("sends the innermost text blocks and keeps comments, code, script and style", () => {
    const split = splitHtml(page);
    expect(split.segments.map((s) => [s.kind, s.text])).toEqual([
      ["title", "Home"],
      ["h1", "Hello <em>world</em>"],
      ["p", "First."],
      ["li", "One"],
      ["p", "Two"],
    ]);
    for (const s of split.segments) expect(s.key).toMatch(KEY);
    expect(joinHtml(split, {})).toBe(page);
    const out = joinHtml(split, Object.fromEntries(split.segments.map((s) => [s.key, `DE ${s.text}`])));
    expect(out).toContain("<h1>DE Hello <em>world</em></h1>");
    expect(out).toContain("<!-- nav -->");
    expect(out).toContain('<script>var p = "<p>x</p>";</script>');
  });

  it("joins back to the exact bytes for any input", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", maxLength: 300 }), (doc) => {
        expect(joinHtml(splitHtml(doc), {})).toBe(doc);
      }),
      { numRuns: 300 },
    );
  });

  it("joins back to the exact bytes for tag soup (unclosed, stray and nested tags)", () => {
    const token = fc.constantFrom("<p>", "</p>", "<li>", "</li>", "<td>", "<b>", "</b>", "<pre>", "<!--", "-->", "<script>", "a b", " ", "\n", "<h1 class=x>", "</h1>", "&amp;");
    fc.assert(
      fc.property(fc.array(token, { maxLength: 40 }), (ts) => {
        const doc = ts.join("");
        const split = splitHtml(doc);
        expect(joinHtml(split, {})).toBe(doc);
        expect(new Set(split.segments.map((s) => s.key)).size).toBe(split.segments.length);
      }),
      { numRuns: 500 },
    );
  });

  it("keeps every untouched paragraph's key when one is inserted, deleted, moved or edited", () => {
    fc.assert(
      fc.property(fc.uniqueArray(sentence, { minLength: 2, maxLength: 10, selector: normalize }), fc.nat(), fc.nat(), fc.nat(3), sentence, (ps, a, b, op, text) => {
        fc.pre(!ps.some((p) => normalize(p) === normalize(text)));
        const after = [...ps];
        const i = a % ps.length;
        if (op === 0) after.splice(a % (ps.length + 1), 0, text);
        else if (op === 1) after.splice(i, 1);
        else if (op === 2) after.splice(b % ps.length, 0, ...after.splice(i, 1));
        else after[i] = text;
        const keys = (xs: string[]) => new Map(splitHtml(xs.map((p) => `<p>${p}</p>`).join("\n")).segments.map((s) => [s.text, s.key]));
        const old = keys(ps);
        const now = keys(after);
        for (const p of after) if (p !== text) expect(now.get(p)).toBe(old.get(p));
      }),
    );
  });
});

describe("flattenJson", () => {
  const messages = { nav: { home: "Home", items: [{ label: "Docs" }, { label: "" }] }, count: 3, "a b/c_d": "Odd name", flag: true };

  it("sends string values keyed by their path, encoded into the key pattern", () => {
    expect(flattenJson(messages).map((s) => [s.key, s.text])).toEqual([
      ["nav.home", "Home"],
      ["nav.items.0.label", "Docs"],
      ["a_20b_2fc_5fd", "Odd name"],
    ]);
  });

  it("puts translations back and keeps everything else", () => {
    expect(unflattenJson(messages, { "nav.home": "Start", a_20b_2fc_5fd: "Seltsam" })).toEqual({
      ...messages,
      nav: { ...messages.nav, home: "Start" },
      "a b/c_d": "Seltsam",
    });
    const text = `${JSON.stringify(messages, null, 2)}\n`;
    expect(joinJson(text, {})).toBe(text);
    expect(JSON.parse(joinJson(text, { "nav.items.0.label": "Doku" })).nav.items[0].label).toBe("Doku");
  });

  it("gives distinct keys to distinct paths", () => {
    fc.assert(
      fc.property(
        fc.dictionary(
          fc.string({ maxLength: 6 }),
          fc.string({ minLength: 1, maxLength: 4 }).filter((s) => s.trim() !== ""),
        ),
        (d) => {
          const keys = flattenJson(d).map((s) => s.key);
          expect(new Set(keys).size).toBe(keys.length);
          for (const k of keys) expect(k).toMatch(KEY);
        },
      ),
    );
  });
});
