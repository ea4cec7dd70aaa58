/**
 * Fuzzy matches (DESIGN.md "Memory and context"): for a text about to go to an engine, the
 * memory's entries whose source text is close to it, given to the engine as examples. A fuzzy
 * match is context only: never delivered, never billed differently, never a memory hit.
 *
 * - similarity = 1 − Levenshtein distance (code points) ÷ the longer text's length, on the
 *   texts after markup protection (each tag, placeholder or URL counts as one code point);
 *   a fuzzy match is ≥ 0.75 and < 1; the best 3 are kept, best first.
 * - Candidates come from `memory_fts` (FTS5, trigram, over the memory's source texts;
 *   migrations/site/0006): one query per distinct text, an OR of up to RARE_TRIGRAMS of its
 *   trigrams, the rarest of each stretch of the text (rareTrigrams; how common a trigram is
 *   comes from a sample of the memory kept per object; the picks' lists add up to about
 *   MAX_RARE_ROWS), ranked by bm25 (more picks shared first), its best MAX_RANKED rows; at most
 *   MAX_CANDIDATES of the language pair are then scored exactly with a banded Levenshtein that
 *   stops once the distance passes the threshold.
 * - A call has a budget (FUZZY_BUDGET_MS): once spent, the texts left get no match.
 * - Texts under 3 code points (after protection) have no trigram and no fuzzy match: none could
 *   reach 0.75 anyway (a 2-code-point text is at most 0.5 from any other).
 */
import type { Format } from "../limits";
import { protect } from "../markup/protect";
import type { Store } from "./store";

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
/** Memory rows scored exactly per text at most (those sharing the most of its picked trigrams). */
export const MAX_CANDIDATES = 12;
/** Index rows ranked per text at most (all language pairs together: a source text is indexed once per target language). */
const MAX_RANKED = 48;
/** A text's rare trigrams asked of the index (an OR: each has a short list of entries). */
export const RARE_TRIGRAMS = 12;
/** Index rows a text's picked trigrams may have together, by the sample's estimate (all language pairs together: a source text is indexed once per target language). */
export const MAX_RARE_ROWS = 300;
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

/** The form texts are compared in: markup protected as for an engine without a markup mode. */
function scoringForm(text: string, format: Format): Scored {
  let shown: string;
  try {
    shown = protect(text, format, "text").text;
  } catch {
    // Markup protection refuses a few malformed texts (the job fails those segments anyway): compare them as they are.
    shown = text;
  }
  const words = shown.toLowerCase().split(TOKEN_RE);
  const points: number[] = [];
  const pieces = shown.split(TOKEN_RE);
  pieces.forEach((piece, i) => {
    if (i > 0) points.push(TOKEN_CHAR);
    for (const ch of piece) points.push(ch.codePointAt(0)!);
  });
  return { points: Int32Array.from(points), words };
}

/**
 * Levenshtein distance of two code-point arrays, or `max + 1` as soon as it is known to be
 * greater than `max` (Ukkonen's band: only cells within `max` of the diagonal are computed).
 */
