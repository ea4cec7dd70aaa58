import type { Format } from "../limits";
import { decodeEntities, decodeEntity } from "./entities";
import { entitySpans, htmlTagSpans, stripTags } from "./html-spans";
import { addAutolinks, addCodeSpans, addEmphasis, addEscapes, addFencedCode, addLineMarkers, addLinks, addSyntaxLines } from "./markdown";
import { findPlaceholders } from "./placeholders";
import { type Span, SpanSet } from "./span";
import { findUrls } from "./urls";

/**
 * Every stretch of markup in a segment of the given format, in text order, without overlaps.
 * This one tokenization is what protection hides from engines and what QA compares, so the
 * two never disagree about what counts as markup.
 */
export function scan(text: string, format: Format): readonly Span[] {
  // QA reads source and target through several checks; remembering the last few scans
  // spares rescanning long texts. The list is frozen, so sharing it is safe.
  // Keyed by the text alone (one list per format): the engine keeps a string's hash with it, a new key string would be hashed anew.
  const recent = (recentScans[format] ??= new Map());
  const remembered = recent.get(text);
  if (remembered) return remembered;
  const spans = Object.freeze(scanUncached(text, format));
  recent.set(text, spans);
  if (recent.size > RECENT_SCANS) recent.delete(recent.keys().next().value!);
  return spans;
}

const RECENT_SCANS = 4;
const recentScans: Partial<Record<Format, Map<string, readonly Span[]>>> = {};

function scanUncached(text: string, format: Format): Span[] {
  const urls = format === "plain" ? findUrls(text) : undefined;
  const placeholders = format === "plain" ? findPlaceholders(text) : undefined;
  // Plain text without URLs and placeholders (most of it) needs no span set.
  if (urls?.length === 0 && placeholders?.length === 0) return [];
  const taken = new SpanSet(text.length);
  switch (format) {
    case "html":
    case "rich_text":
      taken.addAll(htmlTagSpans(text));
      taken.addAll(findUrls(text, true));
      taken.addAll(entitySpans(text));
      taken.addAll(findPlaceholders(text));
      break;
    case "markdown":
      addFencedCode(text, taken);
      addSyntaxLines(text, taken);
      addCodeSpans(text, taken);
      addAutolinks(text, taken);
      // Inline HTML is kept as opaque atoms. Code is masked first: a `<script>` shown in a code
      // block must not make the tag scanner skip the rest of the text.
      taken.addAll(htmlTagSpans(taken.masked(text)).map(({ start, end, kind }) => ({ start, end, kind, role: "atom" as const })));
      addLinks(text, taken);
      addLineMarkers(text, taken);
      addEscapes(text, taken);
      taken.addAll(findUrls(text));
      taken.addAll(findPlaceholders(text));
      addEmphasis(text, taken);
      taken.addAll(entitySpans(text));
      break;
    case "plain":
      taken.addAll(urls!);
      taken.addAll(placeholders!);
      break;
  }
  return taken.list();
}

/** Stands for markup that carries content of its own (a placeholder, URL or code): not a letter, not a space. */
export const OBJECT_CHAR = "\uFFFC";
/** Stands for markup that carries no content (a tag, an emphasis marker): invisible, yet a word boundary. */
export const MARKUP_CHAR = "\u200B";

const CONTENT_KINDS = new Set<Span["kind"]>(["placeholder", "url", "code", "raw"]);

/**
 * The prose of a segment: each markup span replaced by one stand-in character, entities
 * decoded, escapes resolved. What QA reads when it looks for numbers, terms and letters.
 */
export function proseText(text: string, format: Format): string {
  // QA asks for the prose of the same source and translation in several checks in a row.
  const cache = (proseCache[format] ??= new Map());
  const cached = cache.get(text);
  if (cached !== undefined) return cached;
  const prose = computeProse(text, format);
  if (cache.size >= PROSE_CACHE_SIZE) cache.delete(cache.keys().next().value!);
  cache.set(text, prose);
  return prose;
}

const PROSE_CACHE_SIZE = 16;
const proseCache: Partial<Record<Format, Map<string, string>>> = {};

function computeProse(text: string, format: Format): string {
  const spans = scan(text, format);
  if (spans.length === 0) return text;
  let out = "";
  let at = 0;
  for (const span of spans) {
    const source = text.slice(span.start, span.end);
    out += text.slice(at, span.start);
    if (CONTENT_KINDS.has(span.kind)) out += OBJECT_CHAR;
    else if (span.kind === "entity") out += decodeEntity(source) ?? OBJECT_CHAR;
    else if (span.kind === "escape") out += source.slice(1);
    else out += MARKUP_CHAR;
    at = span.end;
  }
  return out + text.slice(at);
}

/** The text a reader sees, counted by max_length: HTML without its tags and with entities decoded; other formats as written. */
export function visibleText(text: string, format: Format): string {
  return format === "html" || format === "rich_text" ? decodeEntities(stripTags(text)) : text;
}
