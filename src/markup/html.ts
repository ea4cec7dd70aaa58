/**
 * A forgiving HTML tag scanner. Segments are fragments written by editors, often not
 * well-formed, so nothing here rejects input: a `<` that starts no tag is text.
 */

export interface HtmlTag {
  start: number;
  end: number;
  /** `self`: a void element (`<br>`) or one written self-closing (`<x/>`). `comment` covers doctype, CDATA and processing instructions too. */
  type: "open" | "close" | "self" | "comment";
  /** Lowercase element name; empty for comments. */
  name: string;
}

export const VOID_ELEMENTS = new Set(["area", "base", "br", "col", "embed", "hr", "img", "input", "keygen", "link", "meta", "param", "source", "track", "wbr"]);

/** Elements whose content is not markup: their text is skipped up to the closing tag. */
const RAW_TEXT_ELEMENTS = new Set(["script", "style", "textarea", "title"]);

const NAME = String.raw`[A-Za-z][A-Za-z0-9:_.\-]*`;
const ATTRIBUTE = String.raw`\s+[^\s"'<>/=]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s"'=<>\x60]+))?`;
const OPEN_TAG_RE = new RegExp(String.raw`<(${NAME})((?:${ATTRIBUTE})*)\s*(/?)>`, "y");
// Attributes may be written without a separating space after a quoted value.
const LOOSE_OPEN_TAG_RE = new RegExp(String.raw`<(${NAME})(\s[^<>]*?|)(/?)>`, "y");
const CLOSE_TAG_RE = new RegExp(`</(${NAME})[^<>]*>`, "y");
const ATTRIBUTE_RE = /([^\s"'>/=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+)))?/g;

function endOf(text: string, from: number, terminator: string): number {
  const at = text.indexOf(terminator, from);
  return at < 0 ? text.length : at + terminator.length;
}

/** Tags and comments in document order. */
export function findHtmlTags(text: string): HtmlTag[] {
  const tags: HtmlTag[] = [];
  let i = text.indexOf("<");
  while (i >= 0 && i < text.length) {
    let tag: HtmlTag | null = null;
    if (text.startsWith("<!--", i)) {
      tag = { start: i, end: endOf(text, i + 4, "-->"), type: "comment", name: "" };
    } else if (text.startsWith("<![CDATA[", i)) {
      tag = { start: i, end: endOf(text, i + 9, "]]>"), type: "comment", name: "" };
    } else if (/^<[!?][A-Za-z]/.test(text.slice(i, i + 3))) {
      tag = { start: i, end: endOf(text, i + 2, ">"), type: "comment", name: "" };
    } else if (text[i + 1] === "/") {
      CLOSE_TAG_RE.lastIndex = i;
      const m = CLOSE_TAG_RE.exec(text);
      if (m) tag = { start: i, end: i + m[0].length, type: "close", name: m[1].toLowerCase() };
    } else {
      OPEN_TAG_RE.lastIndex = i;
      LOOSE_OPEN_TAG_RE.lastIndex = i;
      const m = OPEN_TAG_RE.exec(text) ?? LOOSE_OPEN_TAG_RE.exec(text);
      if (m) {
        const name = m[1].toLowerCase();
        const self = m[3] === "/" || VOID_ELEMENTS.has(name);
        tag = { start: i, end: i + m[0].length, type: self ? "self" : "open", name };
      }
    }
    if (!tag) {
      i = text.indexOf("<", i + 1);
      continue;
    }
    tags.push(tag);
    i = tag.end;
    if (tag.type === "open" && RAW_TEXT_ELEMENTS.has(tag.name)) {
      const close = new RegExp(`</${tag.name}`, "gi");
      close.lastIndex = i;
      i = close.exec(text)?.index ?? text.length;
    } else {
      i = text.indexOf("<", i);
    }
  }
  return tags;
}

/** The attributes of one tag's text, names lowercased. */
export function tagAttributes(tagText: string): Map<string, string> {
  const attributes = new Map<string, string>();
  const inner = tagText.replace(/^<\/?[^\s/>]+/, "").replace(/\/?>$/, "");
  for (const m of inner.matchAll(ATTRIBUTE_RE)) {
    attributes.set(m[1].toLowerCase(), m[2] ?? m[3] ?? m[4] ?? "");
  }
  return attributes;
}
