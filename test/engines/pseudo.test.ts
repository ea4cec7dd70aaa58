import { describe, expect, it } from "vitest";
import { createPseudoEngine, pseudoLocalizeText } from "../../src/engines/pseudo";
import type { EngineRequest, EngineSegment } from "../../src/engines/types";
import { FORMATS, type Format } from "../../src/limits";
import { runQA } from "../../src/qa";

const engine = createPseudoEngine();

function request(segments: EngineSegment[], targetLanguage = "de"): EngineRequest {
  return { sourceLanguage: "en", targetLanguage, formality: "default", glossary: [], segments };
}

async function translate(text: string, format: Format = "plain", targetLanguage = "de"): Promise<string> {
  const [out] = await engine.translate(request([{ text, format }], targetLanguage));
  return out;
}

const SAMPLES: Record<Format, string> = {
  plain: "Hello {name}, you have %d new messages (%1$s, %(count)s, :user, {{ total }}). See https://example.com/inbox.",
  html:
    '<p class="intro">Welcome <b>{name}</b> &amp; friends! Read <a href="https://example.com/docs" title="Docs">the docs</a>' +
    '<br><img src="a.png" alt="Logo"> &copy; 2024 <code>npm run dev</code> <!-- keep --></p>',
  rich_text: "<h2>Release notes</h2>\n<ul>\n  <li><strong>Faster</strong> sync for %s sites</li>\n  <li>Fixed <em>nested <b>tags</b></em></li>\n</ul>",
  markdown:
    '## Getting started\n\nRun `npm install`, then read [the guide](https://example.com/guide "Guide").\n\n' +
    "- **Bold** step with _emphasis_ and {count} items\n- ~~Removed~~ step\n\n> ![Screenshot](shot.png)\n\n```sh\nnpm run dev\n```",
};

describe("pseudo engine", () => {
  it("describes itself as the built-in offline engine", () => {
    expect(engine.name).toBe("pseudo");
    expect(engine.origin).toBe("mt");
    expect(engine.limits).toEqual({ maxSegments: 50, maxCharacters: 50_000 });
    expect(["de", "ja", "pt-BR", "zz-Unknown"].every((code) => engine.supports(code))).toBe(true);
  });

  it("is deterministic and ignores the target language", async () => {
    const text = SAMPLES.markdown;
    const first = await translate(text, "markdown", "de");
    expect(await translate(text, "markdown", "de")).toBe(first);
    expect(await translate(text, "markdown", "ja")).toBe(first);
  });

  it("accents letters and lengthens prose by about 30%", async () => {
    const text = "The quick brown fox jumps over the lazy dog while the band plays on.";
    const out = await translate(text);
    expect(out).toMatch(/[áéíóú]/);
    expect(out.length / text.length).toBeGreaterThan(1.25);
    expect(out.length / text.length).toBeLessThan(1.35);
  });

  it.each([["OK"], ["Hi"], ["a"], ["你好"], ["Привет"]])("changes the short text %j", async (text) => {
    const out = await translate(text);
    expect(out).not.toBe(text);
    expect(runQA({ source: text, target: out, format: "plain", maxLength: null, sourceLanguage: "en", targetLanguage: "de", glossary: [] }).map((i) => i.code)).not.toContain(
      "unchanged",
    );
  });

  it.each([["12,345"], ["{name}"], ["https://example.com"], [""], ["   "]])("leaves text without letters as it is: %j", async (text) => {
    expect(await translate(text)).toBe(text);
  });

  it("keeps whitespace and ending punctuation where they were", () => {
    expect(pseudoLocalizeText("  Hello, world!\n")).toMatch(/^ {2}\S.*!\n$/s);
  });

  it.each(FORMATS)("keeps %s markup, placeholders and URLs intact: QA finds nothing wrong", async (format) => {
    const source = SAMPLES[format];
    const out = await translate(source, format);
    expect(out).not.toBe(source);
    const issues = runQA({ source, target: out, format, maxLength: null, sourceLanguage: "en", targetLanguage: "de", glossary: [] });
    expect(issues).toEqual([]);
  });

  it("keeps the exact markup of every format", async () => {
    expect(await translate(SAMPLES.html, "html")).toContain('<a href="https://example.com/docs" title="Docs">');
    expect(await translate(SAMPLES.html, "html")).toContain("<code>npm run dev</code>");
    expect(await translate(SAMPLES.html, "html")).toContain("&amp;");
    const markdown = await translate(SAMPLES.markdown, "markdown");
    for (const kept of ["## ", "`npm install`", '](https://example.com/guide "Guide")', "**", "_", "~~", "![", "](shot.png)", "```sh\nnpm run dev\n```"]) {
      expect(markdown).toContain(kept);
    }
    expect(await translate(SAMPLES.plain)).toContain("{name}, ýóóú");
  });

  it("translates every segment of a request, in order", async () => {
    const segments: EngineSegment[] = FORMATS.map((format) => ({ text: SAMPLES[format], format }));
    const out = await engine.translate(request(segments));
    expect(out).toHaveLength(segments.length);
    for (const [i, segment] of segments.entries()) expect(out[i]).toBe(await translate(segment.text, segment.format));
  });
});
