// Keys that follow edits: a document's new segments lined up with the unit's previous segments
// (from the service), so an unchanged block keeps its key, an edited block keeps the key of the
// block it replaces (its segment becomes stale, not new) and only new blocks get new keys.
import { normalize } from "./keys.js";

/** A previous segment of the unit: its key and its source text, as the service holds them. */
export interface PreviousSegment {
  key: string;
  text: string;
}

export interface AlignOptions {
  /** Lowest similarity (0…1) for an edited block to keep an old block's key; default SIMILARITY_THRESHOLD. */
  threshold?: number;
  /**
   * Keys the alignment must leave alone (front matter fields, …): segments with such a key keep
   * it, previous segments with such a key are no candidates, and no new key becomes one.
   */
  fixed?: (key: string) => boolean;
}

/**
 * Lowest similarity (1 − Levenshtein distance in code points ÷ the longer text's length, on the
 * normalized texts) for an edited block to keep the key of the old block it replaces. 0.4: a
 * paragraph split in two halves keeps its key in the larger half (similarity just under 0.5),
 * one word changed in a 5-word heading stays well above it (≥ 0.6).
 */
export const SIMILARITY_THRESHOLD = 0.4;
/** Code points of each text compared at most (the first ones): a long block costs no more than this. */
export const COMPARED_POINTS = 2_000;
/** Old blocks a new block is compared with at most in one gap: those nearest its place (each side). */
export const COMPARE_WINDOW = 8;

/**
 * The segments with their keys lined up with `previous` (the unit's current segments in the
 * service), in three steps:
 * 1. Blocks whose text is unchanged (after `normalize`) keep their keys: the longest common
 *    subsequence of old and new texts first (in order), then a block moved elsewhere.
 * 2. Between two unchanged neighbours (a gap), an edited block keeps the key of an unmatched old
 *    block of the same gap: the pairs most similar first, each at least `threshold` similar. A
 *    paragraph split in two keeps its key in the half most like it (the larger), two merged
 *    keep the key of the larger part.
 * 3. Every other block is new: it keeps the key it came with (a content key), made unique
 *    against all previous keys with `.n` (n ≥ 2) if needed, so it never takes a removed block's
 *    key and its translation.
 * Without `previous` (or an empty one) the segments are answered as they are.
 */
export function alignKeys<T extends { key: string; text: string }>(segments: readonly T[], previous: readonly PreviousSegment[] | undefined, options: AlignOptions = {}): T[] {
  if (!previous || previous.length === 0) return [...segments];
  const fixed = options.fixed ?? (() => false);
  const threshold = options.threshold ?? SIMILARITY_THRESHOLD;
  const seenOld = new Set<string>();
  const old = previous.filter((p) => !fixed(p.key) && !seenOld.has(p.key) && seenOld.add(p.key));
  const movable = segments.map((_, j) => j).filter((j) => !fixed(segments[j].key));
  const oldTexts = old.map((p) => normalize(p.text));
  const newTexts = movable.map((j) => normalize(segments[j].text));
  // pairOf[n] = the old block index new block n (among `movable`) takes its key from.
  const pairOf = new Array<number>(movable.length).fill(-1);
  const taken = new Array<boolean>(old.length).fill(false);

  // 1. Unchanged texts: in order, then moved.
  const anchors = commonSubsequence(oldTexts, newTexts);
  for (const [i, n] of anchors) {
    pairOf[n] = i;
    taken[i] = true;
  }
  const freeByText = new Map<string, number[]>();
  oldTexts.forEach((t, i) => {
    if (!taken[i]) freeByText.set(t, [...(freeByText.get(t) ?? []), i]);
  });
  newTexts.forEach((t, n) => {
    if (pairOf[n] >= 0) return;
    const i = freeByText.get(t)?.shift();
    if (i === undefined) return;
    pairOf[n] = i;
    taken[i] = true;
  });

  // 2. Edited blocks, gap by gap between the in-order anchors.
  const bounds: [number, number][] = [[-1, -1], ...anchors, [old.length, movable.length]];
  for (let g = 1; g < bounds.length; g++) {
    const olds: number[] = [];
    for (let i = bounds[g - 1][0] + 1; i < bounds[g][0]; i++) if (!taken[i]) olds.push(i);
    const news: number[] = [];
    for (let n = bounds[g - 1][1] + 1; n < bounds[g][1]; n++) if (pairOf[n] < 0) news.push(n);
    if (olds.length === 0 || news.length === 0) continue;
    for (const [n, i] of similarPairs(olds, news, oldTexts, newTexts, threshold)) {
      pairOf[n] = i;
      taken[i] = true;
    }
  }

  // 3. Keys: the old block's where paired, otherwise the segment's own, unique against all old keys.
  const used = new Set<string>(previous.map((p) => p.key));
  for (const s of segments) if (fixed(s.key)) used.add(s.key);
  const keys = segments.map((s) => s.key);
  movable.forEach((j, n) => {
    if (pairOf[n] >= 0) keys[j] = old[pairOf[n]].key;
  });
  movable.forEach((j, n) => {
    if (pairOf[n] >= 0) return;
    let key = segments[j].key;
    for (let k = 2; used.has(key); k++) key = `${segments[j].key}.${k}`;
    used.add(key);
    keys[j] = key;
  });
  return segments.map((s, j) => (keys[j] === s.key ? s : { ...s, key: keys[j] }));
}

