/**
 * Fuzzy-match candidates from the index `memory_fts` (FTS5, trigram, over the memory's source
 * texts; migrations/site/0006), for src/site/memory/fuzzy.ts: each text picks up to RARE_TRIGRAMS
 * of its trigrams, the rarest of each stretch of the text (rareTrigrams; how common a trigram is
 * comes from a sample of the memory kept per object, trigramSample; the picks' lists add up to
 * about MAX_RARE_ROWS). One read of the index gives each picked trigram's list of rowids (each
 * trigram once, trigramLists); each text ranks the rows of its picks' lists in JS (rows sharing
 * picks in more of its words first, then rarer picks; a row sharing a single word is no
 * candidate, rankCandidates).
 */
import type { Store } from "../store";

/** Memory rows of the pair scored exactly per text at most (those sharing the most of its picked trigrams). */
export const MAX_CANDIDATES = 12;
/** A text's rare trigrams asked of the index (each has a short list of entries). */
export const RARE_TRIGRAMS = 12;
/** Index rows a text's picked trigrams may have together, by the sample's estimate (all language pairs together: a source text is indexed once per target language). */
export const MAX_RARE_ROWS = 300;
/** Rows read of one trigram's list at most (a longer list weighs next to nothing in the ranking). */
const MAX_LIST = 2000;
/** Memory source texts sampled to estimate how common a trigram is (per object, kept in memory). */
export const SAMPLE_ROWS = 2000;

/**
 * How common each trigram is among the memory's source texts, estimated from a sample of
 * SAMPLE_ROWS entries spread over the rowids (FTS5 keeps no document counts: fts5vocab walks
 * each term's whole list, the very cost this avoids). Kept per store and rebuilt when the
 * memory's highest rowid has moved by more than a tenth.
 */
export interface TrigramSample {
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

/** The store's trigram sample, taken again once the index's highest rowid has moved by more than a tenth. */
export function trigramSample(store: Store): TrigramSample {
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
export function trigramLists(store: Store, grams: string[]): Map<string, number[]> {
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
export function pickWords(pieces: string[], picks: string[]): number[] {
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
export function rankCandidates(picks: string[], words: number[], lists: Map<string, number[]>, entries: number, limit: number): number[] {
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
