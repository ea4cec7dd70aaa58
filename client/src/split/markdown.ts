// Markdown → segments: one per top-level block (paragraph, heading text, list item, table,
// block quote, HTML block), front matter fields when listed. Code, HTML comments, thematic
// breaks, link definitions, unlisted front matter and the whitespace between blocks are kept
// byte for byte and not sent.
import type { RootContent } from "mdast";
import { fromMarkdown } from "mdast-util-from-markdown";
import { isScalar, parseDocument } from "yaml";
import { alignSplit, type PreviousSegment } from "./align.js";
import { contentKeys, encodeKeyPart, fromRanges, joinParts, type Split, type SplitProblem, type SplitSegment, type Translations } from "./keys.js";

export interface MarkdownOptions {
  /** Front matter fields sent as segments (string values only); default `title` and `description`. */
  fields?: string[];
  /**
   * The unit's current segments in the service (`previousSegments`): keys are lined up with them
   * (`alignKeys`), so an edited block keeps its key and its segment becomes stale. Without it,
   * each block's key comes from its own text.
   */
  previous?: readonly PreviousSegment[];
}

type Range = { start: number; end: number; segment: SplitSegment; quote?: boolean };

const FRONT_MATTER = /^---\r?\n([\s\S]*?\r?\n)?---[ \t]*(\r?\n|$)/;
const COMMENT_ONLY = /^\s*<!--[\s\S]*?-->\s*$/;

/** The front matter block at the start of a Markdown document (`---` … `---`), or null. */
export function frontMatter(doc: string): { start: number; end: number; yamlStart: number; yaml: string } | null {
  const m = FRONT_MATTER.exec(doc);
  if (!m) return null;
  const yamlStart = m[0].indexOf("\n") + 1;
  return { start: 0, end: m[0].length, yamlStart, yaml: m[1] ?? "" };
}

function frontMatterRanges(doc: string, fields: string[]): { ranges: Range[]; end: number; problems: SplitProblem[] } {
  const fm = frontMatter(doc);
  if (!fm) return { ranges: [], end: 0, problems: [] };
  const yaml = parseDocument(fm.yaml);
  const ranges: Range[] = [];
  if (yaml.errors.length) {
    // Not read at all: a title lost silently would remove its segment (and its translations) on the next push.
    const error = yaml.errors[0];
    const line = 1 + (error.linePos?.[0].line ?? 1);
    const what = error.message.split("\n")[0];
    return {
      ranges,
      end: fm.end,
      problems: [{ line, message: `line ${line}: the front matter is not valid YAML (${what}), so its fields (${fields.join(", ")}) cannot be read: fix it` }],
    };
  }
  for (const field of fields) {
    const node = yaml.get(field, true);
    if (!isScalar(node) || typeof node.value !== "string" || !node.range || node.value.trim() === "") continue;
    // Block scalars (| and >) are rewritten whole when translated: the range covers the indicator
    // too, but not the line break after the value, which stays with the kept bytes.
    const raw = fm.yaml.slice(node.range[0], node.range[1]);
    ranges.push({
      start: fm.yamlStart + node.range[0],
      end: fm.yamlStart + node.range[0] + raw.trimEnd().length,
      segment: { key: `fm.${encodeKeyPart(field)}`, text: node.value, format: "plain", field, kind: field },
      quote: true,
    });
  }
  ranges.sort((a, b) => a.start - b.start);
  return { ranges, end: fm.end, problems: [] };
}

const at = (n: { position?: { start: { offset?: number }; end: { offset?: number } } }) => ({
  start: n.position?.start.offset ?? 0,
  end: n.position?.end.offset ?? 0,
});

/** Splits a Markdown document; `joinMarkdown(split, translations)` gives it back. */
export function splitMarkdown(doc: string, options: MarkdownOptions = {}): Split {
  const fields = options.fields ?? ["title", "description"];
  const { ranges, end: bodyStart, problems } = frontMatterRanges(doc, fields);
  const body = doc.slice(bodyStart);
  const key = contentKeys();
  const block = (start: number, end: number, prefix: string, kind: string, format: SplitSegment["format"] = "markdown") => {
    const text = body.slice(start, end);
    if (text.trim() === "") return;
    ranges.push({ start: bodyStart + start, end: bodyStart + end, segment: { key: key(prefix, text), text, format, field: "body", kind } });
  };
  const visit = (node: RootContent) => {
    const { start, end } = at(node);
    switch (node.type) {
      case "paragraph":
        return block(start, end, "p", "paragraph");
      case "table":
        return block(start, end, "t", "table");
      case "blockquote":
        return block(start, end, "q", "blockquote");
      case "heading": {
        // The text only: `## ` and a setext underline stay as they are.
        if (node.children.length === 0) return;
        return block(at(node.children[0]).start, at(node.children[node.children.length - 1]).end, "h", "heading");
      }
      case "list":
        for (const item of node.children) {
          if (item.children.length === 0) continue;
          block(at(item.children[0]).start, at(item.children[item.children.length - 1]).end, "li", "list_item");
        }
        return;
      case "html":
        if (COMMENT_ONLY.test(node.value)) return;
        return block(start, end, "x", "html", "html");
      default:
        // code, thematicBreak, definition, …: kept, not sent.
        return;
    }
  };
  for (const node of fromMarkdown(body).children) visit(node);
  // Front matter keys (`fm.<field>`) are fixed by the field's name: never lined up.
  const split = alignSplit(fromRanges(doc, ranges), options.previous, { fixed: (k) => k.startsWith("fm.") });
  const all = [...problems, ...(split.problems ?? [])];
  return all.length ? { ...split, problems: all } : split;
}

/** The document with each segment's translation (its source text where none is given). */
export function joinMarkdown(split: Split, translations: Translations): string {
  return joinParts(split, translations);
}

/**
 * Marks a Markdown document as a draft: `draft: true` in its front matter (added, or an
 * existing `draft` value replaced), a front matter block added when there is none.
 */
export function markDraft(doc: string): string {
  const fm = frontMatter(doc);
  if (!fm) return `---\ndraft: true\n---\n${doc}`;
  const yaml = fm.yaml;
  const replaced = yaml.replace(/^draft:.*$/m, "draft: true");
  const next = replaced !== yaml ? replaced : `${yaml}draft: true\n`;
  return doc.slice(0, fm.yamlStart) + next + doc.slice(fm.yamlStart + yaml.length);
}
