import { describe, expect, it } from "vitest";
import type { Format } from "../../src/limits";
import { MarkupError, type ProtectMode, protect } from "../../src/markup/protect";
import { runQA } from "../../src/qa";

const MODES: ProtectMode[] = ["text", "html"];

/** Samples of every format, with each kind of markup the service must carry through an engine. */
const SAMPLES: [Format, string][] = [
  ["plain", "Hello {name}, you have %d new messages. Open https://example.com/inbox?a=1&b=2 now."],
  ["plain", "Line one with %1$s\n\nLine two with %(count)s and :user\n  indented {{ total }}"],
  ["plain", 'Tom & Jerry <3 ⟦1⟧ are "friends"'],
  ["plain", "  padded with spaces and a newline\n"],
  [
    "html",
    '<p class="lead">Hello <b>{name}</b>, read <a href="https://example.com/docs" title="Docs">the docs</a>.</p>' +
      "<ul><li>One &amp; two</li><li>Three&nbsp;four &copy; &hearts;</li></ul>" +
      '<!-- editor note --><br><img src="x.png" alt="A cat"><code>let x = 1 < 2;</code>' +
      '<span translate="no">BrandName</span> %s',
  ],
  ["html", "<p>Unclosed paragraph<p>and a stray closer</b> with <x-custom/> element"],
  ["rich_text", "<h2>Title</h2>\n<p>Text with <em>emphasis</em> and <strong>strong <em>nested</em></strong> words.</p>"],
  [
    "markdown",
    '## Getting started\n\nRun `npm install` and open [the guide](https://example.com/guide "Guide").\n\n' +
      "- **Bold** item with _emphasis_\n- ~~Old~~ item {count}\n  1. nested step\n\n" +
      "> Quote with ![an image](img.png)\n\n```sh\nnpm run dev\n```\n\nEscaped \\*star\\* and 2 * 3 & 4 < 5",
  ],
];

/** A text-mode engine that translates: upper-cases everything but tokens. */
const shoutText = (sent: string) =>
  sent
    .split(/(⟦\d+⟧)/)
    .map((part, i) => (i % 2 ? part : part.toUpperCase()))
    .join("");

/** An HTML-mode engine that translates: upper-cases text outside tags and outside translate="no" spans. */
function shoutHtml(sent: string): string {
  let protectedDepth = 0;
  return sent
    .split(/(<[^>]+>)/)
    .map((part) => {
      if (part.startsWith("<")) {
        if (/translate="no"/.test(part)) protectedDepth++;
        else if (part === "</span>" && protectedDepth > 0) protectedDepth--;
        return part;
      }
      // Entities stay as entities; letters change.
      return protectedDepth > 0 ? part : part.replace(/&[a-z]+;|[a-z]/g, (c) => (c.length > 1 ? c : c.toUpperCase()));
    })
    .join("");
}

function qaErrors(source: string, target: string, format: Format) {
  return runQA({ source, target, format, maxLength: null, sourceLanguage: "en", targetLanguage: "de", glossary: [] }).filter((issue) => issue.severity === "error");
}

