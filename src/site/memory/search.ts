/**
 * The memory page's search (mem-page): the memory's entries by language pair, origin and words,
 * newest first. Words of 3 code points or more are looked up in the source texts through the
 * fuzzy index `memory_fts` (src/site/memory/fuzzy-index.ts).
 */
import type { Store } from "../store";

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
