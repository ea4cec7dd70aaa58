/**
 * Pushing a unit (spec "Push unit"): the snapshot is diffed against the stored unit in one
 * transaction. Translations are never touched by a text change: they turn stale because
 * their source fingerprint no longer matches, and current again if the text is reverted.
 */
import type { SegmentInput, SyncResult, UnitSnapshot } from "../api/schemas";
import type { SiteSettings } from "../control/sites";
import { refreshUnit, type CountSink } from "./counts";
import { characters, fingerprint } from "./fingerprint";
import { rememberTranslation } from "./memory";
import { lower, siteTargets, targetCodeMap } from "./settings";
import type { Store } from "./store";

interface StoredSegment {
  id: number;
  key: string;
  text: string;
  fingerprint: string;
  characters: number;
  format: string;
  field: string | null;
  kind: string | null;
  max_length: number | null;
  position: number;
  parent_key: string | null;
  removed: number;
}

const structureOf = (s: { format: string; field?: string | null; kind?: string | null; max_length?: number | null; position: number; parent_key?: string | null }) =>
  [s.format, s.field ?? null, s.kind ?? null, s.max_length ?? null, s.position, s.parent_key ?? null];

/** Durable Object SQL binds at most 100 parameters per statement: 9 segment rows of 11. */
const ROWS_PER_INSERT = 9;
/** `INSERT_SEGMENTS[n]` inserts n rows (1 ≤ n ≤ ROWS_PER_INSERT); the same strings each time, so prepared once. */
const INSERT_SEGMENTS = Array.from(
  { length: ROWS_PER_INSERT + 1 },
  (_, n) =>
    `INSERT INTO segments (unit_id, key, text, fingerprint, characters, format, field, kind, max_length, position, parent_key) VALUES ` +
    Array.from({ length: n }, () => "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)").join(", "),
);

const sameStructure = (a: unknown[], b: unknown[]) => a.every((v, i) => v === b[i]);

/** Translations of a segment that were current for `from` and are not for `to` (made stale by this push). */
function countStaled(store: Store, segmentId: number, from: string, to: string): number {
  if (from === to) return 0;
  return store.one<{ n: number }>(
    "SELECT count(*) AS n FROM translations WHERE segment_id = ? AND status <> 'missing' AND source_fingerprint = ?",
    segmentId,
    from,
  )!.n;
}

/**
 * `digest`: SHA-256 of the snapshot as the connector sent it (the batch route computes it). It
 * is stored with the unit unless the snapshot imports translations (whose effect depends on
 * the translations' states, not only on the snapshot), and `pushUnchanged` answers the same
 * snapshot again without reading its segments. Every push sets it, so a stale one never stays.
 */
