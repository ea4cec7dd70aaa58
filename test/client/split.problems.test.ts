// What a splitter reports instead of losing silently (issue 40): front matter that is not valid
// YAML (its title would vanish from the unit) and a NUL in a block (the service refuses it),
// each naming its line and block; the CLI turns them into per-file failures (client/src/cli/commands.ts).
import { describe, expect, it } from "vitest";
import { isAdapter } from "../../client/src/adapters.js";
import { splitFile } from "../../client/src/cli/files.js";
import { joinMarkdown, splitHtml, splitMarkdown } from "../../client/src/split/index.js";

describe("split problems", () => {
  it("reports front matter that is not valid YAML with its line and the fields it could not read", () => {
    const doc = "---\ntitle: Getting started\ndescription: [unclosed\n---\n\nBody text.\n";
    const split = splitMarkdown(doc);
    expect(split.problems).toHaveLength(1);
    expect(split.problems![0].message).toMatch(/^line \d+: the front matter is not valid YAML \(.+\), so its fields \(title, description\) cannot be read: fix it$/);
    expect(split.problems![0].line).toBeGreaterThanOrEqual(2);
    // The document still joins back byte for byte; the body is still split.
    expect(joinMarkdown(split, {})).toBe(doc);
    expect(split.segments.map((s) => s.text)).toEqual(["Body text."]);
    expect(splitMarkdown("---\ntitle: Fine\n---\n\nBody.\n").problems).toBeUndefined();
  });

  it("names the block and the line of a NUL, not a segment index", () => {
    const doc = "# Title\n\nFirst paragraph.\n\nSecond\nwith a \u0000 in its second line.\n";
    const split = splitMarkdown(doc);
    expect(split.problems).toEqual([
      {
        line: 6,
        key: split.segments[2].key,
        message: 'line 6: the paragraph "Second with a \\0 in its second line.…" contains U+0000 (NUL), which the service refuses: remove it',
      },
    ]);
    expect(splitHtml("<p>ok</p>\n<p>bad \u0000</p>").problems?.[0].message).toMatch(/^line 2: the p "bad \\0…" contains U\+0000/);
    // The CLI's file splitter carries them (push reports the file and does not send it).
    expect(splitFile("a.md", doc, ["title"]).problems).toHaveLength(1);
  });

  it("keeps the problem's key after keys are lined up with previous segments", () => {
    const before = splitMarkdown("Hello there friend of mine.\n").segments;
    const split = splitMarkdown("Hello there friend of mine\u0000.\n", { previous: before });
    expect(split.problems![0].key).toBe(before[0].key);
  });
});

describe("isAdapter", () => {
  it("passes the four adapter names and nothing else, so enabled_adapters needs no cast", () => {
    const enabled: string[] = ["hugo", "strapi", "wordpress"];
    const adapter = enabled.find(isAdapter);
    // Typed as the adapter union: assignable to UnitSnapshotIn.adapter without a cast.
    const unit: { adapter: "wordpress" | "drupal" | "wagtail" | "strapi" } | undefined = adapter ? { adapter } : undefined;
    expect(unit).toEqual({ adapter: "strapi" });
    for (const a of ["wordpress", "drupal", "wagtail", "strapi"]) expect(isAdapter(a)).toBe(true);
    for (const a of ["WordPress", "", null, 1, "static"]) expect(isAdapter(a)).toBe(false);
  });
});
