// The Markdown splitter: round-trip exact, keys stable under any one edit (fast-check), and
// real documents (front matter, headings, lists, tables, code fences, HTML comments).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { joinMarkdown, markDraft, normalize, splitMarkdown } from "../../client/src/split/index.js";

const KEY = /^[A-Za-z0-9_.:-]{1,500}$/;

const word = fc.stringMatching(/^[a-z]{1,8}$/);
const sentence = fc.array(word, { minLength: 1, maxLength: 8 }).map((w) => w.join(" "));
/** A translatable block as written in a document, with the text its segment carries. */
type Block = { md: string; text: string | null };
const block = (s: string, shape: number): Block => {
  switch (shape) {
    case 0:
      return { md: `## ${s}`, text: s };
    case 1:
      return { md: `- ${s}`, text: s };
    case 2:
      return { md: `> ${s}`, text: `> ${s}` };
    default:
      return { md: `${s[0].toUpperCase()}${s.slice(1)}.`, text: `${s[0].toUpperCase()}${s.slice(1)}.` };
  }
};
/** Kept blocks: never segments. */
const kept = fc.oneof(
  sentence.map((s) => `\`\`\`\n${s}\n\`\`\``),
  sentence.map((s) => `<!-- ${s} -->`),
  fc.constant("***"),
);
const blocks = fc.uniqueArray(fc.tuple(sentence, fc.nat(3)), { minLength: 1, maxLength: 12, selector: ([s]) => normalize(s) }).map((xs) => xs.map(([s, shape]) => block(s, shape)));
const separator = fc.constantFrom("\n\n", "\n\n\n", "\n \n");
const render = (bs: (Block | string)[], seps: string[]) => bs.map((b, i) => (typeof b === "string" ? b : b.md) + (seps[i % seps.length] ?? "\n\n")).join("");
const keysByText = (doc: string) => new Map(splitMarkdown(doc).segments.map((s) => [s.text, s.key]));

