// Segment keys that survive edits elsewhere in the document, and the encoding that keeps any
// name inside the service's key pattern (`^[A-Za-z0-9_.:-]+$`).

/**
 * The part of a document a join puts back: kept bytes, or the segment with this key. `raw` is
 * the segment's bytes in the document when they differ from its text (a quoted YAML value):
 * kept as they are unless a different text comes; `quote` writes a translation as a JSON
 * string (valid YAML).
 */
export type Part = string | { key: string; raw?: string; quote?: boolean };

/** What a splitter gives: the segments to push (SegmentIn's fields) and the template a join fills. */
export interface Split {
  segments: SplitSegment[];
  parts: Part[];
  /**
   * What the service would refuse, or what could not be read, each naming the block or field and
   * its line: a U+0000 (NUL) in a block, front matter that is not valid YAML. A connector reports
   * these and does not push the document (its segments would be refused, or lose a field).
   */
  problems?: SplitProblem[];
}

export interface SplitProblem {
  /** 1-based line of the document where the block or front matter starts. */
  line: number;
  /** The segment's key, when the problem is one block's. */
  key?: string;
  message: string;
}

/** The 1-based line of offset `at` in `doc`. */
export const lineAt = (doc: string, at: number) => doc.slice(0, at).split("\n").length;

export interface SplitSegment {
  key: string;
  text: string;
  format: "plain" | "html" | "markdown";
  field: string | null;
  kind: string | null;
}

/** Translations by segment key; a key without one keeps its source text. */
export type Translations = Record<string, string | undefined>;

/**
 * cyrb53 (a small, well-spread 53-bit string hash; not cryptographic, and not meant to be:
 * it only names a block). Synchronous so splitters run the same in Node, browsers and Workers.
 */
function hash53(text: string): number {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}

/** Whitespace runs collapsed and ends trimmed: re-wrapping a paragraph keeps its key. */
export function normalize(text: string): string {
  return text.normalize("NFC").replace(/\s+/g, " ").trim();
}

/**
 * Hands out content keys: `<prefix>.<hash of the normalized text>`, and for the n-th block
 * with the same text in one document `….<n>` (n ≥ 2). A block's key depends on its own text
 * only, so inserting, deleting, moving or editing another block leaves it alone; editing the
 * block itself gives it a new key (its old translation is removed, the new one is missing).
 */
export function contentKeys() {
  const seen = new Map<string, number>();
  return (prefix: string, text: string): string => {
    const base = `${prefix}.${hash53(normalize(text)).toString(36)}`;
    const n = (seen.get(base) ?? 0) + 1;
    seen.set(base, n);
    return n === 1 ? base : `${base}.${n}`;
  };
}

/**
 * Encodes a name into the key pattern: letters, digits and `-` as they are, `/` as `:`, every
 * other character as `_` and the two hex digits of each of its UTF-8 bytes (`_` is `_5f`, `.`
 * stays `.` when `keepDot`). Deterministic and reversible, so two names never share a key.
 */
export function encodeKeyPart(name: string, { keepDot = false, slash = "" } = {}): string {
  let out = "";
  for (const ch of name) {
    if (/[A-Za-z0-9-]/.test(ch) || (keepDot && ch === ".")) out += ch;
    else if (slash && ch === "/") out += slash;
    else for (const byte of new TextEncoder().encode(ch)) out += `_${byte.toString(16).padStart(2, "0")}`;
  }
  return out;
}

/** Puts a document back together: every segment's translation, or its source text when there is none. */
export function joinParts(split: Split, translations: Translations): string {
  const source = new Map(split.segments.map((s) => [s.key, s.text]));
  return split.parts
    .map((p) => {
      if (typeof p === "string") return p;
      const text = translations[p.key];
      const own = source.get(p.key) ?? "";
      if (text === undefined || text === own) return p.raw ?? own;
      return p.quote ? JSON.stringify(text) : text;
    })
    .join("");
}

/** Builds a Split from ordered, non-overlapping [start, end) ranges of `doc`; the rest is kept. */
export function fromRanges(doc: string, ranges: { start: number; end: number; segment: SplitSegment; quote?: boolean }[]): Split {
  const parts: Part[] = [];
  const kept: SplitSegment[] = [];
  const problems: SplitProblem[] = [];
  let at = 0;
  for (const r of ranges) {
    // A parser's range that goes backwards or overlaps the previous one is left as kept bytes:
    // the join stays exact whatever the parser makes of broken input.
    if (r.start < at || r.end <= r.start || r.end > doc.length) continue;
    kept.push(r.segment);
    if (r.segment.text.includes("\u0000")) {
      const line = lineAt(doc, r.start) + r.segment.text.slice(0, r.segment.text.indexOf("\u0000")).split("\n").length - 1;
      const start = r.segment.text.replace(/\s+/g, " ").trim().slice(0, 40);
      problems.push({
        line,
        key: r.segment.key,
        message: `line ${line}: the ${r.segment.kind ?? "block"} "${start.replaceAll("\u0000", "\\0")}…" contains U+0000 (NUL), which the service refuses: remove it`,
      });
    }
    if (r.start > at) parts.push(doc.slice(at, r.start));
    const raw = doc.slice(r.start, r.end);
    parts.push({ key: r.segment.key, ...(raw !== r.segment.text ? { raw } : {}), ...(r.quote ? { quote: true } : {}) });
    at = r.end;
  }
  if (at < doc.length) parts.push(doc.slice(at));
  return problems.length ? { segments: kept, parts, problems } : { segments: kept, parts };
}
