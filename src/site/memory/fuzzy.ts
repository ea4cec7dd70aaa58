/**
 * Fuzzy matches (docs/decisions.md "The translation memory"): for a text about to go to an engine, the
 * memory's entries whose source text is close to it, given to the engine as examples. A fuzzy
 * match is context only: never delivered, never billed differently, never a memory hit.
 *
 * - similarity = 1 − Levenshtein distance (code points) ÷ the longer text's length, on the
 *   texts after markup protection (each tag, placeholder or URL counts as one code point);
 *   a fuzzy match is ≥ 0.75 and < 1; the best 3 are kept, best first.
 * - Candidates come from `memory_fts` (FTS5, trigram, over the memory's source texts;
 *   migrations/site/0006): each text picks up to RARE_TRIGRAMS of its trigrams, the rarest of
 *   each stretch of the text (rareTrigrams; how common a trigram is comes from a sample of the
 *   memory kept per object; the picks' lists add up to about MAX_RARE_ROWS). One read of the
 *   index for the whole call gives each picked trigram's list of rowids (each trigram once,
 *   trigramLists); each text ranks the rows of its picks' lists in JS (rows sharing picks in
 *   more of its words first, then rarer picks; a row sharing a single word is no candidate,
 *   rankCandidates), one read fetches the ranked rows of the language pair, and
 *   at most MAX_CANDIDATES per text are scored exactly with a bit-parallel Levenshtein (Myers)
 *   that gives up once the distance must pass the threshold.
 * - A call has a budget (FUZZY_BUDGET_MS): once spent, the texts left get no match.
 * - Texts under 3 code points (after protection) have no trigram and no fuzzy match: none could
 *   reach 0.75 anyway (a 2-code-point text is at most 0.5 from any other).
 */
import type { Format } from "../../limits";
import { protect } from "../../markup/protect";
import { scan } from "../../markup/scan";
import type { Store } from "../store";

export interface FuzzyMatch {
  /** The memory entry's source text, as pushed. */
  source: string;
  /** Its reviewed translation. */
  target: string;
  /** 0.75 ≤ similarity < 1, rounded to 3 decimals. */
  similarity: number;
}

/** Lowest similarity of a fuzzy match. */
export const FUZZY_THRESHOLD = 0.75;
/** Fuzzy matches kept per text. */
export const FUZZY_MATCHES = 3;
/** Memory rows of the pair scored exactly per text at most (those sharing the most of its picked trigrams). */
export const MAX_CANDIDATES = 12;
/**
 * Index rows kept per text at most, best first (all language pairs together: a source text is
 * indexed once per target language); a call keeps MAX_CANDIDATES + 1 divided by the asked pair's
 * share of the memory (its sample), so that MAX_CANDIDATES of the pair are likely among them.
 */
const MAX_RANKED = 48;
/** A text's rare trigrams asked of the index (each has a short list of entries). */
export const RARE_TRIGRAMS = 12;
/** Index rows a text's picked trigrams may have together, by the sample's estimate (all language pairs together: a source text is indexed once per target language). */
export const MAX_RARE_ROWS = 300;
/** Rows read of one trigram's list at most (a longer list weighs next to nothing in the ranking). */
const MAX_LIST = 2000;
/** Memory source texts sampled to estimate how common a trigram is (per object, kept in memory). */
export const SAMPLE_ROWS = 2000;
/**
 * Milliseconds one call may spend looking texts up (a job slice's budget): once spent, the
 * texts left get no fuzzy match (they are context only), so no slice ever spends seconds here.
 */
export const FUZZY_BUDGET_MS = 20;

/** The look-up's budget and its clock (a test seam: STYLE.md habit 9). */
export interface FuzzyBudget {
  /** Milliseconds the call may spend (default FUZZY_BUDGET_MS). */
  ms?: number;
  /** Milliseconds from any origin (default performance.now). */
  now?: () => number;
}

