// Texts longer than one engine request allows are translated in pieces: split at paragraph
// boundaries first, then at sentence boundaries, and joined back with the very separators
// that stood between them, so everything outside the translated pieces stays byte-exact.
import type { Format } from "../limits";

/** Pieces to translate and the separators between them: text = pieces[0] + separators[0] + pieces[1] + … */
export interface SplitText {
  pieces: string[];
  separators: string[];
}

/** A blank line (any whitespace around it) ends a paragraph in every format. */
const PARAGRAPH_BREAK = /[^\S\n]*\n[^\S\n]*\n\s*/g;
/** In HTML, the end of a block element ends a paragraph too (the whitespace after it is the separator). */
const BLOCK_END = /<\/(?:p|div|h[1-6]|li|ul|ol|blockquote|pre|table|tr|section|article|header|footer|figure|dl|dd|dt)\s*>\s*/gi;
/** A sentence ends with . ! ? (or their CJK forms), optionally closed by a quote or bracket, then whitespace. */
const SENTENCE_END = /(?<=[.!?…](?:["'”’)\]»]*))\s+|(?<=[。！？])\s*/gu;

/** Splits `text` at every match of `pattern` into units [content, separator after it]. */
function cut(text: string, pattern: RegExp, keepMatchInContent: boolean): { content: string; separator: string }[] {
  const units: { content: string; separator: string }[] = [];
  let start = 0;
  for (const m of text.matchAll(pattern)) {
    if (m[0] === "" && !keepMatchInContent) continue;
    const at = m.index!;
    if (keepMatchInContent) {
      // The closing tag belongs to its paragraph; only the whitespace after it separates.
      const tagEnd = at + m[0].trimEnd().length;
      const end = at + m[0].length;
      if (end >= text.length) break;
      units.push({ content: text.slice(start, tagEnd), separator: text.slice(tagEnd, end) });
      start = end;
    } else {
      if (at === 0 || at + m[0].length >= text.length) continue;
      units.push({ content: text.slice(start, at), separator: m[0] });
      start = at + m[0].length;
    }
  }
  units.push({ content: text.slice(start), separator: "" });
  return units.filter((u, i, all) => u.content !== "" || i === all.length - 1);
}

function paragraphs(text: string, format: Format) {
  const byBlankLine = cut(text, PARAGRAPH_BREAK, false);
  if (format !== "html" && format !== "rich_text") return byBlankLine;
  return byBlankLine.flatMap((u) => {
    const blocks = cut(u.content, BLOCK_END, true);
    blocks[blocks.length - 1].separator = u.separator;
    return blocks;
  });
}

function sentences(text: string) {
  return cut(text, SENTENCE_END, false);
}

/**
 * Splits `text` into pieces for which `fits` holds, cutting at paragraph boundaries and, within
 * a paragraph too long on its own, at sentence boundaries; neighbouring units are packed
 * together while they fit. Answers undefined when a single sentence does not fit.
 */
export function splitLongText(text: string, format: Format, fits: (piece: string) => boolean): SplitText | undefined {
  const units: { content: string; separator: string }[] = [];
  for (const p of paragraphs(text, format)) {
    if (fits(p.content)) {
      units.push(p);
      continue;
    }
    const parts = sentences(p.content);
    if (parts.some((s) => !fits(s.content))) return undefined;
    parts[parts.length - 1].separator = p.separator;
    units.push(...parts);
  }
  const pieces: string[] = [];
  const separators: string[] = [];
  let current = units[0].content;
  for (let i = 1; i < units.length; i++) {
    const joined = current + units[i - 1].separator + units[i].content;
    if (fits(joined)) current = joined;
    else {
      pieces.push(current);
      separators.push(units[i - 1].separator);
      current = units[i].content;
    }
  }
  pieces.push(current);
  return { pieces, separators };
}

/** Puts translated pieces back together with the original separators. */
export function joinPieces(pieces: readonly string[], separators: readonly string[]): string {
  let out = pieces[0] ?? "";
  for (let i = 1; i < pieces.length; i++) out += separators[i - 1] + pieces[i];
  return out;
}
