/**
 * Markdown syntax as spans, after CommonMark and GitHub's extensions, simplified to what a
 * translation must keep: code stays code, link and image targets stay as written, emphasis
 * markers keep hugging their words, and block markers keep their lines.
 *
 * Each `add…` function adds one layer to the span set; the caller orders the layers, and a
 * later layer never claims text an earlier one took (a `*` inside a code span is code).
 */
import type { SpanSet } from "./span";

interface Line {
  start: number;
  /** Without the line break (`\n` or `\r\n`). */
  text: string;
}

function lines(text: string): Line[] {
  const out: Line[] = [];
  let start = 0;
  for (const raw of text.split("\n")) {
    out.push({ start, text: raw.endsWith("\r") ? raw.slice(0, -1) : raw });
    start += raw.length + 1;
  }
  return out;
}

/** Whether the character at `i` is escaped by an odd number of backslashes before it. */
function isEscaped(text: string, i: number): boolean {
  let backslashes = 0;
  while (i - backslashes - 1 >= 0 && text[i - backslashes - 1] === "\\") backslashes++;
  return backslashes % 2 === 1;
}

const FENCE_OPEN_RE = /^( {0,3})(`{3,}|~{3,})(.*)$/;

/** ``` and ~~~ fenced code blocks, kept whole; an unclosed fence runs to the end, as in CommonMark. */
export function addFencedCode(text: string, taken: SpanSet): void {
  const all = lines(text);
  for (let i = 0; i < all.length; i++) {
    const open = FENCE_OPEN_RE.exec(all[i].text);
    if (!open || (open[2][0] === "`" && open[3].includes("`"))) continue;
    const fence = open[2];
    const closeRe = new RegExp(`^ {0,3}${fence[0] === "`" ? "`" : "~"}{${fence.length},}[ \\t]*$`);
    let j = i + 1;
    while (j < all.length && !closeRe.test(all[j].text)) j++;
    const end = j < all.length ? all[j].start + all[j].text.length : text.length;
    taken.add({ start: all[i].start, end, kind: "code", role: "atom" });
    i = j;
  }
}

const WHOLE_LINE_TESTS: ((line: string) => boolean)[] = [
  // link reference definition: [label]: https://… "title"
  (line) => /^ {0,3}\[[^\]\n]+\]:[ \t]*\S/.test(line),
  // thematic break: ---, ***, _ _ _
  (line) => /^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/.test(line),
  // setext heading underline
  (line) => /^ {0,3}(?:=+|-{2,})[ \t]*$/.test(line),
  // table delimiter row: | --- | :---: |
  (line) => line.includes("|") && /^[ \t]*\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$/.test(line),
];

/** Lines that are pure syntax: reference definitions, rules, setext underlines, table delimiters. */
export function addSyntaxLines(text: string, taken: SpanSet): void {
  for (const line of lines(text)) {
    if (!WHOLE_LINE_TESTS.some((test) => test(line.text))) continue;
    taken.add({ start: line.start, end: line.start + line.text.length, kind: "line", role: "atom" });
  }
}

