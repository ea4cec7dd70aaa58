/**
 * The exact-match translation memory, per site: keyed by the source text's fingerprint,
 * source and target language. Only reviewed texts go in: approvals, imports and review-queue
 * fixes, never unreviewed machine output. A sharing site's memory is copied to its organization's
 * (memory-share.ts); whoever edits or deletes an entry calls `noteMemoryChange` so the copy follows.
 */
import { noteMemoryChange } from "./memory-share";
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
  // A sharing site's organization memory gets it too, off this request's path (memory-share.ts).
  noteMemoryChange(store, sourceFingerprint, sourceLanguage, targetLanguage);
}
