/**
 * How alike two texts are, for fuzzy matches (src/site/memory/fuzzy.ts): similarity = 1 −
 * Levenshtein distance (code points) ÷ the longer text's length, on the texts after markup
 * protection (each tag, placeholder or URL counts as one code point). The distance is computed
 * with a bit-parallel Levenshtein (Myers) made once per text and compared with many, which gives
 * up once the distance must pass a bound.
 */
import type { Format } from "../../limits";
import { protect } from "../../markup/protect";
import { scan } from "../../markup/scan";

/** Stands for one protected token (a tag, placeholder, URL) when scoring: one code point. */
const TOKEN_CHAR = 0xfffc;
const TOKEN_RE = /⟦\d+⟧/g;

export interface Scored {
  /** Code points after protection, tokens as TOKEN_CHAR. */
  points: Int32Array;
  /** The visible text (tokens removed), lowercased, for trigrams. */
  words: string[];
}

/** Token brackets: protection makes each one a token, so a text having one takes the full protection. */
const BRACKETS = /[⟦⟧]/;
/** A protected token at a given position. */
const TOKEN_AT = /⟦\d+⟧/y;

/** A text as protection shows it to an engine without a markup mode. */
export function shownText(text: string, format: Format): string {
  // Plain text without URLs, placeholders or token brackets (most texts): protection would only trim it (src/markup/protect.ts).
  if (format === "plain" && !BRACKETS.test(text) && scan(text, "plain").length === 0) return text.trim();
  try {
    return protect(text, format, "text").text;
  } catch {
    // Markup protection refuses a few malformed texts (the job fails those segments anyway): compare them as they are.
    return text;
  }
}

/** The code points of a shown text, each token as TOKEN_CHAR. */
export function pointsOf(shown: string): Int32Array {
  const out = new Int32Array(shown.length);
  let n = 0;
  for (let i = 0; i < shown.length; ) {
    const c = shown.codePointAt(i)!;
    if (c === 0x27e6) {
      TOKEN_AT.lastIndex = i;
      const token = TOKEN_AT.exec(shown);
      if (token) {
        out[n++] = TOKEN_CHAR;
        i += token[0].length;
        continue;
      }
    }
    out[n++] = c;
    i += c > 0xffff ? 2 : 1;
  }
  return out.slice(0, n);
}

/** The form texts are compared in: markup protected as for an engine without a markup mode. */
export function scoringForm(text: string, format: Format): Scored {
  const shown = shownText(text, format);
  return { points: pointsOf(shown), words: shown.toLowerCase().split(TOKEN_RE) };
}

/**
 * One side of a Levenshtein distance computed with Myers' bit-parallel algorithm (G. Myers,
 * "A fast bit-vector algorithm for approximate string matching based on dynamic programming",
 * J. ACM 46(3), 1999, in its blocks-of-32 form): the text's code points as bit masks, made once
 * and compared with many texts (a column of 32 cells costs a few integer operations).
 */
export interface Pattern {
  points: Int32Array;
  blocks: number;
  /**
   * For each code point of the text, the bits of its positions (block r, bit i: position 32r + i):
   * code points under 256 in `low` (at code point × blocks + r: no look-up by key), others in `high`.
   */
  low: Int32Array;
  high: Map<number, Int32Array>;
  /** The vertical deltas of the current column, +1 and −1 (reused from call to call). */
  pv: Int32Array;
  mv: Int32Array;
}

export function patternOf(points: Int32Array): Pattern {
  const blocks = Math.max(1, Math.ceil(points.length / 32));
  const low = new Int32Array(256 * blocks);
  const high = new Map<number, Int32Array>();
  for (let i = 0; i < points.length; i++) {
    const c = points[i];
    if (c < 256) low[c * blocks + (i >> 5)] |= 1 << (i & 31);
    else {
      let bits = high.get(c);
      if (!bits) high.set(c, (bits = new Int32Array(blocks)));
      bits[i >> 5] |= 1 << (i & 31);
    }
  }
  return { points, blocks, low, high, pv: new Int32Array(blocks), mv: new Int32Array(blocks) };
}

/**
 * Levenshtein distance of the pattern's text and `b` (code points), or `max + 1` as soon as it
 * is known to be greater than `max` (lengths differing by more; a column whose bottom cell
 * minus the columns left is already above it).
 */
export function distanceTo(p: Pattern, b: Int32Array, max: number): number {
  const n = p.points.length;
  const m = b.length;
  if (Math.abs(n - m) > max) return max + 1;
  if (n === 0) return m;
  if (m === 0) return n;
  const { blocks, low, high, pv, mv } = p;
  pv.fill(-1);
  mv.fill(0);
  const last = blocks - 1;
  const lastBit = 1 << ((n - 1) & 31);
  const highBit = 1 << 31;
  // The bottom row's cell (text length n against b's first j code points), from n at j = 0.
  let score = n;
  for (let j = 0; j < m; j++) {
    const c = b[j];
    // The code point's masks: in `low` from `base`, or in `high` (none: it is not in the text).
    const base = c < 256 ? c * blocks : -1;
    const eqs = base < 0 ? high.get(c) : undefined;
    // The top row grows by one per column (D[0][j] = j): the horizontal delta entering the first block.
    let hin = 1;
    for (let r = 0; r < blocks; r++) {
      const Pv = pv[r];
      const Mv = mv[r];
      let Eq = base >= 0 ? low[base + r] : eqs ? eqs[r] : 0;
      const Xv = Eq | Mv;
      if (hin < 0) Eq |= 1;
      const Xh = (((Eq & Pv) + Pv) ^ Pv) | Eq;
      let Ph = Mv | ~(Xh | Pv);
      let Mh = Pv & Xh;
      const high = r === last ? lastBit : highBit;
      const hout = Ph & high ? 1 : Mh & high ? -1 : 0;
      Ph <<= 1;
      Mh <<= 1;
      if (hin < 0) Mh |= 1;
      else if (hin > 0) Ph |= 1;
      pv[r] = Mh | ~(Xv | Ph);
      mv[r] = Ph & Xv;
      hin = hout;
    }
    score += hin;
    // Each column left can lower the bottom cell by one at most.
    if (score - (m - 1 - j) > max) return max + 1;
  }
  return score > max ? max + 1 : score;
}

/** Levenshtein distance of two code-point arrays, or `max + 1` when it is greater than `max`. */
export function boundedDistance(a: Int32Array, b: Int32Array, max: number): number {
  return distanceTo(patternOf(a), b, max);
}

/** Similarity from a distance: 1 − d ÷ the longer length. */
export const score = (d: number, longer: number) => (longer === 0 ? 1 : 1 - d / longer);

/** The similarity of two texts of the given format (0…1), after markup protection. */
export function similarity(a: string, b: string, format: Format = "plain"): number {
  const x = scoringForm(a, format).points;
  const y = scoringForm(b, format).points;
  const longer = Math.max(x.length, y.length);
  return score(boundedDistance(x, y, longer), longer);
}
