// The splitters' table (client/src/split/splitters.ts SPLITTERS): every kind it names splits and
// joins back, a kind it does not name is refused with the list of those it does (the CLI used to
// split any other file as Markdown without a word), and JSON reports what it cannot read like the others.
import { describe, expect, it } from "vitest";
import { UsageError } from "../../client/src/cli/config.js";
import { splitFile } from "../../client/src/cli/files.js";
import { SPLITTERS, splitJson, splitterFor } from "../../client/src/split/index.js";

/** A document of each kind, by extension: a new line in SPLITTERS without one here fails the round trip below. */
const SAMPLES: Record<string, string> = {
  ".md": "---\ntitle: Guide\n---\n\n# Install\n\nFirst *paragraph*.\n\n- one\n- two\n",
  ".markdown": "Some text.\n\n> A quote.\n",
  ".html": "<!doctype html>\n<html><body>\n<h1>Hello <em>world</em></h1>\n<p>First.</p>\n</body></html>\n",
  ".htm": "<p>One</p><div><p>Two</p></div>",
  ".json": `${JSON.stringify({ nav: { home: "Home", items: [{ label: "Docs" }] }, count: 3 }, null, 2)}\n`,
};
const KNOWN = ".md, .markdown, .html, .htm, .json";

describe("SPLITTERS", () => {
  it("refuses a kind it does not know with an error naming the kinds it knows", () => {
    expect(() => splitterFor("content/config.yaml")).toThrow(`content/config.yaml: no splitter for .yaml files: the kit splits ${KNOWN}`);
    expect(() => splitterFor("content/README")).toThrow(`content/README: no splitter for files without an extension: the kit splits ${KNOWN}`);
    // Not a property of the table's prototype either.
    expect(() => splitterFor("a.constructor")).toThrow("no splitter for .constructor files");
    // The CLI's file splitter makes it a usage error (exit code 2), and never splits it as Markdown.
    expect(() => splitFile("content/config.yaml", "title: Hello\n", ["title"])).toThrow(UsageError);
    expect(() => splitFile("content/config.yaml", "title: Hello\n", ["title"])).toThrow(`the kit splits ${KNOWN}`);
    // The extension's case does not matter.
    expect(splitterFor("GUIDE.MD")).toBe(SPLITTERS[".md"]);
  });

  it.each(Object.keys(SPLITTERS))("%s splits and joins back to the same document, and joins translations in", (extension) => {
    const doc = SAMPLES[extension];
    expect(doc, `a sample ${extension} document in SAMPLES`).toBeTypeOf("string");
    const splitter = SPLITTERS[extension];
    const split = splitter.split(doc);
    expect(split.problems).toBeUndefined();
    expect(split.segments.length).toBeGreaterThan(0);
    expect(splitter.join(split, {})).toBe(doc);
    const translated = splitter.join(split, Object.fromEntries(split.segments.map((s) => [s.key, `«${s.key}»`])));
    expect(splitter.split(translated).segments.map((s) => s.text)).toEqual(split.segments.map((s) => `«${s.key}»`));
    // The CLI joins with the same splitter, marking a draft where the kind can say so.
    const file = splitFile(`content/page${extension}`, doc, ["title"]);
    expect(file.segments).toEqual(split.segments);
    expect(file.join({})).toBe(splitter.draft ? splitter.draft(doc) : doc);
  });

  it("marks Markdown's translated files as drafts, and only Markdown's", () => {
    expect(splitFile("a.md", SAMPLES[".md"], ["title"]).join({})).toMatch(/^---\ntitle: Guide\ndraft: true\n---\n/);
    expect(splitFile("a.html", SAMPLES[".html"], []).join({})).toBe(SAMPLES[".html"]);
  });
});

describe("splitJson", () => {
  it("reports a document that is not JSON as a problem naming its line, not an exception", () => {
    const doc = '{\n  "title": "Hello",\n  "body": "World"\n  "extra": 1\n}\n';
    const split = splitJson(doc);
    expect(split.segments).toEqual([]);
    expect(split.problems).toHaveLength(1);
    expect(split.problems![0].line).toBe(4);
    expect(split.problems![0].message).toMatch(/^line 4: not valid JSON \(.+\)$/);
    // The CLI carries it as the file's problem (push reports the file and does not send it).
    expect(splitFile("messages.json", doc, []).problems).toEqual(split.problems);
  });

  it("names the line and the key of a value holding a NUL", () => {
    const doc = '{\n  "a": "fine",\n  "b": "bad \\u0000 one",\n  "c": { "d": "also \\u0000" }\n}\n';
    const split = splitJson(doc);
    expect(split.segments.map((s) => s.key)).toEqual(["a", "b", "c.d"]);
    expect(split.problems).toEqual([
      { line: 3, key: "b", message: "line 3: the value of b contains U+0000 (NUL), which the service refuses: remove it" },
      { line: 4, key: "c.d", message: "line 4: the value of c.d contains U+0000 (NUL), which the service refuses: remove it" },
    ]);
  });
});
