import { describe, expect, it } from "vitest";
import type { Format } from "../../src/limits";
import { checkHtmlTags } from "../../src/qa/html-tags.check";
import { qaInput } from "../helpers/qa";

describe("html_tags", () => {
  it.each<[string, string, Format]>([
    ["<p>Hello <b>world</b></p>", "<p>Hallo <b>Welt</b></p>", "html"],
    ['<a href="/en">Home</a>', '<a href="/de" title="Start">Start</a>', "html"],
    ["<p><b>A</b> and <i>B</i></p>", "<p><i>B</i> und <b>A</b></p>", "rich_text"],
    ["Line<br>break", "Zeilen<br/>umbruch", "html"],
    ["<p>Unclosed", "<p>Offen", "html"],
    ["<b>x</b>", "<i>x</i>", "plain"],
    ["<b>x</b>", "x", "markdown"],
  ])("passes %j → %j (%s)", (source, target, format) => {
    expect(checkHtmlTags(qaInput({ source, target, format }))).toBeNull();
  });

  it.each<[string, string, string]>([
    ["<p>Hello <b>world</b></p>", "<p>Hallo Welt</p>", "The HTML tags differ from the source: missing <b>, </b>."],
    ["<p>Hello</p>", "<p>Hallo <i>Welt</i></p>", "The HTML tags differ from the source: unexpected <i>, </i>."],
    ["<b>x</b>", "<strong>x</strong>", "The HTML tags differ from the source: missing <b>, </b>; unexpected <strong>, </strong>."],
    ["<b><i>x</i></b>", "<i><b>x</b></i>", "The HTML tags are nested differently than in the source."],
    ["<p><b>x</b> y</p>", "<p><b>x</p> y</b>", "The HTML tags are nested differently than in the source."],
    ["<p>A</p><p>B</p>", "<p>A<p>B</p></p>", "The HTML tags are nested differently than in the source."],
  ])("fails %j → %j", (source, target, message) => {
    expect(checkHtmlTags(qaInput({ source, target, format: "html" }))).toEqual({ code: "html_tags", severity: "error", message });
  });
});