/**
 * The longest common subsequence of two lists of texts as [old index, new index] pairs, in
 * order: the common start and end first (so of repeated blocks, those in place pair with
 * themselves), then the middle with Hunt–Szymanski (the longest increasing run of old positions
 * over the matching pairs; O((pairs + n) log n), and documents have few repeated blocks).
 */
function commonSubsequence(a: string[], b: string[]): [number, number][] {
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const out: [number, number][] = [];
  for (let k = 0; k < head; k++) out.push([k, k]);
  const where = new Map<string, number[]>();
  for (let i = head; i < a.length - tail; i++) where.set(a[i], [...(where.get(a[i]) ?? []), i]);
  const entries: { i: number; n: number; prev: number }[] = [];
  const tails: number[] = [];
  for (let n = head; n < b.length - tail; n++) {
    const list = where.get(b[n]);
    if (!list) continue;
    // Old positions from the last: at most one of them extends a run ending before it.
    for (let k = list.length - 1; k >= 0; k--) {
      const i = list[k];
      let lo = 0;
      let hi = tails.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (entries[tails[mid]].i < i) lo = mid + 1;
        else hi = mid;
      }
      entries.push({ i, n, prev: lo > 0 ? tails[lo - 1] : -1 });
      tails[lo] = entries.length - 1;
    }
  }
  const middle: [number, number][] = [];
  for (let e = tails.length ? tails[tails.length - 1] : -1; e >= 0; e = entries[e].prev) middle.push([entries[e].i, entries[e].n]);
  out.push(...middle.reverse());
  for (let k = tail; k > 0; k--) out.push([a.length - k, b.length - k]);
  return out;
}

