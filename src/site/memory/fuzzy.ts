/**
 * Fuzzy matches (docs/decisions.md "The translation memory"): for a text about to go to an engine, the
 * memory's entries whose source text is close to it, given to the engine as examples. A fuzzy
 * match is context only: never delivered, never billed differently, never a memory hit.
 *
 * - similarity = 1 − Levenshtein distance (code points) ÷ the longer text's length, on the
 *   texts after markup protection (each tag, placeholder or URL counts as one code point);
 *   a fuzzy match is ≥ 0.75 and < 1; the best 3 are kept, best first (src/site/memory/similarity.ts).
 * - Candidates come from `memory_fts` (FTS5, trigram, over the memory's source texts;
 *   migrations/site/0006; src/site/memory/fuzzy-index.ts): each text picks up to RARE_TRIGRAMS of its trigrams, the rarest of
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
import type { Store } from "../store";
import { MAX_CANDIDATES, pickWords, rankCandidates, rareTrigrams, trigramLists, trigramSample, trigrams } from "./fuzzy-index";
import { distanceTo, patternOf, pointsOf, type Scored, score, scoringForm, shownText } from "./similarity";

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
/**
 * Index rows kept per text at most, best first (all language pairs together: a source text is
 * indexed once per target language); a call keeps MAX_CANDIDATES + 1 divided by the asked pair's
 * share of the memory (its sample), so that MAX_CANDIDATES of the pair are likely among them.
 */
const MAX_RANKED = 48;
/**
 * Milliseconds one call may spend looking texts up (a job slice's budget): once spent, the
 * texts left get no fuzzy match (they are context only), so no slice ever spends seconds here.
 */
export const FUZZY_BUDGET_MS = 20;

/** The look-up's budget and its clock (a test seam, passed in: docs/decisions.md "The house: operations, seams, tests"). */
export interface FuzzyBudget {
  /** Milliseconds the call may spend (default FUZZY_BUDGET_MS). */
  ms?: number;
  /** Milliseconds from any origin (default performance.now). */
  now?: () => number;
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