export function boundedDistance(a: Int32Array, b: Int32Array, max: number): number {
  if (a.length > b.length) [a, b] = [b, a];
  const n = a.length;
  const m = b.length;
  if (m - n > max) return max + 1;
  if (n === 0) return m;
  const BIG = max + 1;
  let prev = new Int32Array(m + 1);
  let cur = new Int32Array(m + 1);
  for (let j = 0; j <= m; j++) prev[j] = j <= max ? j : BIG;
  for (let i = 1; i <= n; i++) {
    const from = Math.max(1, i - max);
    const to = Math.min(m, i + max);
    cur[from - 1] = from === 1 ? (i <= max ? i : BIG) : BIG;
    let rowMin = cur[from - 1];
    const ai = a[i - 1];
    for (let j = from; j <= to; j++) {
      const sub = prev[j - 1] + (ai === b[j - 1] ? 0 : 1);
      const del = prev[j] + 1;
      const ins = cur[j - 1] + 1;
      const v = Math.min(sub, del, ins, BIG);
      cur[j] = v;
      if (v < rowMin) rowMin = v;
    }
    if (to < m) cur[to + 1] = BIG;
    if (rowMin > max) return max + 1;
    [prev, cur] = [cur, prev];
  }
  return prev[m] > max ? max + 1 : prev[m];
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

/**
 * Fuzzy matches for each text (same order as `texts`): up to 3 memory entries of the language
 * pair with 0.75 ≤ similarity < 1, best first (ties: the shorter source first, then its text).
 * One index query per distinct text; texts under 3 code points get none. Once `budget.ms` is
 * spent (checked before each distinct text), the texts left get none.
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
  const done = new Map<string, FuzzyMatch[]>();
  return texts.map((text, i) => {
    const format = formats?.[i] ?? "plain";
    const key = `${format}\u0000${text}`;
    let found = done.get(key);
    if (!found) {
      if (now() - start >= ms) return [];
      found = matchesFor(store, src, tgt, text, format, sample);
      done.set(key, found);
    }
    return found;
  });
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
}
const samples = new WeakMap<Store, TrigramSample>();

/** The distinct trigrams of a text's visible pieces (lowercased, never across markup), in text order. */
export function trigrams(words: string[]): string[] {
  const out = new Set<string>();
  for (const w of words) {
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
  const rows = store.all<{ s: string }>("SELECT source_text AS s FROM memory WHERE rowid IN (SELECT value FROM json_each(?)) AND source_text IS NOT NULL", JSON.stringify(ids));
  const docs = new Map<string, number>();
  const scale = top / Math.max(1, rows.length);
  for (const row of rows) for (const t of trigrams([row.s.toLowerCase()])) docs.set(t, (docs.get(t) ?? 0) + scale);
  const sample = { top, docs, absent: scale / 2 };
  samples.set(store, sample);
  return sample;
}

/**
 * The trigrams a text asks the index for: its trigrams (in text order) cut into RARE_TRIGRAMS
 * runs, the rarest of each run by the sample, spread over the text so that an edit (which
 * breaks the trigrams around it) takes only the picks of the runs it falls in. Picks are then
 * kept rarest first while their estimated lists add up to at most MAX_RARE_ROWS (the rarest
 * always; the text's rarest trigrams elsewhere fill in for a run that had only common ones), so
 * the unranked OR reads little and its rows are not cut by its limit.
 */
export function rareTrigrams(grams: string[], docs: Map<string, number>, absent = 0): string[] {
  const useful = grams.filter((t) => t.trim().length > 0);
  const est = (t: string) => docs.get(t) ?? absent;
  const spread: string[] = [];
  const runs = Math.min(RARE_TRIGRAMS, useful.length);
  for (let k = 0; k < runs; k++) {
    const from = Math.floor((k * useful.length) / runs);
    const to = Math.floor(((k + 1) * useful.length) / runs);
    let best = useful[from];
    for (let i = from + 1; i < to; i++) if (est(useful[i]) < est(best)) best = useful[i];
    spread.push(best);
  }
  const rarest = [...useful].sort((a, b) => est(a) - est(b));
  const picked: string[] = [];
  let rows = 0;
  for (const t of [...[...spread].sort((a, b) => est(a) - est(b)), ...rarest]) {
    if (picked.length >= RARE_TRIGRAMS) break;
    if (picked.includes(t) || (picked.length > 0 && rows + est(t) > MAX_RARE_ROWS)) continue;
    picked.push(t);
    rows += est(t);
  }
  return picked;
}

function matchesFor(store: Store, src: string, tgt: string, text: string, format: Format, sample: TrigramSample): FuzzyMatch[] {
  const me = scoringForm(text, format);
  const n = me.points.length;
  if (n < 3) return [];
  const picked = rareTrigrams(trigrams(me.words), sample.docs, sample.absent);
  if (!picked.length) return [];
  // One OR of the picks, ranked by bm25 (more picks shared first): only the picks' short lists are read (ranking an OR
  // of common trigrams' phrases walked long lists, seconds per slice); the best of the language pair (ties: the closest
  // length; MAX_CANDIDATES) are scored exactly.
  const rows = store.all<{ s: string; t: string }>(
    `WITH c AS MATERIALIZED (SELECT rowid AS id, rank FROM memory_fts WHERE memory_fts MATCH ?4 ORDER BY rank LIMIT ${MAX_RANKED})
     SELECT m.source_text AS s, m.text AS t FROM c JOIN memory m ON m.rowid = c.id
     WHERE m.source_language = ?1 AND m.target_language = ?2 AND m.source_text IS NOT ?3
     ORDER BY c.rank, abs(length(m.source_text) - ?5) LIMIT ${MAX_CANDIDATES}`,
    src,
    tgt,
    text,
    picked.map((t) => `"${t.replaceAll('"', '""')}"`).join(" OR "),
    [...text].length,
  );
  const out: FuzzyMatch[] = [];
  for (const row of rows) {
    const other = scoringForm(row.s, format).points;
    const longer = Math.max(n, other.length);
    // (boundedDistance rules out at once a pair whose lengths alone differ by more than the bound.)
    const d = boundedDistance(me.points, other, maxDistance(longer));
    if (d === 0 || d > maxDistance(longer)) continue;
    const sim = score(d, longer);
    if (sim < FUZZY_THRESHOLD || sim >= 1) continue;
    out.push({ source: row.s, target: row.t, similarity: Math.round(sim * 1000) / 1000 });
  }
  out.sort((a, b) => b.similarity - a.similarity || a.source.length - b.source.length || (a.source < b.source ? -1 : a.source > b.source ? 1 : 0));
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
    const like = `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    if ([...q].length >= 3) {
      where.push(`(m.rowid IN (SELECT rowid FROM memory_fts WHERE memory_fts MATCH ?) OR m.text LIKE ? ESCAPE '\\')`);
      args.push(`"${q.replaceAll('"', '""')}"`, like);
    } else {
      where.push(`(m.source_text LIKE ? ESCAPE '\\' OR m.text LIKE ? ESCAPE '\\')`);
      args.push(like, like);
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
