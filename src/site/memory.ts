/**
 * The exact-match translation memory, per site: keyed by the source text's fingerprint,
 * source and target language. Only reviewed texts go in: approvals, imports and review-queue
 * fixes, never unreviewed machine output.
 */
import type { Store } from "./store";

export type MemoryOrigin = "approved" | "human" | "imported";

export function rememberTranslation(store: Store, sourceFingerprint: string, sourceLanguage: string, targetLanguage: string, text: string, origin: MemoryOrigin) {
  store.run(
    `INSERT INTO memory (source_fingerprint, source_language, target_language, text, origin, updated_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)
     ON CONFLICT (source_fingerprint, source_language, target_language) DO UPDATE SET text = ?4, origin = ?5, updated_at = ?6`,
    sourceFingerprint,
    sourceLanguage.toLowerCase(),
    targetLanguage.toLowerCase(),
    text,
    origin,
    store.now(),
  );
}

export interface MemoryKey {
  fingerprint: string;
  sourceLanguage: string;
  targetLanguage: string;
}

export const memoryKey = (k: MemoryKey) => `${k.fingerprint}\u0000${k.sourceLanguage.toLowerCase()}\u0000${k.targetLanguage.toLowerCase()}`;

/** Looks up many keys in one query; answers a map from key to text. */
export function lookupMemory(store: Store, keys: MemoryKey[]): Map<string, string> {
  const found = new Map<string, string>();
  if (!keys.length) return found;
  const rows = store.all<{ f: string; s: string; t: string; text: string }>(
    `SELECT m.source_fingerprint AS f, m.source_language AS s, m.target_language AS t, m.text
     FROM json_each(?1) k
     JOIN memory m ON m.source_fingerprint = json_extract(k.value, '$[0]') AND m.source_language = json_extract(k.value, '$[1]')
       AND m.target_language = json_extract(k.value, '$[2]')`,
    JSON.stringify(keys.map((k) => [k.fingerprint, k.sourceLanguage.toLowerCase(), k.targetLanguage.toLowerCase()])),
  );
  for (const r of rows) found.set(memoryKey({ fingerprint: r.f, sourceLanguage: r.s, targetLanguage: r.t }), r.text);
  return found;
}
