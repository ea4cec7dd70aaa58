import { describe, expect, it } from "vitest";
import { findUrls } from "../../src/markup/urls";

const found = (text: string, html = false) => findUrls(text, html).map((s) => text.slice(s.start, s.end));

describe("findUrls", () => {
  it.each([
    ["Visit https://example.com.", ["https://example.com"]],
    ["(see http://example.com/a?b=1&c=2)", ["http://example.com/a?b=1&c=2"]],
    ["Wiki https://en.wikipedia.org/wiki/Foo_(bar) page", ["https://en.wikipedia.org/wiki/Foo_(bar)"]],
    ["Mail mailto:team@example.com, or call", ["mailto:team@example.com"]],
    ["Two: https://a.example/x and https://b.example/y!", ["https://a.example/x", "https://b.example/y"]],
    ['<a href="https://example.com/x">x</a>', ["https://example.com/x"]],
    ["Ends a question https://example.com/faq?", ["https://example.com/faq"]],
  ])("finds the URLs in %j", (text, expected) => {
    expect(found(text)).toEqual(expected);
  });

  it("ends a URL at an escaped quote in HTML", () => {
    expect(found("&quot;https://example.com/a&quot; and https://x.org/?a=1&amp;b=2", true)).toEqual(["https://example.com/a", "https://x.org/?a=1&amp;b=2"]);
  });

  it.each([["No links here"], ["ftp://example.com is not handled"], ["A bare https:// scheme"], ["xhttps://nope"]])("finds none in %j", (text) => {
    expect(found(text)).toEqual([]);
  });
});