/** `code` spans: a backtick run closed by the next run of the same length. */
export function addCodeSpans(text: string, taken: SpanSet): void {
  const runs = Array.from(text.matchAll(/`+/g), (m) => ({ start: m.index, end: m.index + m[0].length }));
  // Indices of the runs of each length, with a cursor per length: one pass in all.
  const byLength = new Map<number, { at: number[]; next: number }>();
  runs.forEach((run, i) => {
    const group = byLength.get(run.end - run.start) ?? { at: [], next: 0 };
    group.at.push(i);
    byLength.set(run.end - run.start, group);
  });
  for (let i = 0; i < runs.length; i++) {
    const open = runs[i];
    if (isEscaped(text, open.start) || taken.overlaps(open.start, open.end)) continue;
    const group = byLength.get(open.end - open.start)!;
    while (group.next < group.at.length && group.at[group.next] <= i) group.next++;
    const j = group.at[group.next];
    if (j !== undefined && taken.add({ start: open.start, end: runs[j].end, kind: "code", role: "atom" })) i = j;
  }
}

const AUTOLINK_RE =
  /<(?:(?:https?:\/\/|mailto:)[^\s<>]*|[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*)>/g;

/** <https://…> and <name@example.org> autolinks. */
export function addAutolinks(text: string, taken: SpanSet): void {
  for (const m of text.matchAll(AUTOLINK_RE)) {
    taken.add({ start: m.index, end: m.index + m[0].length, kind: "url", role: "atom" });
  }
}

/**
 * For each free `[`, the free `]` that closes it, in one pass. Brackets do not pair across a
 * blank line, which ends the paragraph.
 */
function matchingBrackets(text: string, taken: SpanSet): Map<number, number> {
  const matches = new Map<number, number>();
  const open: number[] = [];
  for (let i = 0; i < text.length; i++) {
    if (text.startsWith("\n\n", i)) open.length = 0;
    if ((text[i] !== "[" && text[i] !== "]") || !taken.isFree(i) || isEscaped(text, i)) continue;
    if (text[i] === "[") open.push(i);
    else if (open.length > 0) matches.set(open.pop()!, i);
  }
  return matches;
}

/** Longest link destination and title looked at: real ones are far shorter, and a cap keeps stray brackets cheap. */
const MAX_LINK_TAIL = 2048;

const isLinkSpace = (c: string | undefined) => c === " " || c === "\t" || c === "\n" || c === "\r";

/** End of `(destination "title")` or `[label]` starting at `at`, or -1. */
function linkTailEnd(text: string, at: number): number {
  const limit = Math.min(text.length, at + MAX_LINK_TAIL);
  if (text[at] === "[") {
    const m = /^\[[^[\]\n]*\]/.exec(text.slice(at, limit));
    return m ? at + m[0].length : -1;
  }
  if (text[at] !== "(") return -1;
  let i = at + 1;
  const skipSpace = () => {
    while (i < limit && isLinkSpace(text[i])) i++;
  };
  skipSpace();
  if (text[i] === "<") {
    const close = text.indexOf(">", i);
    if (close < 0 || close >= limit || text.slice(i, close).includes("\n")) return -1;
    i = close + 1;
  } else {
    for (let depth = 0; i < limit && !isLinkSpace(text[i]); i++) {
      const c = text[i];
      if (c === "\\") i++;
      else if (c === "(") depth++;
      else if (c === ")" && depth-- === 0) break;
    }
  }
  skipSpace();
  const titleEnd = { '"': '"', "'": "'", "(": ")" }[text[i]];
  if (titleEnd !== undefined) {
    for (i++; i < limit && (text[i] !== titleEnd || isEscaped(text, i)); i++);
    i++;
    skipSpace();
  }
  return i < limit && text[i] === ")" ? i + 1 : -1;
}

/**
 * Inline links and images, `[text](target)`, `![alt](src "title")`, `[text][ref]`: the
 * opener and the closer with its target become a pair around the translatable text.
 */
export function addLinks(text: string, taken: SpanSet): void {
  const pairs = [...matchingBrackets(text, taken)].sort(([a], [b]) => a - b);
  // Where the next ")" is: with none ahead, no inline link can follow, so stray `[x](` cost
  // nothing. The last search is reused while it still answers for the position asked.
  let searchedFrom = Infinity;
  let nextParen = -1;
  const parenAhead = (at: number) => {
    if (!(searchedFrom <= at && (nextParen < 0 || nextParen >= at))) {
      searchedFrom = at;
      nextParen = text.indexOf(")", at);
    }
    return nextParen >= 0;
  };
  for (const [i, close] of pairs) {
    if (!taken.isFree(i)) continue;
    if (text[close + 1] === "(" && !parenAhead(close + 1)) continue;
    const end = linkTailEnd(text, close + 1);
    if (end < 0 || taken.overlaps(close, end)) continue;
    const image = text[i - 1] === "!" && taken.isFree(i - 1) && !isEscaped(text, i - 1);
    const start = image ? i - 1 : i;
    const pair = start;
    taken.add({ start, end: i + 1, kind: "link_open", role: "open", element: "a", pair, glueRight: true });
    taken.add({ start: close, end, kind: "link_close", role: "close", element: "a", pair, glueLeft: true });
  }
}

// Indentation, quote markers, then a heading or list marker (with a task box) and its space.
const LINE_MARKER_RE = /[ \t]*(?:>[ \t]?)*(?:(?:#{1,6}|[-*+]|\d{1,9}[.)])(?:[ \t]+\[[ xX]\])?(?:[ \t]+|$))?/y;

/** Block markers at the start of lines: `## `, `- `, `1. `, `> `, `- [x] `. */
export function addLineMarkers(text: string, taken: SpanSet): void {
  for (const line of lines(text)) {
    LINE_MARKER_RE.lastIndex = 0;
    const marker = LINE_MARKER_RE.exec(line.text)?.[0] ?? "";
    if (marker.trim() === "") continue;
    taken.add({
      start: line.start,
      end: line.start + marker.length,
      kind: "line",
      role: "atom",
      glueLeft: true,
      glueRight: true,
    });
  }
}

/** Backslash escapes (`\*`, `\[`) and backslash line breaks. */
export function addEscapes(text: string, taken: SpanSet): void {
  for (const m of text.matchAll(/\\[!-/:-@[-`{-~]|\\(?=\r?\n)/g)) {
    taken.add({ start: m.index, end: m.index + m[0].length, kind: "escape", role: "atom" });
  }
}

interface DelimiterRun {
  char: string;
  start: number;
  length: number;
  /** Characters not yet matched: an opener gives them up from its end, a closer from its start. */
  remaining: number;
  canOpen: boolean;
  canClose: boolean;
}

const isSpace = (c: string | undefined) => c === undefined || /\s/u.test(c);
const isPunct = (c: string | undefined) => c !== undefined && /[\p{P}\p{S}]/u.test(c);

const ELEMENTS: Record<string, [string, string]> = { "*": ["em", "strong"], _: ["i", "b"], "~": ["s", "s"] };

/** Maximal runs of one delimiter character on free text, with CommonMark's flanking rules. */
function delimiterRuns(text: string, taken: SpanSet): DelimiterRun[] {
  const runs: DelimiterRun[] = [];
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (!(char in ELEMENTS) || !taken.isFree(i)) continue;
    let j = i + 1;
    while (j < text.length && text[j] === char && taken.isFree(j)) j++;
    const before = text[i - 1];
    const after = text[j];
    const left = !isSpace(after) && (!isPunct(after) || isSpace(before) || isPunct(before));
    const right = !isSpace(before) && (!isPunct(before) || isSpace(after) || isPunct(after));
    const length = j - i;
    // A lone ~ means "about" (~5 min); only ~~ marks strikethrough.
    if (char !== "~" || length === 2) {
      const intraword = char === "_";
      runs.push({
        char,
        start: i,
        length,
        remaining: length,
        canOpen: left && (!intraword || !right || isPunct(before)),
        canClose: right && (!intraword || !left || isPunct(after)),
      });
    }
    i = j - 1;
  }
  return runs;
}

/**
 * Emphasis, strong emphasis and strikethrough markers, paired the way CommonMark's delimiter
 * algorithm pairs them. Runs that pair with nothing (`2 * 3`, `snake_case`) stay prose.
 */
export function addEmphasis(text: string, taken: SpanSet): void {
  const openers: DelimiterRun[] = [];
  for (const run of delimiterRuns(text, taken)) {
    if (run.canClose) {
      for (let k = openers.length - 1; k >= 0 && run.remaining > 0; k--) {
        const opener = openers[k];
        if (opener.char !== run.char) continue;
        // CommonMark's "rule of three": *foo**bar* is not strong emphasis inside emphasis.
        const eitherBoth = opener.canClose || run.canOpen;
        if (eitherBoth && (opener.length + run.length) % 3 === 0 && (opener.length % 3 !== 0 || run.length % 3 !== 0)) continue;
        const use = opener.remaining >= 2 && run.remaining >= 2 ? 2 : 1;
        if (run.char === "~" && use !== 2) continue;
        const element = ELEMENTS[run.char][use - 1];
        const openEnd = opener.start + opener.remaining;
        const closeStart = run.start + run.length - run.remaining;
        const pair = openEnd - use;
        taken.add({ start: openEnd - use, end: openEnd, kind: "emphasis", role: "open", element, pair, glueRight: true });
        taken.add({ start: closeStart, end: closeStart + use, kind: "emphasis", role: "close", element, pair, glueLeft: true });
        opener.remaining -= use;
        run.remaining -= use;
        // Delimiters between a matched pair can no longer open anything.
        openers.length = opener.remaining > 0 ? k + 1 : k;
        k = openers.length;
      }
    }
    if (run.canOpen && run.remaining > 0) openers.push(run);
  }
}
