/**
 * Fuzzy matches (DESIGN.md "Memory and context"): for a text about to go to an engine, the
 * memory's entries whose source text is close to it, given to the engine as examples. A fuzzy
 * match is context only: never delivered, never billed differently, never a memory hit.
 *
 * - similarity = 1 − Levenshtein distance (code points) ÷ the longer text's length, on the
 *   texts after markup protection (each tag, placeholder or URL counts as one code point);
 *   a fuzzy match is ≥ 0.75 and < 1; the best 3 are kept, best first.
 * - Candidates come from `memory_fts` (FTS5, trigram, over the memory's source texts;
 *   migrations/site/0006): one query per distinct text, an OR of the phrases its text is cut
 *   into (chunkQuery) ranked by bm25, its best MAX_INDEX_ROWS matches, at most MAX_CANDIDATES rows of the language pair; each is
 *   then scored exactly with a banded Levenshtein that stops once the distance passes the
 *   threshold.
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
/** Memory rows scored per text at most (the index's best by bm25). */
export const MAX_CANDIDATES = 12;
/** Index rows looked at per text at most, all language pairs together (a source text is indexed once per target language). */
export const MAX_INDEX_ROWS = 48;
/** Chunks (phrases) a text is cut into for its index query. */
export const QUERY_CHUNKS = 4;

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

/**
 * The FTS5 query for a text: an OR of up to QUERY_CHUNKS phrases, the text's visible pieces
 * (never inside markup) cut into disjoint chunks of at least 3 code points. A phrase of
 * trigrams matches only where the chunk occurs as it is, so the query is selective (each
 * phrase is an intersection of the trigrams' lists, not their union) while an edit breaks only
 * the chunk it falls in: a text with fewer edits than chunks always keeps one intact. bm25
 * bm25 ranks entries with more intact chunks first. Null when the text has no trigram.
 */
export function chunkQuery(words: string[]): string | null {
  const pieces = words.map((w) => [...w]).filter((cps) => cps.length >= 3);
  const total = pieces.reduce((n, cps) => n + cps.length, 0);
  if (total === 0) return null;
  const size = Math.max(3, Math.floor(total / QUERY_CHUNKS));
  const chunks = new Set<string>();
  for (const cps of pieces) {
    for (let i = 0; i + 3 <= cps.length; i += size) {
      // The last chunk of a piece takes the rest when what is left would be too short on its own.
      const end = cps.length - (i + size) < 3 ? cps.length : i + size;
      const chunk = cps.slice(i, end).join("");
      // A chunk of whitespace only tells nothing.
      if (chunk.trim().length >= 3) chunks.add(chunk);
      if (end === cps.length) break;
    }
  }
  if (chunks.size === 0) return null;
  return [...chunks].map((t) => `"${t.replaceAll('"', '""')}"`).join(" OR ");
}

/**
 * Fuzzy matches for each text (same order as `texts`): up to 3 memory entries of the language
 * pair with 0.75 ≤ similarity < 1, best first (ties: the shorter source first, then its text).
 * One index query per distinct text; texts under 3 code points get none.
 */
export function fuzzyMatches(store: Store, sourceLanguage: string, targetLanguage: string, texts: readonly string[], formats?: readonly Format[]): FuzzyMatch[][] {
  const src = sourceLanguage.toLowerCase();
  const tgt = targetLanguage.toLowerCase();
  // A memory without indexed entries (most new sites) costs one look-up, not one per text.
  if (!texts.length || store.one("SELECT 1 AS x FROM memory_fts LIMIT 1") === undefined) return texts.map(() => []);
  const done = new Map<string, FuzzyMatch[]>();
  return texts.map((text, i) => {
    const format = formats?.[i] ?? "plain";
    const key = `${format}\u0000${text}`;
    let found = done.get(key);
    if (!found) {
      found = matchesFor(store, src, tgt, text, format);
      done.set(key, found);
    }
    return found;
  });
}

function matchesFor(store: Store, src: string, tgt: string, text: string, format: Format): FuzzyMatch[] {
  const me = scoringForm(text, format);
  const n = me.points.length;
  if (n < 3) return [];
  const query = chunkQuery(me.words);
  if (query === null) return [];
  // The index is asked first (materialized, so the planner never scans the memory and probes the index per row); its
  // best rows (bm25: more intact chunks first) are then narrowed to the language pair. The same source text is there
  // once per target language. Without the ordering the query is about 5× faster but its first rows (by rowid) missed
  // half the true matches in bench i.
  const rows = store.all<{ s: string; t: string }>(
    `WITH c AS MATERIALIZED (SELECT rowid AS id, rank FROM memory_fts WHERE memory_fts MATCH ?1 ORDER BY rank LIMIT ?5)
     SELECT m.source_text AS s, m.text AS t FROM c JOIN memory m ON m.rowid = c.id
     WHERE m.source_language = ?2 AND m.target_language = ?3 ORDER BY c.rank LIMIT ?4`,
    query,
    src,
    tgt,
    MAX_CANDIDATES,
    MAX_INDEX_ROWS,
  );
  const out: FuzzyMatch[] = [];
  for (const row of rows) {
    if (row.s === text) continue;
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