/** Pairs [new, old] of one gap, most similar first, each at least `threshold` similar. */
function similarPairs(olds: number[], news: number[], oldTexts: string[], newTexts: string[], threshold: number): [number, number][] {
  const points = (t: string) => Int32Array.from(Array.from(t.slice(0, COMPARED_POINTS * 2)).slice(0, COMPARED_POINTS), (c) => c.codePointAt(0)!);
  const oldPoints = olds.map((i) => points(oldTexts[i]));
  const candidates: { n: number; i: number; score: number; distance: number }[] = [];
  news.forEach((n, a) => {
    const p = patternOf(points(newTexts[n]));
    // Old blocks near the new block's place in the gap (all of them in a small gap).
    const at = Math.round((a * olds.length) / news.length);
    for (let b = Math.max(0, at - COMPARE_WINDOW); b < Math.min(olds.length, at + COMPARE_WINDOW + 1); b++) {
      const score = similarityOf(p, oldPoints[b], threshold);
      if (score >= threshold) candidates.push({ n, i: olds[b], score, distance: Math.abs(b - at) });
    }
  });
  candidates.sort((x, y) => y.score - x.score || x.distance - y.distance || x.n - y.n || x.i - y.i);
  const pairedNew = new Set<number>();
  const pairedOld = new Set<number>();
  const out: [number, number][] = [];
  for (const c of candidates) {
    if (pairedNew.has(c.n) || pairedOld.has(c.i)) continue;
    pairedNew.add(c.n);
    pairedOld.add(c.i);
    out.push([c.n, c.i]);
  }
  return out;
}

/** 1 − distance ÷ the longer length, or 0 when it is known to be under `threshold`. */
function similarityOf(p: Pattern, b: Int32Array, threshold: number): number {
  const longer = Math.max(p.points.length, b.length);
  if (longer === 0) return 1;
  const max = Math.floor(longer * (1 - threshold) + 1e-9);
  const d = distanceTo(p, b, max);
  return d > max ? 0 : 1 - d / longer;
}

/** The normalized similarity of two texts (0…1), as `alignKeys` scores an edited block. */
export function blockSimilarity(a: string, b: string): number {
  const points = (t: string) => Int32Array.from(Array.from(normalize(t)).slice(0, COMPARED_POINTS), (c) => c.codePointAt(0)!);
  return similarityOf(patternOf(points(a)), points(b), 0);
}

// Levenshtein distance with Myers' bit-parallel algorithm (G. Myers, J. ACM 46(3), 1999, in its
// blocks-of-32 form), as the service's fuzzy memory match computes it (src/site/memory/fuzzy.ts).
interface Pattern {
  points: Int32Array;
  blocks: number;
  low: Int32Array;
  high: Map<number, Int32Array>;
  pv: Int32Array;
  mv: Int32Array;
}

function patternOf(points: Int32Array): Pattern {
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

/** Levenshtein distance of the pattern's text and `b`, or `max + 1` once it must be greater than `max`. */
function distanceTo(p: Pattern, b: Int32Array, max: number): number {
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
  let score = n;
  for (let j = 0; j < m; j++) {
    const c = b[j];
    const base = c < 256 ? c * blocks : -1;
    const eqs = base < 0 ? high.get(c) : undefined;
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
      const top = r === last ? lastBit : highBit;
      const hout = Ph & top ? 1 : Mh & top ? -1 : 0;
      Ph <<= 1;
      Mh <<= 1;
      if (hin < 0) Mh |= 1;
      else if (hin > 0) Ph |= 1;
      pv[r] = Mh | ~(Xv | Ph);
      mv[r] = Ph & Xv;
      hin = hout;
    }
    score += hin;
    if (score - (m - 1 - j) > max) return max + 1;
  }
  return score > max ? max + 1 : score;
}

/** A split with its segments' keys lined up with `previous` (the join's template follows). */
export function alignSplit<S extends { segments: { key: string; text: string }[]; parts: (string | { key: string })[]; problems?: { key?: string }[] }>(
  split: S,
  previous: readonly PreviousSegment[] | undefined,
  options: AlignOptions = {},
): S {
  if (!previous || previous.length === 0) return split;
  const segments = alignKeys(split.segments, previous, options);
  const rename = new Map(split.segments.map((s, i) => [s.key, segments[i].key]));
  const parts = split.parts.map((p) => (typeof p === "string" || rename.get(p.key) === p.key ? p : { ...p, key: rename.get(p.key)! }));
  const problems = split.problems?.map((p) => (p.key === undefined ? p : { ...p, key: rename.get(p.key) ?? p.key }));
  return { ...split, segments, parts, ...(problems ? { problems } : {}) };
}
