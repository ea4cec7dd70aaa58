import type { Span } from "./span";
import { trimTrailing } from "./trailing";

// Stops at whitespace, quotes and angle brackets, which end a URL in prose and in HTML alike.
const URL_RE = /\b(?:https?:\/\/|mailto:)[^\s<>"'`]+/gi;
const TRAILING_PUNCTUATION = /[.,;:!?'"*_~]/;
// In HTML text a URL cannot contain these escaped characters: they end it.
const ESCAPED_END = /&(?:quot|lt|gt|apos|#0*34|#0*39|#0*60|#0*62);/i;
const CLOSERS: Record<string, string> = { ")": "(", "]": "[", "}": "{" };

/**
 * Drops trailing punctuation that belongs to the sentence, not the URL: `(see https://x.org/a).`
 * ends at `a`. A closing bracket stays when the URL opened it (`…/Foo_(bar)`).
 */
function trimUrl(url: string): string {
  for (;;) {
    const before = url;
    url = trimTrailing(url, TRAILING_PUNCTUATION);
    const last = url.at(-1);
    if (last !== undefined && last in CLOSERS) {
      const opens = url.split(CLOSERS[last]).length - 1;
      const closes = url.split(last).length - 1;
      if (closes > opens) url = url.slice(0, -1);
    }
    if (url === before) return url;
  }
}

/** http, https and mailto URLs. `html`: the text is HTML, so `&quot;` and the like end a URL. */
export function findUrls(text: string, html = false): readonly Span[] {
  // Every URL has "://" or "mailto:": most texts are answered without running the pattern.
  if (!text.includes("://") && !MAILTO.test(text)) return NONE;
  const spans: Span[] = [];
  for (const match of text.matchAll(URL_RE)) {
    let url = match[0];
    if (html) {
      const cut = url.search(ESCAPED_END);
      if (cut >= 0) url = url.slice(0, cut);
    }
    url = trimUrl(url);
    // A bare scheme ("https://" followed by punctuation) is no URL.
    if (/^(?:https?:\/\/|mailto:)$/i.test(url)) continue;
    spans.push({ start: match.index, end: match.index + url.length, kind: "url", role: "atom" });
  }
  return spans;
}

const NONE: readonly Span[] = Object.freeze([]);
const MAILTO = /mailto:/i;
