// Strapi's blocks (the JSON rich text of a `blocks` field) ↔ an HTML document the kit's
// splitHtml cuts into one segment per paragraph, heading, quote and list item, with its inline
// marks (bold, italic, underline, strikethrough, code, links) as tags the engines keep. Code
// blocks and images are kept as they are and not sent. Each translatable block is written with
// `data-b="<path>"` (the kit's splitter keeps attributes), so a joined document is read back
// onto the same block structure.
import type { ParseDocument } from "./kit";

export interface TextNode {
  type: "text";
  text: string;
  bold?: boolean;
  italic?: boolean;
  underline?: boolean;
  strikethrough?: boolean;
  code?: boolean;
}
export interface LinkNode {
  type: "link";
  url: string;
  children: TextNode[];
}
export type Inline = TextNode | LinkNode;
export interface Block {
  type: string;
  level?: number;
  format?: string;
  children?: (Inline | Block)[];
  [other: string]: unknown;
}

const MARKS: [keyof TextNode, string][] = [
  ["bold", "strong"],
  ["italic", "em"],
  ["underline", "u"],
  ["strikethrough", "s"],
  ["code", "code"],
];
const TAG_MARK = new Map(MARKS.map(([mark, tag]) => [tag, mark]));

const escapeText = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
const escapeAttr = (text: string) => escapeText(text).replace(/"/g, "&quot;");

function inlineHtml(nodes: (Inline | Block)[] = []): string {
  return nodes
    .map((node) => {
      if (node.type === "link") return `<a href="${escapeAttr(String((node as LinkNode).url))}">${inlineHtml((node as LinkNode).children)}</a>`;
      if (node.type !== "text") return "";
      let html = escapeText((node as TextNode).text);
      // `code` innermost: the kit's splitter keeps <code> as it is, so inline code is not translated.
      for (const [mark, tag] of [...MARKS].reverse()) if ((node as TextNode)[mark]) html = `<${tag}>${html}</${tag}>`;
      return html;
    })
    .join("");
}

const TAG: Record<string, (b: Block) => string> = {
  paragraph: () => "p",
  heading: (b) => `h${Math.min(Math.max(Number(b.level) || 1, 1), 6)}`,
  quote: () => "blockquote",
  "list-item": () => "li",
};

/** The blocks as an HTML document: one element per translatable block, in document order. */
export function blocksToHtml(blocks: Block[]): string {
  const lines: string[] = [];
  const visit = (list: (Inline | Block)[], path: string) =>
    list.forEach((block, i) => {
      const at = path ? `${path}.${i}` : String(i);
      const tag = TAG[block.type]?.(block as Block);
      if (tag) lines.push(`<${tag} data-b="${at}">${inlineHtml((block as Block).children)}</${tag}>`);
      else if (block.type === "list") visit((block as Block).children ?? [], at);
    });
  visit(blocks, "");
  return `${lines.join("\n")}\n`;
}

interface DomNode {
  type: string;
  name?: string;
  data?: string;
  attribs?: Record<string, string>;
  children?: DomNode[];
}

function readInline(nodes: DomNode[], marks: Partial<TextNode>, out: Inline[]) {
  for (const node of nodes) {
    if (node.type === "text") {
      if (node.data) out.push({ type: "text", text: node.data, ...marks });
    } else if (node.name === "a") {
      const children: Inline[] = [];
      readInline(node.children ?? [], marks, children);
      out.push({ type: "link", url: node.attribs?.href ?? "", children: children.filter((c): c is TextNode => c.type === "text") });
    } else if (node.name === "br") {
      out.push({ type: "text", text: "\n", ...marks });
    } else {
      const mark = node.name ? TAG_MARK.get(node.name) : undefined;
      readInline(node.children ?? [], mark ? { ...marks, [mark]: true } : marks, out);
    }
  }
}

/** Each data-b element's inline content of an HTML document made by blocksToHtml (then translated), by path. */
export function readBlocksHtml(parseDocument: ParseDocument, html: string): Map<string, Inline[]> {
  const dom = parseDocument(html, { decodeEntities: true }) as unknown as DomNode;
  const out = new Map<string, Inline[]>();
  const visit = (node: DomNode) => {
    const path = node.attribs?.["data-b"];
    if (path !== undefined) {
      const inline: Inline[] = [];
      readInline(node.children ?? [], {}, inline);
      out.set(path, inline.length ? inline : [{ type: "text", text: "" }]);
      return;
    }
    for (const child of node.children ?? []) visit(child);
  };
  visit(dom);
  return out;
}

/** The blocks with each translatable block's inline content replaced by the one at its path (others as they were). */
export function replaceInline(blocks: Block[], byPath: Map<string, Inline[]>): Block[] {
  const visit = (list: (Inline | Block)[], path: string): (Inline | Block)[] =>
    list.map((block, i) => {
      const at = path ? `${path}.${i}` : String(i);
      if (TAG[block.type] && byPath.has(at)) return { ...(block as Block), children: byPath.get(at)! };
      if (block.type === "list") return { ...(block as Block), children: visit((block as Block).children ?? [], at) };
      return block;
    });
  return visit(blocks, "") as Block[];
}