/** Stands for one protected token (a tag, placeholder, URL) when scoring: one code point. */
const TOKEN_CHAR = 0xfffc;
const TOKEN_RE = /⟦\d+⟧/g;

interface Scored {
  /** Code points after protection, tokens as TOKEN_CHAR. */
  points: Int32Array;
  /** The visible text (tokens removed), lowercased, for trigrams. */
  words: string[];
}

/** Token brackets: protection makes each one a token, so a text having one takes the full protection. */
const BRACKETS = /[⟦⟧]/;
/** A protected token at a given position. */
const TOKEN_AT = /⟦\d+⟧/y;

/** A text as protection shows it to an engine without a markup mode (exported for tests). */
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
function pointsOf(shown: string): Int32Array {
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
function scoringForm(text: string, format: Format): Scored {
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
const score = (d: number, longer: number) => (longer === 0 ? 1 : 1 - d / longer);

/** The similarity of two texts of the given format (0…1), after markup protection. */
export function similarity(a: string, b: string, format: Format = "plain"): number {
  const x = scoringForm(a, format).points;
  const y = scoringForm(b, format).points;
  const longer = Math.max(x.length, y.length);
  return score(boundedDistance(x, y, longer), longer);
}

/** The most distance a pair of these lengths may have and still be a fuzzy match. */
const maxDistance = (longer: number) => Math.floor(longer * (1 - FUZZY_THRESHOLD) + 1e-9);

/** Whether the fuzzy index holds any entry (one look-up): without one, no text can have a fuzzy match. */
export const hasFuzzyIndex = (store: Store): boolean => store.one("SELECT 1 AS x FROM memory_fts LIMIT 1") !== undefined;

/** A distinct text asked (with its format): its scoring form, its picked trigrams and, once looked up, its matches. */
interface Asked {
  text: string;
  format: Format;
  form: Scored;
  picks: string[];
  /** Candidate rowids, best first (words shared, then the shared picks' weight), before the language pair is known. */
  ranked: number[];
  matches: FuzzyMatch[];
}

/**
 * Fuzzy matches for each text (same order as `texts`): up to 3 memory entries of the language
 * pair with 0.75 ≤ similarity < 1, best first (ties: the shorter source first, then its text).
 * Two reads for the whole call: the picked trigrams' lists (each trigram once) and the
 * candidates' texts; texts under 3 code points get none. Once `budget.ms` is spent (checked
 * before each distinct text is ranked), the texts left get none.
 */
export function fuzzyMatches(
  store: Store,
  sourceLanguage: string,
  targetLanguage: string,
  texts: readonly string[],
  formats?: readonly Format[],
  budget: FuzzyBudget = {},
): FuzzyMatch[][] {
  const now = budget.now ?? (() => performance.now());
  const ms = budget.ms ?? FUZZY_BUDGET_MS;
  const src = sourceLanguage.toLowerCase();
  const tgt = targetLanguage.toLowerCase();
  // A memory without indexed entries (most new sites) costs one look-up, not one per text.
  if (!texts.length || !hasFuzzyIndex(store)) return texts.map(() => []);
  const sample = trigramSample(store);
  // The budget counts from here: the sample is read once per object (and when the memory has grown), a bounded cost.
  const start = now();
  const asked = new Map<string, Asked>();
  const keys = texts.map((text, i) => {
    const format = formats?.[i] ?? "plain";
    const key = `${format}\u0000${text}`;
    if (!asked.has(key)) {
      const form = scoringForm(text, format);
      const picks = form.points.length < 3 ? [] : rareTrigrams(trigrams(form.words), sample.docs, sample.absent);
      asked.set(key, { text, format, form, picks, ranked: [], matches: [] });
    }
    return key;
  });
  const lists = trigramLists(store, [...new Set([...asked.values()].flatMap((a) => a.picks))]);
  // Rows ranked per text: enough that MAX_CANDIDATES of the pair are likely among them (the pair's share of the sample).
  const share = sample.pairs.get(`${src}\u0000${tgt}`) ?? 0;
  const ranked = Math.min(MAX_RANKED, Math.ceil((MAX_CANDIDATES + 1) / Math.max(share, 1 / MAX_RANKED)));
  const looked: Asked[] = [];
  for (const a of asked.values()) {
    if (now() - start >= ms) break;
    if (!a.picks.length) continue;
    a.ranked = rankCandidates(a.picks, pickWords(a.form.words, a.picks), lists, sample.top, ranked);
    looked.push(a);
  }
  if (looked.length) {
    const ids = new Set<number>();
    for (const a of looked) for (const id of a.ranked) ids.add(id);
    const rows = new Map<number, { s: string; t: string }>();
    for (const row of store.all<{ id: number; s: string; t: string }>(
      `SELECT rowid AS id, source_text AS s, text AS t FROM memory
       WHERE rowid IN (SELECT value FROM json_each(?1)) AND source_language = ?2 AND target_language = ?3 AND source_text IS NOT NULL`,
      JSON.stringify([...ids]),
      src,
      tgt,
    ))
      rows.set(row.id, row);
    for (const a of looked) a.matches = scoreCandidates(a, rows);
  }
  return keys.map((key) => asked.get(key)!.matches);
}

/**
 * How common each trigram is among the memory's source texts, estimated from a sample of
 * SAMPLE_ROWS entries spread over the rowids (FTS5 keeps no document counts: fts5vocab walks
 * each term's whole list, the very cost this avoids). Kept per store and rebuilt when the
 * memory's highest rowid has moved by more than a tenth.
 */
interface TrigramSample {
  top: number;
  /** The estimate for a trigram the sample lacks: half an entry of the sample, scaled. */
  absent: number;
  /** Entries in the sample having each trigram, scaled to the whole memory (an estimate of its list's length). */
  docs: Map<string, number>;
  /** Each language pair's share of the sampled entries (`${source}\u0000${target}` → 0…1). */
  pairs: Map<string, number>;
}
const samples = new WeakMap<Store, TrigramSample>();

/** A UTF-16 surrogate: a text without one has one code unit per code point. */
const SURROGATE = /[\uD800-\uDFFF]/;

/** The distinct trigrams of a text's visible pieces (lowercased, never across markup), in text order. */
export function trigrams(words: string[]): string[] {
  const out = new Set<string>();
  for (const w of words) {
    if (!SURROGATE.test(w)) {
      // One code unit per code point (most texts): each trigram is a slice.
      for (let i = 0; i + 3 <= w.length; i++) out.add(w.slice(i, i + 3));
      continue;
    }
    const cps = [...w];
    for (let i = 0; i + 3 <= cps.length; i++) out.add(cps[i] + cps[i + 1] + cps[i + 2]);
  }
  return [...out];
}

function trigramSample(store: Store): TrigramSample {
  // The index's highest rowid (its rowids are the memory's): it moves as the back-fill indexes old entries too.
  const top = store.one<{ n: number | null }>("SELECT max(rowid) AS n FROM memory_fts")?.n ?? 0;
  const kept = samples.get(store);
  if (kept && Math.abs(top - kept.top) <= kept.top / 10) return kept;
  const stride = Math.max(1, top / SAMPLE_ROWS);
  const ids: number[] = [];
  for (let id = 1; id <= top && ids.length < SAMPLE_ROWS; id += stride) ids.push(Math.floor(id));
  const rows = store.all<{ s: string; p: string }>(
    "SELECT source_text AS s, source_language || char(0) || target_language AS p FROM memory WHERE rowid IN (SELECT value FROM json_each(?)) AND source_text IS NOT NULL",
    JSON.stringify(ids),
  );
  const docs = new Map<string, number>();
  const pairs = new Map<string, number>();
  const scale = top / Math.max(1, rows.length);
  for (const row of rows) {
    for (const t of trigrams([row.s.toLowerCase()])) docs.set(t, (docs.get(t) ?? 0) + scale);
    pairs.set(row.p, (pairs.get(row.p) ?? 0) + 1 / rows.length);
  }
  const sample = { top, docs, absent: scale / 2, pairs };
  samples.set(store, sample);
  return sample;
}

/**
 * The trigrams a text asks the index for: its trigrams (in text order) cut into RARE_TRIGRAMS
 * runs, the rarest of each run by the sample, spread over the text so that an edit (which
 * breaks the trigrams around it) takes only the picks of the runs it falls in. Picks are then
 * kept rarest first while their estimated lists add up to at most MAX_RARE_ROWS (the rarest
 * always; the text's rarest trigrams elsewhere fill in for a run that had only common ones), so
 * the index read stays small.
 */
export function rareTrigrams(grams: string[], docs: Map<string, number>, absent = 0): string[] {
  // The trigrams with a letter or digit, each with its estimate (read once; indices below point into both).
  const useful: string[] = [];
  const est: number[] = [];
  for (const t of grams)
    if (t.trim().length > 0) {
      useful.push(t);
      est.push(docs.get(t) ?? absent);
    }
  const n = useful.length;
  const runs = Math.min(RARE_TRIGRAMS, n);
  const spread: number[] = [];
  for (let k = 0; k < runs; k++) {
    const from = Math.floor((k * n) / runs);
    const to = Math.floor(((k + 1) * n) / runs);
    let best = from;
    for (let i = from + 1; i < to; i++) if (est[i] < est[best]) best = i;
    spread.push(best);
  }
  const taken = new Uint8Array(n);
  const picked: string[] = [];
  let rows = 0;
  const fits = (i: number) => picked.length === 0 || rows + est[i] <= MAX_RARE_ROWS;
  const take = (i: number) => {
    taken[i] = 1;
    picked.push(useful[i]);
    rows += est[i];
  };
  // The runs' picks, rarest first, while their lists fit (in this order, once one does not, no later one does).
  for (const i of spread.sort((x, y) => est[x] - est[y])) {
    if (picked.length >= RARE_TRIGRAMS || !fits(i)) break;
    take(i);
  }
  // Then the text's rarest trigrams not yet picked, rarest first (ties: in text order), while they fit.
  while (picked.length < RARE_TRIGRAMS) {
    let best = -1;
    for (let i = 0; i < n; i++) if (!taken[i] && (best < 0 || est[i] < est[best])) best = i;
    if (best < 0 || !fits(best)) break;
    take(best);
  }
  return picked;
}

/**
 * The index's list of each trigram (rowids of the entries having it), in one read: one
 * single-trigram MATCH per trigram inside the statement, each list folded into one string.
 */
function trigramLists(store: Store, grams: string[]): Map<string, number[]> {
  const lists = new Map<string, number[]>();
  if (!grams.length) return lists;
  const rows = store.all<{ t: string; ids: string }>(
    `SELECT j.value AS t, (SELECT json_group_array(id) FROM (SELECT rowid AS id FROM memory_fts WHERE memory_fts MATCH '"' || replace(j.value, '"', '""') || '"' LIMIT ${MAX_LIST})) AS ids
   FROM json_each(?) j`,
    JSON.stringify(grams),
  );
  for (const row of rows) {
    const list = JSON.parse(row.ids) as number[];
    // Ascending, as FTS5 answers (rankCandidates merges the lists in order): made sure of, at the cost of one pass.
    for (let i = 1; i < list.length; i++)
      if (list[i] < list[i - 1]) {
        list.sort((x, y) => x - y);
        break;
      }
    lists.set(row.t, list);
  }
  return lists;
}

/**
 * The word of the text each pick lies in (its first occurrence; words: pieces of text between
 * white space or markup), so that a row sharing two picks of one rare word counts as one word shared.
 */
function pickWords(pieces: string[], picks: string[]): number[] {
  const text = pieces.join(" ");
  const wordAt = new Int32Array(text.length);
  let word = 0;
  for (let i = 0; i < text.length; i++) {
    if (text.charCodeAt(i) <= 32 && i > 0 && text.charCodeAt(i - 1) > 32) word++;
    wordAt[i] = word;
  }
  return picks.map((t) => wordAt[Math.max(0, text.indexOf(t))]);
}

/**
 * A text's candidates, best first, at most `limit`: the rows the index singles out. A row must
 * share picks in two of the text's words (`words`: the word each pick lies in) when the picks
 * lie in three words or more, else in one, unless it shares a pick whose list is no longer than
 * MAX_CANDIDATES (so rare it names its rows). A row sharing picks of a single word is one among
 * that word's whole list (two picks of one rare word are not two clues), which ranking could not
 * tell apart; a one-word edit takes at most one word of a true match. Ranked by words shared,
 * then the picks' weight (a rarer pick weighs more: ln(1 + entries ÷ (1 + its list's length)), as
 * an inverse document frequency), then the newer row.
 */
function rankCandidates(picks: string[], words: number[], lists: Map<string, number[]>, entries: number, limit: number): number[] {
  const k = picks.length;
  const ls = picks.map((t) => lists.get(t) ?? []);
  const weights = ls.map((list) => Math.log(1 + entries / (1 + list.length)));
  // Each pick's word as a bit (the picks lie in at most RARE_TRIGRAMS words): a row's words shared are the bits it has.
  const distinct = [...new Set(words)];
  const bit = words.map((w) => 1 << distinct.indexOf(w));
  // Words a row must share: two when the text's picks lie in three words or more (an edit may take one), else one; or
  // one pick so rare its list is within MAX_CANDIDATES.
  const needed = Math.max(1, Math.min(2, distinct.length - 1));
  const rare = Math.log(1 + entries / (1 + MAX_CANDIDATES));
  // The best `limit`, kept sorted in two small arrays as the rows go by.
  const ids: number[] = [];
  const ws: number[] = [];
  // The lists merged in rowid order (each is ascending): every row once, with the picks it shares.
  const at = new Int32Array(k);
  for (;;) {
    let id = Number.POSITIVE_INFINITY;
    for (let j = 0; j < k; j++) if (at[j] < ls[j].length && ls[j][at[j]] < id) id = ls[j][at[j]];
    if (id === Number.POSITIVE_INFINITY) break;
    let w = 0;
    let rarest = 0;
    let mask = 0;
    for (let j = 0; j < k; j++)
      if (at[j] < ls[j].length && ls[j][at[j]] === id) {
        at[j]++;
        w += weights[j];
        if (weights[j] > rarest) rarest = weights[j];
        mask |= bit[j];
      }
    let shared = 0;
    for (; mask; mask &= mask - 1) shared++;
    if (shared < needed && rarest < rare) continue;
    // A row's value: 1,024 per word it shares (more words first), plus its picks' weights (below 1,024: ln(1 + entries) < 64 each).
    w += 1024 * shared;
    const full = ids.length >= limit;
    if (full && (w < ws[limit - 1] || (w === ws[limit - 1] && id < ids[limit - 1]))) continue;
    let j = full ? limit - 1 : ids.length;
    while (j > 0 && (ws[j - 1] < w || (ws[j - 1] === w && ids[j - 1] < id))) {
      ws[j] = ws[j - 1];
      ids[j] = ids[j - 1];
      j--;
    }
    ws[j] = w;
    ids[j] = id;
  }
  return ids;
}

/** The exact scoring of a text's candidates of the pair (`rows`; at most MAX_CANDIDATES, in rank order): its best 3. */
function scoreCandidates(a: Asked, rows: Map<number, { s: string; t: string }>): FuzzyMatch[] {
  const n = a.form.points.length;
  const pattern = patternOf(a.form.points);
  const out: FuzzyMatch[] = [];
  let scored = 0;
  for (const id of a.ranked) {
    const row = rows.get(id);
    if (!row || row.s === a.text) continue;
    if (scored++ >= MAX_CANDIDATES) break;
    const other = pointsOf(shownText(row.s, a.format));
    const longer = Math.max(n, other.length);
    // (distanceTo rules out at once a pair whose lengths alone differ by more than the bound.)
    const d = distanceTo(pattern, other, maxDistance(longer));
    if (d === 0 || d > maxDistance(longer)) continue;
    const sim = score(d, longer);
    if (sim < FUZZY_THRESHOLD || sim >= 1) continue;
    out.push({ source: row.s, target: row.t, similarity: Math.round(sim * 1000) / 1000 });
  }
  out.sort((x, y) => y.similarity - x.similarity || x.source.length - y.source.length || (x.source < y.source ? -1 : x.source > y.source ? 1 : 0));
  return out.slice(0, FUZZY_MATCHES);
}

// ------------------------------------------------------------------ the memory page's search

export interface MemoryEntry {
  source_fingerprint: string;
  source_language: string;
  target_language: string;
  /** Null for an entry written before the memory kept source texts whose text the back-fill did not find. */
  source_text: string | null;
  text: string;
  origin: string;
  updated_at: string;
}

export interface MemorySearch {
  /** Words to find: in the source text (through the trigram index) or the translation. Empty: every entry. */
  query: string;
  sourceLanguage?: string;
  targetLanguage?: string;
  origin?: string;
  limit: number;
  offset: number;
}

/**
 * The memory page's listing (mem-page): entries of the filters, newest first, with the total
 * for paging. A query of 3 code points or more is looked up in the fuzzy index (a
 * case-insensitive substring of the source text) or found in the translation; a shorter one
 * is a substring of either, by scan.
 */
export function searchMemory(store: Store, search: MemorySearch): { entries: MemoryEntry[]; total: number } {
  const where: string[] = [];
  const args: unknown[] = [];
  const q = search.query.trim();
  if (q !== "") {
    // Substrings through instr() on lower-cased text (what LIKE does for ASCII), not LIKE: the
    // platform's SQLite refuses a LIKE pattern past a few dozen bytes, and a search may be long.
    const contains = (column: string) => `instr(lower(${column}), lower(?)) > 0`;
    if ([...q].length >= 3) {
      where.push(`(m.rowid IN (SELECT rowid FROM memory_fts WHERE memory_fts MATCH ?) OR ${contains("m.text")})`);
      args.push(`"${q.replaceAll('"', '""')}"`, q);
    } else {
      where.push(`(${contains("m.source_text")} OR ${contains("m.text")})`);
      args.push(q, q);
    }
  }
  const filters: [string, string | undefined][] = [
    ["m.source_language = ?", search.sourceLanguage?.toLowerCase()],
    ["m.target_language = ?", search.targetLanguage?.toLowerCase()],
    ["m.origin = ?", search.origin],
  ];
  for (const [sql, value] of filters)
    if (value) {
      where.push(sql);
      args.push(value);
    }
  const filter = where.length ? `WHERE ${where.join(" AND ")}` : "";
  const total = store.one<{ n: number }>(`SELECT count(*) AS n FROM memory m ${filter}`, ...args)!.n;
  const entries = store.all<MemoryEntry>(
    `SELECT m.source_fingerprint, m.source_language, m.target_language, m.source_text, m.text, m.origin, m.updated_at
     FROM memory m ${filter} ORDER BY m.updated_at DESC, m.rowid DESC LIMIT ? OFFSET ?`,
    ...args,
    search.limit,
    search.offset,
  );
  return { entries, total };
}