describe("protect → engine → restore", () => {
  for (const mode of MODES) {
    describe(`${mode} mode`, () => {
      it.each(SAMPLES)("an engine that changes nothing gives back the %s source byte for byte", (format, source) => {
        const protectedText = protect(source, format, mode);
        expect(protectedText.restore(protectedText.text)).toBe(source);
      });

      it.each(SAMPLES)("an engine that translates keeps all %s markup intact", (format, source) => {
        const protectedText = protect(source, format, mode);
        const translated = mode === "text" ? shoutText(protectedText.text) : shoutHtml(protectedText.text);
        const restored = protectedText.restore(translated);
        expect(restored).not.toBe(source);
        expect(qaErrors(source, restored, format)).toEqual([]);
      });

      it.each(SAMPLES)("hides every %s placeholder and URL from the engine", (format, source) => {
        const sent = protect(source, format, mode).text;
        const visibleToEngine = mode === "text" ? sent : sent.replace(/<span translate="no"[^>]*>[^<]*<\/span>/g, "");
        for (const hidden of ["{name}", "%d", "%s", "https://example.com", "{count}", "npm install", "{{ total }}"]) {
          expect(visibleToEngine).not.toContain(hidden);
        }
      });
    });
  }

  describe.each(MODES)("each placeholder style in %s mode", (mode) => {
    const STYLES = ["{name}", "{0}", "{{name}}", "{{ user.name }}", "%s", "%d", "%1$s", "%(name)s", ":name", "${name}", "https://x.org/a?b=1"];
    it.each(STYLES)("%s comes back byte-identical, also when the engine moves it", (placeholder) => {
      const source = `Hello ${placeholder}, welcome`;
      const p = protect(source, "plain", mode);
      expect(p.text).not.toContain(mode === "text" ? placeholder : `Hello ${placeholder}`);
      expect(p.restore(p.text)).toBe(source);
      const token = mode === "text" ? "⟦1⟧" : /<span[^>]*>.*?<\/span>/.exec(p.text)![0];
      expect(p.restore(`${token} willkommen, hallo`)).toBe(`${placeholder} willkommen, hallo`);
    });
  });

  it("accepts tokens the engine moved, padded or spaced", () => {
    const source = "From {start} to {end}";
    const p = protect(source, "plain", "text");
    expect(p.text).toBe("From ⟦1⟧ to ⟦2⟧");
    expect(p.restore("Bis ⟦ 2 ⟧ ab ⟦1⟧")).toBe("Bis {end} ab {start}");
    expect(p.restore("⟦２⟧⟦１⟧")).toBe("{end}{start}");
  });

  it("keeps markdown emphasis hugging its words when an engine spaces the tokens", () => {
    const text = protect("A **bold** word and [a link](https://x.org).", "markdown", "text");
    expect(text.text).toBe("A ⟦1⟧bold⟦2⟧ word and ⟦3⟧a link⟦4⟧.");
    expect(text.restore("Ein ⟦1⟧ fettes ⟦2⟧ Wort und ⟦3⟧ ein Link ⟦4⟧.")).toBe("Ein **fettes** Wort und [ein Link](https://x.org).");
    const html = protect("A **bold** word", "markdown", "html");
    expect(html.text).toBe('A <strong id="m1">bold</strong> word');
    expect(html.restore('Ein<strong id="m1"> fettes </strong>Wort')).toBe("Ein **fettes** Wort");
  });

  it("keeps line markers and line breaks whatever spaces an engine adds", () => {
    const source = "## Title\n- one\n- two";
    const text = protect(source, "markdown", "text");
    expect(text.restore(text.text.replace(/⟦\d+⟧/g, " $& "))).toBe(source);
    const html = protect(source, "markdown", "html");
    expect(html.restore(html.text.replace(/<br id="m\d+">/g, " $& "))).toBe(source);
  });

  it("restores HTML elements an engine reordered, each with its own attributes", () => {
    const source = '<a href="/one">one</a> and <a href="/two">two</a>';
    const p = protect(source, "html", "html");
    expect(p.text).toBe('<a id="m1">one</a> and <a id="m3">two</a>');
    expect(p.restore('<a id="m3">zwei</a> und <a id="m1">eins</a>')).toBe('<a href="/two">zwei</a> und <a href="/one">eins</a>');
  });

  it("reads the HTML an engine writes back in its own style", () => {
    const p = protect("It's {name}\nnext line", "plain", "html");
    expect(p.text).toBe(`It's <span translate="no" class="notranslate" id="m1">{name}</span><br id="m2">next line`);
    expect(p.restore(`C&#39;est <SPAN id='m1' class="notranslate" translate="no">{nom}</SPAN> <br id="m2"/> ligne`)).toBe("C'est {name}\nligne");
  });

  it("takes the spaces around a line break into its <br> (plain and markdown in HTML mode), and gives them back", () => {
    for (const format of ["plain", "markdown"] as const) {
      const source = "one \t \n  two\n\nthree";
      const p = protect(source, format, "html");
      expect(p.text).toBe('one<br id="m1">two<br id="m2">three');
      expect(p.restore('eins<br id="m1">zwei<br id="m2">drei')).toBe("eins \t \n  zwei\n\ndrei");
    }
    // A long run of spaces with no line break stays text, and costs no more than its length.
    expect(protect(`a${" ".repeat(50_000)}b`, "plain", "html").text).toBe(`a${" ".repeat(50_000)}b`);
  });

  it("drops a closing tag an engine added for an element the source left open", () => {
    const p = protect("<p>Open paragraph", "html", "html");
    expect(p.restore('<p id="m1">Offener Absatz</p>')).toBe("<p>Offener Absatz");
  });

  it("keeps a reference to a token bracket as a token", () => {
    const p = protect("<b>&#10214;x&#10215;</b>", "html", "text");
    expect(p.text).toBe("⟦1⟧⟦2⟧x⟦3⟧⟦4⟧");
    expect(p.restore(p.text)).toBe("<b>&#10214;x&#10215;</b>");
  });

  it("escapes text a text engine returns, as HTML needs it", () => {
    const p = protect("<b>Tom &amp; Jerry</b>", "html", "text");
    expect(p.text).toBe("⟦1⟧Tom & Jerry⟦2⟧");
    expect(p.restore("⟦1⟧Tom & Jerry <3 &Co⟦2⟧")).toBe("<b>Tom &amp; Jerry <3 &amp;Co</b>");
    expect(p.restore("⟦1⟧a<b&amp;c⟦2⟧")).toBe("<b>a&lt;b&amp;c</b>");
  });

  it("keeps leading and trailing whitespace away from the engine", () => {
    const p = protect("\n  Hello {name}  \n", "plain", "html");
    expect(p.text).toBe('Hello <span translate="no" class="notranslate" id="m1">{name}</span>');
    expect(p.restore(' Hallo <span id="m1"></span> ')).toBe("\n  Hallo {name}  \n");
  });

  it("needs no tokens for text without markup", () => {
    expect(protect("Just words.", "plain", "html").text).toBe("Just words.");
    expect(protect("Just words.", "markdown", "text").text).toBe("Just words.");
  });

  describe("token loss", () => {
    const source = "Hello {name}, see <b>https://x.org</b>";
    it.each<[ProtectMode, (sent: string) => string, RegExp]>([
      ["text", (s) => s.replace("⟦1⟧", ""), /lost ⟦1⟧/],
      ["text", (s) => s.replace("⟦1⟧", "⟦1⟧ ⟦1⟧"), /repeated ⟦1⟧/],
      ["text", (s) => `${s} ⟦9⟧`, /not in the source: ⟦9⟧/],
      ["text", (s) => s.replace("⟦1⟧", "⟦1"), /damaged token/],
      ["html", (s) => s.replace(/<span[^>]*id="m1"[^>]*>[^<]*<\/span>/, ""), /lost "\{name\}" \(id m1\)/],
      ["html", (s) => s.replace("</b>", ""), /lost "<\/b>"/],
      ["html", (s) => `${s} <span translate="no" class="notranslate" id="m1">{name}</span>`, /repeated "\{name\}" \(id m1\)/],
      ["html", (s) => `${s} <i>new</i>`, /not in the source: <i>/],
      ["html", (s) => `${s} </p>`, /closing tag that matches nothing/],
      ["html", (s) => s.replace(/(id="m1">[^<]*)<\/span>/, "$1"), /unclosed/],
    ])("in %s mode throws MarkupError", (mode, damage, message) => {
      const p = protect(source, "html", mode);
      const damaged = damage(p.text);
      expect(() => p.restore(damaged)).toThrow(MarkupError);
      expect(() => p.restore(damaged)).toThrow(message);
    });

    it.each(MODES)("is detected for every format in %s mode", (mode) => {
      for (const [format, text] of SAMPLES) {
        const p = protect(text, format, mode);
        const withoutFirstToken = mode === "text" ? p.text.replace(/⟦\d+⟧/, "") : p.text.replace(/<(?!\/)[^>]*id="m\d+"[^>]*>/, "");
        if (withoutFirstToken === p.text) continue;
        expect(() => p.restore(withoutFirstToken), `${format}: ${text}`).toThrow(MarkupError);
      }
    });
  });
});
