/**
 * The memory page's work on a site's translation memory (src/site/memory.ts): list and search
 * (through mem-fuzzy's `searchMemory`, the fuzzy index), edit an entry (its text; it becomes
 * origin `human`), delete one, write entries out for a TMX export in pages, and import a TMX
 * file's translations in one transaction (origin `imported`).
 *
 * An entry is named by its key: the source text's fingerprint, source and target language.
 * Writes go through `rememberTranslation` (upserts) or a plain DELETE, so the fuzzy index's
 * triggers follow every change (migrations/site/0006), and each is noted for the organization's
 * memory (`noteMemoryChange`; the object then registers its copy, `shareSoon`).
 */
import { notFound } from "../errors";
import { fingerprint } from "./fingerprint";
import { fuzzyMatches, type MemorySearch, searchMemory } from "./fuzzy";
import { rememberTranslation } from "./memory";
import { noteMemoryChange } from "./memory-share";
import type { Store } from "./store";
import type { TmxTranslation } from "./tmx";

/** A memory entry's key. */
export interface MemoryKey {
  source_fingerprint: string;
  source_language: string;
  target_language: string;
}

/** A language pair the memory holds, with its entries. */
export interface MemoryPair {
  source_language: string;
  target_language: string;
  entries: number;
}

/** The language pairs the memory holds (for the page's filter and the export's choice). */
export function memoryPairs(store: Store): MemoryPair[] {
  return store.all<MemoryPair>(
    "SELECT source_language, target_language, count(*) AS entries FROM memory GROUP BY source_language, target_language ORDER BY source_language, target_language",
  );
}

/** Close entries shown beside a search's listing at most. */
export const SIMILAR_SHOWN = 10;

/** An entry whose source text is close to a search (a fuzzy match of the query, DESIGN.md's similarity). */
export interface SimilarEntry extends MemoryKey {
  source_text: string;
  text: string;
  similarity: number;
}

/**
 * One page of entries for the memory page, and the pairs for its filter. A search of 3
 * characters or more also brings the entries whose source text is a fuzzy match of it (the same
 * index and scoring engines get their examples from: 0.75 ≤ similarity < 1), so a text typed
 * with a typo or a word changed still finds its entry; without an origin filter only (fuzzy
 * matches do not look at origins).
 */
export function listMemory(store: Store, search: MemorySearch) {
  const pairs = memoryPairs(store);
  const q = search.query.trim();
  const similar: SimilarEntry[] = [];
  if ([...q].length >= 3 && !search.origin) {
    const wanted = pairs.filter(
      (p) =>
        (!search.sourceLanguage || p.source_language === search.sourceLanguage.toLowerCase()) &&
        (!search.targetLanguage || p.target_language === search.targetLanguage.toLowerCase()),
    );
    for (const p of wanted)
      for (const m of fuzzyMatches(store, p.source_language, p.target_language, [q])[0])
        similar.push({
          source_fingerprint: fingerprint(m.source),
          source_language: p.source_language,
          target_language: p.target_language,
          source_text: m.source,
          text: m.target,
          similarity: m.similarity,
        });
    similar.sort((a, b) => b.similarity - a.similarity);
  }
  return { ...searchMemory(store, search), pairs, similar: similar.slice(0, SIMILAR_SHOWN) };
}

const KEY_WHERE = "source_fingerprint = ?1 AND source_language = ?2 AND target_language = ?3";
const keyArgs = (k: MemoryKey) => [k.source_fingerprint, k.source_language.toLowerCase(), k.target_language.toLowerCase()];

export function getMemoryEntry(store: Store, key: MemoryKey) {
  const entry = store.one<{
    source_fingerprint: string;
    source_language: string;
    target_language: string;
    source_text: string | null;
    text: string;
    origin: string;
    updated_at: string;
  }>(`SELECT source_fingerprint, source_language, target_language, source_text, text, origin, updated_at FROM memory WHERE ${KEY_WHERE}`, ...keyArgs(key));
  if (!entry) throw notFound("The memory entry");
  return entry;
}

/** An editor's correction: the entry's text changes and its origin becomes `human` (exact hits deliver the new text from now on). */
export function editMemoryEntry(store: Store, key: MemoryKey, text: string) {
  return store.tx(() => {
    const entry = getMemoryEntry(store, key);
    rememberTranslation(store, entry.source_fingerprint, null, entry.source_language, entry.target_language, text, "human");
    return getMemoryEntry(store, key);
  });
}

/** Removes an entry: its text is no longer an exact hit nor a fuzzy match (the index's trigger drops it). */
export function deleteMemoryEntry(store: Store, key: MemoryKey) {
  return store.tx(() => {
    const entry = getMemoryEntry(store, key);
    store.run(`DELETE FROM memory WHERE ${KEY_WHERE}`, ...keyArgs(key));
    // A sharing site's organization memory withdraws it too (memory-share.ts); edits and imports note themselves (rememberTranslation).
    noteMemoryChange(store, entry.source_fingerprint, entry.source_language, entry.target_language);
    return entry;
  });
}

/** Entries a TMX export writes per RPC call (the Worker streams the file page by page). */
export const EXPORT_PAGE = 2_000;

/**
 * A page of entries to export, in rowid order after `after`: those of one pair, or all. Entries
 * without a source text (written before the memory kept it, and not back-filled) cannot be
 * written and are left out.
 */
export function exportMemoryPage(store: Store, q: { sourceLanguage?: string; targetLanguage?: string; after: number; limit?: number }) {
  const limit = q.limit ?? EXPORT_PAGE;
  const pair = q.sourceLanguage && q.targetLanguage;
  const rows = store.all<{ rowid: number; source_language: string; target_language: string; source_text: string; text: string; origin: string; updated_at: string }>(
    `SELECT rowid, source_language, target_language, source_text, text, origin, updated_at FROM memory
     WHERE rowid > ?1 AND source_text IS NOT NULL ${pair ? "AND source_language = ?3 AND target_language = ?4" : ""} ORDER BY rowid LIMIT ?2`,
    q.after,
    limit,
    ...(pair ? [q.sourceLanguage!.toLowerCase(), q.targetLanguage!.toLowerCase()] : []),
  );
  return { entries: rows, next: rows.length === limit ? rows[rows.length - 1].rowid : null };
}

/**
 * A TMX file's translations into the memory, all in one transaction, origin `imported`: they
 * are exact hits and fuzzy matches from then on. An entry an editor corrected here (origin
 * `human`) is kept: the editor's word outranks a file's. Answers what was stored and kept.
 */
export function importMemory(store: Store, sourceLanguage: string, translations: TmxTranslation[]): { stored: number; kept: number } {
  return store.tx(() => {
    let stored = 0;
    let kept = 0;
    const src = sourceLanguage.toLowerCase();
    for (const t of translations) {
      const fp = fingerprint(t.source);
      const human = store.one(
        "SELECT 1 AS x FROM memory WHERE source_fingerprint = ?1 AND source_language = ?2 AND target_language = ?3 AND origin = 'human'",
        fp,
        src,
        t.targetLanguage.toLowerCase(),
      );
      if (human) {
        kept++;
        continue;
      }
      rememberTranslation(store, fp, t.source, src, t.targetLanguage, t.text, "imported");
      stored++;
    }
    return { stored, kept };
  });
}