describe("splitMarkdown", () => {
  it("joins back to the exact bytes with the source texts, for any input", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", maxLength: 300 }), (doc) => {
        expect(joinMarkdown(splitMarkdown(doc), {})).toBe(doc);
      }),
      { numRuns: 300 },
    );
  });

  it("joins back to the exact bytes for generated documents with kept blocks and front matter", () => {
    fc.assert(
      fc.property(blocks, fc.array(kept, { maxLength: 4 }), fc.array(separator, { minLength: 1, maxLength: 3 }), fc.boolean(), (bs, ks, seps, fm) => {
        const doc = (fm ? "---\ntitle: A title\ndate: 2024-01-01\n---\n\n" : "") + render([...ks, ...bs], seps);
        const split = splitMarkdown(doc);
        expect(joinMarkdown(split, {})).toBe(doc);
        expect(joinMarkdown(split, Object.fromEntries(split.segments.map((s) => [s.key, s.text])))).toBe(doc);
        for (const s of split.segments) expect(s.key).toMatch(KEY);
        expect(new Set(split.segments.map((s) => s.key)).size).toBe(split.segments.length);
        // Kept blocks are never sent.
        for (const s of split.segments) expect(s.text).not.toMatch(/```|<!--|\*\*\*/);
        expect(split.segments.length).toBe(bs.length + (fm ? 1 : 0));
      }),
    );
  });

  it("keeps every untouched block's key after inserting, deleting, moving or editing one block", () => {
    const edit = fc.oneof(
      fc.record({ op: fc.constant("insert" as const), at: fc.nat(), text: sentence, shape: fc.nat(3) }),
      fc.record({ op: fc.constant("delete" as const), at: fc.nat() }),
      fc.record({ op: fc.constant("move" as const), at: fc.nat(), to: fc.nat() }),
      fc.record({ op: fc.constant("edit" as const), at: fc.nat(), text: sentence }),
    );
    fc.assert(
      fc.property(blocks, edit, (bs, e) => {
        const before = [...bs];
        const after = [...bs];
        const i = e.at % bs.length;
        let touched: Block | null = null;
        if (e.op === "insert") {
          fc.pre(!bs.some((b) => normalize(b.md).endsWith(normalize(e.text))));
          touched = block(e.text, e.shape);
          after.splice(e.at % (bs.length + 1), 0, touched);
        } else if (e.op === "delete") after.splice(i, 1);
        else if (e.op === "move") after.splice(e.to % bs.length, 0, ...after.splice(i, 1));
        else {
          fc.pre(!bs.some((b) => normalize(b.md).endsWith(normalize(e.text))));
          touched = { md: `${e.text}!`, text: `${e.text}!` };
          after[i] = touched;
        }
        const old = keysByText(render(before, ["\n\n"]));
        const now = keysByText(render(after, ["\n\n"]));
        for (const b of after) {
          if (b === touched) {
            // The inserted or edited block has a key no other block had.
            expect([...old.values()]).not.toContain(now.get(b.text ?? ""));
            continue;
          }
          expect(now.get(b.text ?? "")).toBe(old.get(b.text ?? ""));
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe("splitMarkdown on a real page", () => {
  const page = [
    "---",
    'title: "Getting started"',
    "description: How to install it.",
    "date: 2024-05-01",
    "tags: [a, b]",
    "---",
    "",
    "# Getting *started*",
    "",
    "Install the package and run it.",
    "It takes a minute.",
    "",
    "<!-- editors: keep this short -->",
    "",
    "1. Install",
    "2. Configure the `url`",
    "",
    "| Option | Meaning |",
    "|---|---|",
    "| url | where |",
    "",
    "```sh",
    "npm install transync",
    "```",
    "",
    "    indented code",
    "",
    "Setext heading",
    "--------------",
    "",
    "> A quote.",
    "",
  ].join("\n");

  it("sends the title, description, heading texts, paragraphs, list items and table; keeps the rest", () => {
    const split = splitMarkdown(page);
    expect(split.segments.map((s) => [s.kind, s.format, s.text])).toEqual([
      ["title", "plain", "Getting started"],
      ["description", "plain", "How to install it."],
      ["heading", "markdown", "Getting *started*"],
      ["paragraph", "markdown", "Install the package and run it.\nIt takes a minute."],
      ["list_item", "markdown", "Install"],
      ["list_item", "markdown", "Configure the `url`"],
      ["paragraph", "markdown", "| Option | Meaning |\n|---|---|\n| url | where |"],
      ["heading", "markdown", "Setext heading"],
      ["blockquote", "markdown", "> A quote."],
    ]);
    expect(split.segments.map((s) => s.key).slice(0, 2)).toEqual(["fm.title", "fm.description"]);
    expect(joinMarkdown(split, {})).toBe(page);
  });

  it("writes translations in place and keeps code, comments and unlisted front matter", () => {
    const split = splitMarkdown(page);
    const de = Object.fromEntries(split.segments.map((s) => [s.key, `DE ${s.text}`]));
    const out = joinMarkdown(split, de);
    expect(out).toContain('title: "DE Getting started"\ndescription: "DE How to install it."\ndate: 2024-05-01\ntags: [a, b]\n---');
    expect(out).toContain("# DE Getting *started*\n");
    expect(out).toContain("<!-- editors: keep this short -->");
    expect(out).toContain("1. DE Install\n2. DE Configure the `url`");
    expect(out).toContain("```sh\nnpm install transync\n```\n\n    indented code\n");
    expect(out).toContain("DE Setext heading\n--------------");
    // Another field list: only those fields are sent, and only string values.
    expect(
      splitMarkdown(page, { fields: ["tags", "date"] })
        .segments.filter((s) => s.field !== "body")
        .map((s) => s.key),
    ).toEqual(["fm.date"]);
  });

  it("gives a block that is re-wrapped the same key, and duplicates their own", () => {
    const a = splitMarkdown("One two\nthree.\n\nOne two three.\n").segments.map((s) => s.key);
    expect(a[1]).toBe(`${a[0]}.2`);
    expect(splitMarkdown("One two three.\n").segments[0].key).toBe(a[0]);
  });

  it("marks a draft in the front matter, adding one where there is none", () => {
    expect(markDraft("---\ntitle: x\n---\nBody\n")).toBe("---\ntitle: x\ndraft: true\n---\nBody\n");
    expect(markDraft("---\ndraft: false\n---\nBody\n")).toBe("---\ndraft: true\n---\nBody\n");
    expect(markDraft("Body\n")).toBe("---\ndraft: true\n---\nBody\n");
  });
});
