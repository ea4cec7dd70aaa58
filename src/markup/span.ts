/**
 * A stretch of a segment's text that is markup, not prose: the unit shared by protection
 * (each span becomes one token an engine must copy) and QA (spans are compared or skipped).
 */
export type SpanKind =
  /** an HTML tag: opening, closing or self-closing */
  | "tag"
  /** HTML comment, doctype, CDATA section or processing instruction */
  | "comment"
  /** a whole HTML element whose content must not be translated (code, script, translate="no" …) */
  | "raw"
  /** an HTML character reference such as `&amp;` */
  | "entity"
  | "url"
  | "placeholder"
  /** markdown code span or fenced code block */
  | "code"
  /** markdown emphasis delimiter run (`*`, `**`, `_`, `__`, `~~`) */
  | "emphasis"
  /** markdown `[` or `![` opening a link or image */
  | "link_open"
  /** markdown `](target)` or `][ref]` closing a link or image */
  | "link_close"
  /** markdown block syntax: heading, list and quote markers, rules, table delimiters, reference definitions */
  | "line"
  /** markdown backslash escape such as `\*` */
  | "escape";

/**
 * How a span behaves when shown to an engine's HTML mode: an element that opens, closes or
 * stands alone (so the engine can place the translation around it), or an opaque atom.
 */
export type SpanRole = "open" | "close" | "void" | "atom";

export interface Span {
  start: number;
  end: number;
  kind: SpanKind;
  role: SpanRole;
  /** Element name an HTML engine sees for open/close/void spans. */
  element?: string;
  /** The opener and closer of one element share this number. */
  pair?: number;
  /**
   * The syntax needs this span to touch its neighbour on that side (markdown `**bold**`,
   * `## heading`), so whitespace an engine puts there is moved away or dropped on restore.
   */
  glueLeft?: boolean;
  glueRight?: boolean;
}

/**
 * Non-overlapping spans of one text. Tokenizers add their findings layer by layer; a span
 * that overlaps one added earlier is refused, so earlier layers take precedence (a
 * placeholder inside a URL stays part of the URL). Occupancy is kept per character, so a
 * check costs the length of the span checked, whatever the number of spans already taken.
 */
export class SpanSet {
  private readonly taken: Uint8Array;
  private readonly spans: Span[] = [];

  constructor(textLength: number) {
    this.taken = new Uint8Array(textLength);
  }

  overlaps(start: number, end: number): boolean {
    for (let i = start; i < end; i++) if (this.taken[i]) return true;
    return false;
  }

  /** Whether the character at `pos` belongs to no span. */
  isFree(pos: number): boolean {
    return this.taken[pos] === 0;
  }

  add(span: Span): boolean {
    if (span.end <= span.start || span.end > this.taken.length || this.overlaps(span.start, span.end)) return false;
    this.taken.fill(1, span.start, span.end);
    this.spans.push(span);
    return true;
  }

  addAll(spans: Iterable<Span>): void {
    for (const span of spans) this.add(span);
  }

  /** `text` with every taken character blanked, for a tokenizer that must not look inside earlier spans. */
  masked(text: string): string {
    let out = "";
    let at = 0;
    for (const span of this.list()) {
      out += text.slice(at, span.start) + " ".repeat(span.end - span.start);
      at = span.end;
    }
    return out + text.slice(at);
  }

  /** The spans in text order. */
  list(): Span[] {
    return this.spans.slice().sort((a, b) => a.start - b.start);
  }
}
