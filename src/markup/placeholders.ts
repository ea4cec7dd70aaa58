import type { Span } from "./span";
import { findUrls } from "./urls";

/**
 * Placeholder styles of the common i18n formats. Order matters: at one position the first
 * alternative that matches wins, so `{{name}}` is one placeholder, not `{name}` in braces.
 */
const PLACEHOLDER_RE = new RegExp(
  [
    // Mustache / Handlebars / Angular: {{name}}, {{ user.name | upper }}, {{{raw}}}
    String.raw`(?<mustache>\{\{\{?[^{}\n]+?\}?\}\})`,
    // Python str.format, ICU simple arguments, JS template literals: {}, {0}, {name}, {n:>5}, ${name}
    String.raw`(?<brace>\$?\{[\p{L}\p{N}_.\-]*(?:[:!][^{}\s]*)?\})`,
    // Python named: %(name)s, %(count)05.2f
    String.raw`(?<named>%\([^()\s]+\)[-+0# ]*\d*(?:\.\d+)?[diouxXeEfFgGcrsa])`,
    // A literal percent sign in a printf string: consumed so its second % starts nothing.
    "(?<percent>%%)",
    // printf with an argument position: %1$s, %2$.2f
    String.raw`(?<positional>%\d+\$[-+0#]*\d*(?:\.\d+)?(?:hh|h|ll|l|L|z|j|t|q)?[sdifuxXeEgGc@])`,
    // printf: %s, %d, %5.2f, %ld, %@. Not before a letter or digit, so "50%off" and
    // "%dpx" are prose; no space flag, so "100% discount" is prose too.
    String.raw`(?<printf>%[-+0#]*(?:\d+|\*)?(?:\.(?:\d+|\*))?(?:hh|h|ll|l|L|z|j|t|q)?[sdifuxXeEgGc@](?![\p{L}\p{N}]))`,
    // Laravel / Rails / route style :name. Not after a word character or a colon, so times
    // (10:30), schemes (https://, mailto:) and "a::b" are not placeholders.
    String.raw`(?<colon>(?<![\p{L}\p{N}_:]):[A-Za-z_][A-Za-z0-9_]*(?![\p{L}\p{N}_]))`,
  ].join("|"),
  "gu",
);

/** Styles that also occur in ordinary URLs (%20d, :8080 …), so they are not looked for inside one. */
const AMBIGUOUS = new Set(["positional", "printf", "colon"]);

/**
 * Every placeholder in the text, in order. Brace styles count inside URLs too
 * (`https://x.org/u/{id}`); printf and colon styles do not, since URLs are full of `%2F`.
 */
export function findPlaceholders(text: string): readonly Span[] {
  // Every style has a brace or a percent sign, or a colon before a letter: most texts are answered without running the pattern.
  if (!MAY_HAVE_PLACEHOLDER.test(text)) return NONE;
  // QA and scan ask for the same text's placeholders one after the other.
  if (text === last.text) return last.spans;
  let urls: readonly Span[] | undefined;
  const insideUrl = (at: number) => (urls ??= findUrls(text)).some((u) => u.start <= at && at < u.end);
  const spans: Span[] = [];
  for (const match of text.matchAll(PLACEHOLDER_RE)) {
    const style = Object.entries(match.groups ?? {}).find(([, v]) => v !== undefined)?.[0];
    if (style === undefined || style === "percent") continue;
    if (AMBIGUOUS.has(style) && insideUrl(match.index)) continue;
    spans.push({ start: match.index, end: match.index + match[0].length, kind: "placeholder", role: "atom" });
  }
  last = { text, spans: Object.freeze(spans) };
  return last.spans;
}

const MAY_HAVE_PLACEHOLDER = /[{%]|:[A-Za-z_]/;
const NONE: readonly Span[] = Object.freeze([]);
let last: { text: string | undefined; spans: readonly Span[] } = { text: undefined, spans: NONE };
