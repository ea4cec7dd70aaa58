/**
 * The translation memory, per site: keyed by the source text's fingerprint, source and target
 * language. Only reviewed texts go in: approvals, imports and review-queue fixes, never
 * unreviewed machine output. Each entry keeps its source text (`source_text`), which the fuzzy
 * index `memory_fts` (src/site/memory/fuzzy-index.ts) follows through triggers (migrations/site/0006). A
 * sharing site's memory is copied to its organization's (share.ts); whoever edits or
 * deletes an entry calls `noteMemoryChange` so the copy follows.
 */

import type { Store } from "../store";
import { noteMemoryChange } from "./share";

export type MemoryOrigin = "approved" | "human" | "imported";

/**
 * Stores a reviewed translation. `sourceText` is the source as pushed (null when the caller
 * does not know it: an entry that has one keeps it). Writes are upserts, never REPLACE, so the
 * fuzzy index's triggers see every change.
 */
export function rememberTranslation(
  store: Store,
  sourceFingerprint: string,
  sourceText: string | null,
  sourceLanguage: string,
  targetLanguage: string,
  text: string,
  origin: MemoryOrigin,
) {
  store.run(
    `INSERT INTO memory (source_fingerprint, source_language, target_language, text, origin, updated_at, source_text) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
     ON CONFLICT (source_fingerprint, source_language, target_language) DO UPDATE SET text = ?4, origin = ?5, updated_at = ?6,
       source_text = coalesce(?7, memory.source_text)`,
    sourceFingerprint,
    sourceLanguage.toLowerCase(),
    targetLanguage.toLowerCase(),
    text,
    origin,
    store.now(),
    sourceText,
  );
  // A sharing site's organization memory gets it too, off this request's path (share.ts).
  noteMemoryChange(store, sourceFingerprint, sourceLanguage, targetLanguage);
}

/** Memory rows the back-fill looks at per alarm run (one statement; requests are answered between runs). */
export const MEMORY_INDEX_ROWS_PER_RUN = 1_000;

/** Meta key: the highest memory rowid the back-fill has looked at. */
const BACKFILL_CURSOR = "memory_index_cursor";

/**
 * One step of the back-fill for entries written before the memory kept its source text
 * (migration 0006 registers the alarm need `memory_index`): the next `rows` entries, in rowid
 * order, take their source text from a segment with the same fingerprint and source language
 * (the triggers then index them). Entries whose text is no longer among the segments stay
 * without source text and out of the index. Answers whether rows are left.
 */
export function backfillMemorySourceText(store: Store, siteSourceLanguage: string, rows = MEMORY_INDEX_ROWS_PER_RUN): { done: number; more: boolean } {
  return store.tx(() => {
    const cursor = store.getMeta<number>(BACKFILL_CURSOR) ?? 0;
    const last = store.one<{ last: number | null; n: number }>(
      "SELECT max(rowid) AS last, count(*) AS n FROM (SELECT rowid FROM memory WHERE rowid > ? ORDER BY rowid LIMIT ?)",
      cursor,
      rows,
    )!;
    if (last.last === null) return { done: 0, more: false };
    store.run(
      `UPDATE memory SET source_text = (SELECT s.text FROM segments s JOIN units u ON u.id = s.unit_id
         WHERE s.fingerprint = memory.source_fingerprint AND lower(coalesce(u.source_language, ?3)) = memory.source_language LIMIT 1)
       WHERE rowid > ?1 AND rowid <= ?2 AND source_text IS NULL`,
      cursor,
      last.last,
      siteSourceLanguage,
    );
    store.setMeta(BACKFILL_CURSOR, last.last);
    const more = store.one<{ x: number }>("SELECT 1 AS x FROM memory WHERE rowid > ? LIMIT 1", last.last) !== undefined;
    return { done: last.n, more };
  });
}

// ------------------------------------------------------------------ keeping the fuzzy index merged

/**
 * Index pages (FTS5 leaves, about 4 KB each) one merge step writes at most: about 0.8 MB, some
 * 20 ms on a development machine. Requests are answered between steps.
 */
export const MERGE_PAGES = 200;
/** New memory entries since the index was last merged whole that call for another merge: at least this many, and a quarter of the memory. */
export const MERGE_GROWTH = 1_000;
/** Meta key: the memory's highest rowid when the index was last merged whole. */
const MERGED_TOP = "memory_fts_merged_top";

/**
 * Whether the fuzzy index has grown enough since it was last merged whole to merge it again:
 * by MERGE_GROWTH entries and a quarter of the memory, so the pages merging rewrites stay a
 * small multiple of what was written (each whole merge rewrites the index). Two reads by key.
 */
export function indexNeedsMerge(store: Store): boolean {
  const top = store.one<{ n: number | null }>("SELECT max(rowid) AS n FROM memory")?.n ?? 0;
  const merged = store.getMeta<number>(MERGED_TOP) ?? 0;
  return top - merged >= Math.max(MERGE_GROWTH, merged / 4);
}

/**
 * One step of merging the fuzzy index's b-trees (segments) into one (alarm need
 * `memory_merge`): FTS5's `merge` with a negative page count, which takes every segment
 * whatever its level and writes at most `pages` pages. Each write to the memory adds a small
 * segment (FTS5's automerge folds those in as it goes); after a bulk write (the back-fill, a
 * TMX import, many approvals) the index is left in several, and every trigram look-up probes
 * each one. Answers whether work is left (FTS5's own test: a step that did work changed at
 * least two rows); once none is, the memory's highest rowid is kept as merged.
 */
export function mergeMemoryIndex(store: Store, pages = MERGE_PAGES): { more: boolean } {
  const changes = () => store.one<{ n: number }>("SELECT total_changes() AS n")!.n;
  const before = changes();
  store.run("INSERT INTO memory_fts (memory_fts, rank) VALUES ('merge', ?)", -pages);
  if (changes() - before >= 2) return { more: true };
  store.setMeta(MERGED_TOP, store.one<{ n: number | null }>("SELECT max(rowid) AS n FROM memory")?.n ?? 0);
  return { more: false };
}
