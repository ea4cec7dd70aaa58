import { describe, expect, it } from "vitest";
import { findHtmlTags, tagAttributes } from "../../src/markup/html";
import { htmlTagSpans, stripTags } from "../../src/markup/html-spans";
import { visibleText } from "../../src/markup/scan";

const tags = (text: string) => findHtmlTags(text).map((t) => `${t.type}:${t.name}:${text.slice(t.start, t.end)}`);

describe("findHtmlTags", () => {
  it.each([
    ["<p>Hi</p>", ["open:p:<p>", "close:p:</p>"]],
    ["<a href=\"x>y\" title='q'>l</a>", ["open:a:<a href=\"x>y\" title='q'>", "close:a:</a>"]],
    ["a<br>b<br/>c<img src=x />", ["self:br:<br>", "self:br:<br/>", "self:img:<img src=x />"]],
    ["<x-widget/>", ["self:x-widget:<x-widget/>"]],
    ["<!-- note --><!DOCTYPE html><![CDATA[x<y]]>", ["comment::<!-- note -->", "comment::<!DOCTYPE html>", "comment::<![CDATA[x<y]]>"]],
    ["<script>if (a<b) x()</script>", ["open:script:<script>", "close:script:</script>"]],
    ["<P CLASS=x>Hi</P >", ["open:p:<P CLASS=x>", "close:p:</P >"]],
    ['<a href="x"title="y">l</a>', ['open:a:<a href="x"title="y">', "close:a:</a>"]],
  ])("tokenizes %j", (text, expected) => {
    expect(tags(text)).toEqual(expected);
  });

  it.each([["a < b and c > d"], ["1 <2"], ["<>"], ["< p>"]])("treats %j as text", (text) => {
    expect(tags(text)).toEqual([]);
  });

  it("reads attributes", () => {
    expect(Object.fromEntries(tagAttributes(`<span translate="no" class='a notranslate' data-x=1 hidden>`))).toEqual({
      translate: "no",
      class: "a notranslate",
      "data-x": "1",
      hidden: "",
    });
  });
});

describe("htmlTagSpans", () => {
  const spans = (text: string) => htmlTagSpans(text).map((s) => ({ text: text.slice(s.start, s.end), kind: s.kind, role: s.role, pair: s.pair }));

  it("pairs an opener with its closer", () => {
    const [open, b, bClose, close] = spans("<p><b>x</b></p>");
    expect(open.pair).toBe(close.pair);
    expect(b.pair).toBe(bClose.pair);
    expect(open.pair).not.toBe(b.pair);
    expect([open.role, close.role]).toEqual(["open", "close"]);
  });

  it("leaves elements without a closer unpaired and turns stray closers into atoms", () => {
    expect(spans("<p>a<li>b</p></b>")).toEqual([
      { text: "<p>", kind: "tag", role: "open", pair: 0 },
      { text: "<li>", kind: "tag", role: "open", pair: undefined },
      { text: "</p>", kind: "tag", role: "close", pair: 0 },
      { text: "</b>", kind: "tag", role: "atom", pair: undefined },
    ]);
  });

  it.each([
    ["<code>let <b>x</b></code>"],
    ['<span translate="no">Brand</span>'],
    ['<span class="x notranslate">Brand <span>Name</span></span>'],
    ["<script>var a = '<b>';</script>"],
  ])("keeps %j whole", (text) => {
    expect(spans(text)).toEqual([{ text, kind: "raw", role: "atom", pair: undefined }]);
  });

  it("shows void elements as void and self-closed others as atoms", () => {
    expect(spans("<br><x/>").map((s) => s.role)).toEqual(["void", "atom"]);
  });
});

describe("visible text", () => {
  it.each([
    ["<p>Tom &amp; <b>Jerry</b></p><!-- c --><script>x</script><style>p{}</style>", "Tom & Jerry"],
    ["&lt;b&gt; &copy; &#8364; &#x41; &unknown;", "<b> © € A &unknown;"],
  ])("of %j is %j", (html, visible) => {
    expect(visibleText(html, "html")).toBe(visible);
    expect(visibleText(html, "rich_text")).toBe(visible);
  });

  it("is the whole text for other formats", () => {
    expect(visibleText("<b>x</b> &amp;", "markdown")).toBe("<b>x</b> &amp;");
  });

  it("strips tags", () => {
    expect(stripTags("a<br>b")).toBe("ab");
  });
});
