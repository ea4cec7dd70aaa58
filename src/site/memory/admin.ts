/**
 * The memory page's work on a site's translation memory (src/site/memory/entries.ts): list and search
 * (through mem-fuzzy's `searchMemory`, the fuzzy index), edit an entry (its text; it becomes
 * origin `human`), delete one, write entries out for a TMX export in pages, and import a TMX
 * file's translations in one transaction (origin `imported`).
 *
 * An entry is named by its key: the source text's fingerprint, source and target language.
 * Writes go through `rememberTranslation` (upserts) or a plain DELETE, so the fuzzy index's
 * triggers follow every change (migrations/site/0006), and each is noted for the organization's
 * memory (`noteMemoryChange`; the object then registers its copy, `shareSoon`).
 */
import { notFound } from "../../errors";
import { fingerprint } from "../fingerprint";
import type { Store } from "../store";
import { nextTurn } from "../turn";
import { rememberTranslation } from "./entries";
import { fuzzyMatches } from "./fuzzy";
import { type MemoryEntry, type MemorySearch, searchMemory } from "./search";
import { noteMemoryChange, noteMemoryChanges } from "./share";
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

/** An entry whose source text is close to a search (a fuzzy match of the query: docs/decisions.md "The translation memory"). */
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
  const entry = store.one<MemoryEntry>(
    `SELECT source_fingerprint, source_language, target_language, source_text, text, origin, updated_at FROM memory WHERE ${KEY_WHERE}`,
    ...keyArgs(key),
  );
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
    // A sharing site's organization memory withdraws it too (share.ts); edits and imports note themselves (rememberTranslation).
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

/** Entries an import stores per transaction: a step of about a tenth of a second, after which requests get their turn. */
export const IMPORT_CHUNK = 2_000;
/** Characters of texts one import statement carries at most (a bound value may not pass 2 MB; 3 bytes a character at worst). */
const IMPORT_JSON = 400_000;

/**
 * Part of a TMX file's translations into the memory, in one transaction, origin `imported`:
 * they are exact hits and fuzzy matches from then on. An entry an editor corrected here (origin
 * `human`) is kept: the editor's word outranks a file's. A file's same source and language
 * twice: the later one wins. Set-based (a statement per IMPORT_JSON characters, not per entry:
 * about 190 µs an entry one by one). Answers what was stored and kept.
 */
export function importMemory(store: Store, sourceLanguage: string, translations: TmxTranslation[]): { stored: number; kept: number } {
  const src = sourceLanguage.toLowerCase();
  const rows = translations.map((t): [string, string, string, string] => [fingerprint(t.source), t.targetLanguage.toLowerCase(), t.text, t.source]);
  return store.tx(() => {
    let kept = 0;
    const now = store.now();
    for (let from = 0; from < rows.length; ) {
      let to = from;
      for (let size = 0; to < rows.length && (to === from || size + rows[to][2].length + rows[to][3].length < IMPORT_JSON); to++)
        size += rows[to][2].length + rows[to][3].length + 100;
      const json = JSON.stringify(rows.slice(from, to));
      // Those an editor corrected are kept (counted before the upsert, which leaves them).
      kept += store.one<{ n: number }>(
        `SELECT count(*) AS n FROM json_each(?1) r JOIN memory m ON m.source_fingerprint = r.value ->> 0 AND m.source_language = ?2
           AND m.target_language = r.value ->> 1 AND m.origin = 'human'`,
        json,
        src,
      )!.n;
      store.run(
        `INSERT INTO memory (source_fingerprint, source_language, target_language, text, origin, updated_at, source_text)
         SELECT r.value ->> 0, ?2, r.value ->> 1, r.value ->> 2, 'imported', ?3, r.value ->> 3 FROM json_each(?1) r WHERE true ORDER BY r.key
         ON CONFLICT (source_fingerprint, source_language, target_language) DO UPDATE SET text = excluded.text, origin = excluded.origin,
           updated_at = excluded.updated_at, source_text = coalesce(excluded.source_text, memory.source_text)
         WHERE memory.origin <> 'human'`,
        json,
        src,
        now,
      );
      // A sharing site's organization memory gets them too (a kept entry noted again is copied as it is: harmless).
      noteMemoryChanges(store, JSON.stringify(rows.slice(from, to).map(([fp, tgt]) => [fp, src, tgt])));
      from = to;
    }
    return { stored: rows.length - kept, kept };
  });
}

/**
 * A TMX file's translations (read and checked by the Worker, tmx.ts), stored in transactions of
 * IMPORT_CHUNK entries with a turn for waiting requests between two: a file of 50,000 entries
 * does not hold the object for seconds. Interrupted (an eviction), the entries stored so far
 * stay; importing the file again completes it (each entry is an upsert).
 */
export async function importMemoryInTurns(store: Store, sourceLanguage: string, translations: TmxTranslation[]) {
  const result = { stored: 0, kept: 0 };
  for (let from = 0; from < translations.length; from += IMPORT_CHUNK) {
    if (from > 0) await nextTurn();
    const part = importMemory(store, sourceLanguage, translations.slice(from, from + IMPORT_CHUNK));
    result.stored += part.stored;
    result.kept += part.kept;
  }
  return result;
}