export function pushUnit(store: Store, settings: SiteSettings, snapshot: UnitSnapshot, digest: string | null = null, sink?: CountSink): SyncResult {
  const now = store.now();
  const targets = siteTargets(settings);
  const codes = targetCodeMap(settings);
  const incoming = snapshot.segments.map((s, i) => ({ ...s, position: s.position ?? i, fp: "", chars: 0 }));

  return store.tx(() => {
    const out: SyncResult = {
      external_key: snapshot.external_key,
      unit_created: false,
      added: 0,
      changed: 0,
      removed: 0,
      unchanged: 0,
      stale_translations: 0,
      imported_translations: 0,
      fingerprint_mismatches: [],
    };
    const unitFields = [
      snapshot.adapter,
      snapshot.label ?? null,
      snapshot.path ?? null,
      snapshot.source_language ?? null,
      snapshot.writable_languages ? JSON.stringify(snapshot.writable_languages) : null,
      snapshot.metadata ? JSON.stringify(snapshot.metadata) : null,
      now,
    ];
    const existing = store.one<{ id: number; deleted: number; writable_languages: string | null; snapshot_digest: string | null; snapshot_mismatches: string | null }>(
      "SELECT id, deleted, writable_languages, snapshot_digest, snapshot_mismatches FROM units WHERE external_key = ?",
      snapshot.external_key,
    );
    let unitId: number;
    if (!existing) {
      unitId = store.one<{ id: number }>(
        `INSERT INTO units (external_key, adapter, label, path, source_language, writable_languages, metadata, last_synced_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
        snapshot.external_key,
        ...unitFields,
      )!.id;
      out.unit_created = true;
    } else {
      unitId = existing.id;
      out.unit_created = existing.deleted === 1;
      store.run(
        `UPDATE units SET adapter = ?, label = ?, path = ?, source_language = ?, writable_languages = ?, metadata = ?, last_synced_at = ?, deleted = 0 WHERE id = ?`,
        ...unitFields,
        unitId,
      );
    }

    const stored = new Map(
      (existing ? store.all<StoredSegment>("SELECT id, key, text, fingerprint, characters, format, field, kind, max_length, position, parent_key, removed FROM segments WHERE unit_id = ?", unitId) : []).map((s) => [s.key, s]),
    );
    const seen = new Set<string>();
    const inserts: unknown[][] = [];

    for (const seg of incoming) {
      seen.add(seg.key);
      const old = stored.get(seg.key);
      // An unchanged text keeps its fingerprint: only new or changed texts are hashed.
      const sameText = old !== undefined && old.text === seg.text;
      seg.fp = sameText ? old.fingerprint : fingerprint(seg.text);
      // Counted once here; estimates, reservations and bills read the stored count.
      seg.chars = sameText ? old.characters : characters(seg.text);
      if (seg.fingerprint && seg.fingerprint.toLowerCase() !== seg.fp) out.fingerprint_mismatches.push(seg.key);
      const fields = [seg.text, seg.fp, seg.chars, ...structureOf(seg)];
      if (!old) {
        inserts.push([seg.key, ...fields]);
        out.added++;
        continue;
      }
      const textChanged = old.text !== seg.text;
      if (old.removed) out.added++;
      else if (old.fingerprint !== seg.fp) out.changed++;
      else out.unchanged++;
      out.stale_translations += countStaled(store, old.id, old.fingerprint, seg.fp);
      if (old.removed || textChanged || !sameStructure(structureOf(old), structureOf(seg))) {
        store.run(
          `UPDATE segments SET text = ?, fingerprint = ?, characters = ?, format = ?, field = ?, kind = ?, max_length = ?, position = ?, parent_key = ?, removed = 0 WHERE id = ?`,
          ...fields,
          old.id,
        );
      }
    }
    // Multi-row INSERTs of up to 9 rows (99 parameters): one statement per 9 rows instead of one per row.
    for (let i = 0; i < inserts.length; i += ROWS_PER_INSERT) {
      const chunk = inserts.slice(i, i + ROWS_PER_INSERT);
      store.run(INSERT_SEGMENTS[chunk.length], ...chunk.flatMap((row) => [unitId, ...row]));
    }
    for (const old of stored.values()) {
      if (!old.removed && !seen.has(old.key)) {
        store.run("UPDATE segments SET removed = 1 WHERE id = ?", old.id);
        out.removed++;
      }
    }

    if (incoming.some((seg) => seg.translations)) {
      const ids = new Map(store.all<{ id: number; key: string }>("SELECT id, key FROM segments WHERE unit_id = ?", unitId).map((r) => [r.key, r.id]));
      out.imported_translations = importTranslations(store, incoming, ids, codes, snapshot.source_language ?? settings.sourceLanguage, now);
    }
    // Counts change only with the segments, their texts, imports or the unit's languages: an unchanged push writes nothing more.
    const languagesChanged = (existing?.writable_languages ?? null) !== unitFields[4];
    if (!existing && !out.imported_translations) refreshUnit(store, targets, unitId, { segments: incoming.length }, sink);
    else if (out.unit_created || out.added || out.changed || out.removed || out.imported_translations || languagesChanged) refreshUnit(store, targets, unitId, undefined, sink);
    const imports = incoming.some((seg) => seg.translations && Object.keys(seg.translations).length);
    const snapshotDigest = imports ? null : digest;
    const mismatches = JSON.stringify(out.fingerprint_mismatches);
    if (existing?.snapshot_digest !== snapshotDigest || existing?.snapshot_mismatches !== mismatches)
      store.run("UPDATE units SET snapshot_digest = ?, snapshot_mismatches = ? WHERE id = ?", snapshotDigest, mismatches, unitId);
    return out;
  });
}

/**
 * Answers the units of a batch whose snapshot is the one last applied (same digest, unit not
 * deleted) as unchanged, touching only `last_synced_at`: one read and one write for all of them.
 * The others are left for `pushUnit`.
 */
export function pushUnchanged(store: Store, units: { external_key: string; digest: string }[]): Map<string, SyncResult> {
  const out = new Map<string, SyncResult>();
  if (!units.length) return out;
  return store.tx(() => {
    const rows = store.all<{ id: number; external_key: string; segment_count: number; snapshot_mismatches: string | null }>(
      `SELECT u.id, u.external_key, u.segment_count, u.snapshot_mismatches FROM json_each(?1) j
       CROSS JOIN units u ON u.external_key = j.value ->> '$.k' AND u.snapshot_digest = j.value ->> '$.d' AND u.deleted = 0`,
      JSON.stringify(units.map((u) => ({ k: u.external_key, d: u.digest }))),
    );
    if (!rows.length) return out;
    store.run("UPDATE units SET last_synced_at = ?1 WHERE id IN (SELECT value FROM json_each(?2))", store.now(), JSON.stringify(rows.map((r) => r.id)));
    for (const r of rows)
      out.set(r.external_key, {
        external_key: r.external_key,
        unit_created: false,
        added: 0,
        changed: 0,
        removed: 0,
        unchanged: r.segment_count,
        stale_translations: 0,
        imported_translations: 0,
        fingerprint_mismatches: r.snapshot_mismatches ? JSON.parse(r.snapshot_mismatches) : [],
      });
    return out;
  });
}

/** `translations` fill only languages still empty (no translation, or rejected/discarded): origin imported, state ok, into the memory. */
function importTranslations(
  store: Store,
  segments: (SegmentInput & { fp: string })[],
  ids: Map<string, number>,
  codes: Map<string, string>,
  sourceLanguage: string,
  now: string,
): number {
  let imported = 0;
  for (const seg of segments) {
    if (!seg.translations) continue;
    for (const [language, text] of Object.entries(seg.translations)) {
      const code = codes.get(lower(language));
      if (!code || text.trim() === "") continue;
      const segmentId = ids.get(seg.key)!;
      const written = store.run(
        `INSERT INTO translations (segment_id, language, text, source_fingerprint, status, origin, engine, result_id, qa, updated_at)
         VALUES (?1, ?2, ?3, ?4, 'ok', 'imported', 'import', NULL, NULL, ?5)
         ON CONFLICT (segment_id, language) DO UPDATE SET text = ?3, source_fingerprint = ?4, status = 'ok', origin = 'imported',
           engine = 'import', result_id = NULL, qa = NULL, updated_at = ?5
         WHERE translations.status = 'missing'`,
        segmentId,
        code,
        text,
        seg.fp,
        now,
      );
      if (written > 0) {
        imported++;
        rememberTranslation(store, seg.fp, sourceLanguage, code, text, "imported");
      }
    }
  }
  return imported;
}

/** DELETE /v1/units/{key}: always succeeds; the data is kept (30 days, src/site/retention.ts) so a later push restores the unit. */
export function deleteUnit(store: Store, settings: SiteSettings, externalKey: string) {
  store.tx(() => {
    const unit = store.one<{ id: number; deleted: number }>("SELECT id, deleted FROM units WHERE external_key = ?", externalKey);
    if (!unit || unit.deleted) return;
    // Results of a deleted unit stop being listed (listing checks the unit) and come back with it.
    store.run("UPDATE units SET deleted = 1, deleted_at = ? WHERE id = ?", store.now(), unit.id);
    refreshUnit(store, siteTargets(settings), unit.id);
  });
}
