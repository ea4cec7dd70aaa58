// HTML → segments: the inner HTML of each innermost text block (p, h1–h6, li, td, th, dt, dd,
// figcaption, caption, blockquote, title, …). Comments, script, style, pre, code and everything
// between blocks are kept byte for byte and not sent. Attributes (alt, title) are not sent.
import { parseDocument } from "htmlparser2";
import { alignSplit, type PreviousSegment } from "./align.js";
import { contentKeys, fromRanges, joinParts, type Split, type SplitSegment, type Translations } from "./keys.js";

const BLOCKS = new Set([
  "p",
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "li",
  "td",
  "th",
  "dt",
  "dd",
  "figcaption",
  "caption",
  "blockquote",
  "title",
  "summary",
  "legend",
  "label",
  "button",
  "option",
  "address",
]);
const KEPT = new Set(["script", "style", "pre", "code", "template", "svg", "math", "textarea"]);

// The few fields of htmlparser2's DOM (domhandler) this file reads.
interface DomNode {
  type: string;
  name?: string;
  data?: string;
  startIndex: number | null;
  endIndex: number | null;
  children?: DomNode[];
}

function hasBlock(node: DomNode): boolean {
  return (node.children ?? []).some((c) => (c.name !== undefined && BLOCKS.has(c.name)) || hasBlock(c));
}

function hasText(node: DomNode): boolean {
  return (node.children ?? []).some((c) => (c.type === "text" && (c.data ?? "").trim() !== "") || (c.name !== undefined && !KEPT.has(c.name) && hasText(c)));
}

export interface HtmlOptions {
  /** The unit's current segments in the service: keys are lined up with them (see MarkdownOptions). */
  previous?: readonly PreviousSegment[];
}

/** Splits an HTML document or fragment; `joinHtml(split, translations)` gives it back. */
export function splitHtml(doc: string, options: HtmlOptions = {}): Split {
  const dom = parseDocument(doc, { withStartIndices: true, withEndIndices: true }) as unknown as DomNode;
  const key = contentKeys();
  const ranges: { start: number; end: number; segment: SplitSegment }[] = [];
  const visit = (node: DomNode) => {
    if (node.name !== undefined && KEPT.has(node.name)) return;
    if (node.name !== undefined && BLOCKS.has(node.name) && !hasBlock(node) && hasText(node)) {
      const kids = node.children ?? [];
      const start = kids[0].startIndex ?? 0;
      const end = (kids[kids.length - 1].endIndex ?? 0) + 1;
      const text = doc.slice(start, end);
      ranges.push({ start, end, segment: { key: key(node.name, text), text, format: "html", field: "body", kind: node.name } });
      return;
    }
    for (const child of node.children ?? []) visit(child);
  };
  visit(dom);
  return alignSplit(fromRanges(doc, ranges), options.previous);
}

/** The document with each segment's translation (its source text where none is given). */
export function joinHtml(split: Split, translations: Translations): string {
  return joinParts(split, translations);
}
