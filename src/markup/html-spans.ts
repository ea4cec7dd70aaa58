import { ENTITY_RE } from "./entities";
import { findHtmlTags, type HtmlTag, tagAttributes, VOID_ELEMENTS } from "./html";
import type { Span } from "./span";

/** Elements whose content is code or drawing, never prose: kept whole. */
const UNTRANSLATABLE = new Set(["code", "kbd", "samp", "script", "style", "svg", "math"]);

/** Whether an element asks not to be translated, the way DeepL, Google and Azure read it. */
function keepsContent(text: string, tag: HtmlTag): boolean {
  if (UNTRANSLATABLE.has(tag.name)) return true;
  const attributes = tagAttributes(text.slice(tag.start, tag.end));
  return attributes.get("translate")?.toLowerCase() === "no" || /(?:^|\s)notranslate(?:\s|$)/.test(attributes.get("class") ?? "");
}

/** For each opening tag, the index of the tag that closes it, counting nested elements of the same name. */
function sameNameCloses(tags: HtmlTag[]): Map<number, number> {
  const closes = new Map<number, number>();
  const open = new Map<string, number[]>();
  tags.forEach((tag, i) => {
    if (tag.type === "open") {
      const stack = open.get(tag.name) ?? [];
      stack.push(i);
      open.set(tag.name, stack);
    } else if (tag.type === "close") {
      const opener = open.get(tag.name)?.pop();
      if (opener !== undefined) closes.set(opener, i);
    }
  });
  return closes;
}

/**
 * The tags of an HTML fragment as spans. An opening tag and the tag that closes it share a
 * pair number (the opener's offset), found the way browsers recover from sloppy markup: a
 * closing tag closes the nearest open element of its name, leaving elements opened inside it
 * unpaired. A closing tag that closes nothing is an opaque atom.
 */
export function htmlTagSpans(text: string): Span[] {
  const tags = findHtmlTags(text);
  const closes = sameNameCloses(tags);
  const spans: Span[] = [];
  const open: { name: string; span: Span }[] = [];
  const openCount = new Map<string, number>();
  for (let i = 0; i < tags.length; i++) {
    const tag = tags[i];
    const { start, end, name } = tag;
    if (tag.type === "comment") {
      spans.push({ start, end, kind: "comment", role: "atom" });
    } else if (tag.type === "self") {
      // `<x/>` on a non-void element is read as an opening tag by HTML parsers, so engines
      // would see an element that never closes: show it to them as an atom instead.
      spans.push({ start, end, kind: "tag", role: VOID_ELEMENTS.has(name) ? "void" : "atom", element: name });
    } else if (tag.type === "open") {
      const close = keepsContent(text, tag) ? closes.get(i) : undefined;
      if (close !== undefined) {
        spans.push({ start, end: tags[close].end, kind: "raw", role: "atom" });
        i = close;
        continue;
      }
      const span: Span = { start, end, kind: "tag", role: "open", element: name };
      spans.push(span);
      open.push({ name, span });
      openCount.set(name, (openCount.get(name) ?? 0) + 1);
    } else {
      if (!openCount.get(name)) {
        spans.push({ start, end, kind: "tag", role: "atom" });
        continue;
      }
      const at = open.findLastIndex((o) => o.name === name);
      const opener = open[at].span;
      for (const closed of open.splice(at)) openCount.set(closed.name, openCount.get(closed.name)! - 1);
      opener.pair = opener.start;
      spans.push({ start, end, kind: "tag", role: "close", element: name, pair: opener.pair });
    }
  }
  return spans;
}

/** Character references (`&amp;`, `&#8217;` …) as atoms. */
export function entitySpans(text: string): Span[] {
  return Array.from(text.matchAll(ENTITY_RE), (m) => ({
    start: m.index,
    end: m.index + m[0].length,
    kind: "entity" as const,
    role: "atom" as const,
  }));
}

/** What a reader sees of an HTML fragment: tags, comments, scripts and styles removed, references left for the caller to decode. */
export function stripTags(text: string): string {
  let out = "";
  let at = 0;
  let hiddenUntilClose: string | null = null;
  for (const tag of findHtmlTags(text)) {
    if (hiddenUntilClose === null) out += text.slice(at, tag.start);
    if (hiddenUntilClose === null && tag.type === "open" && (tag.name === "script" || tag.name === "style")) {
      hiddenUntilClose = tag.name;
    } else if (tag.type === "close" && tag.name === hiddenUntilClose) {
      hiddenUntilClose = null;
    }
    at = tag.end;
  }
  return hiddenUntilClose === null ? out + text.slice(at) : out;
}
