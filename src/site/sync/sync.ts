/**
 * Pushing a unit (spec "Push unit"): the snapshot is diffed against the stored unit in one
 * transaction. Translations are never touched by a text change: they turn stale because
 * their source fingerprint no longer matches, and current again if the text is reverted.
 */
import type { SegmentInput, SyncResult, UnitSnapshot } from "../../api/schemas";
import type { SiteSettings } from "../../control/sites.control";
import { CHANGE_SEQ } from "../change-seq";
import { characters, fingerprint } from "../fingerprint";
import { rememberTranslation } from "../memory/entries";
import { lower, siteTargets, targetCodeMap } from "../settings";
import type { Store } from "../store";
import { SEGMENT_ROW, type SegmentSource, type StoredSegment, sameSegment, UNIT_ROW, type UnitSource } from "./columns";
import { type CountSink, newUnitCounts, refreshUnit, writeNewUnitCounts } from "./counts";
import { PushWrites, type UnitRef } from "./push-writes";

export type { StoredSegment } from "./columns";

interface StoredUnit {
  id: number;
  deleted: number;
  writable_languages: string | null;
}

/**
 * A batch's units as stored before it is applied, read in one statement: key → row, or null
 * for a key no unit has. Only keys that occur once in the batch are answered: a key's second
 * push must see its first, so it is read when its turn comes.
 */
export type KnownUnits = Map<string, StoredUnit | null>;

export function knownUnits(store: Store, keys: readonly string[]): KnownUnits {
  const seen = new Map<string, number>();
  for (const key of keys) seen.set(key, (seen.get(key) ?? 0) + 1);
  const once = [...seen].filter(([, n]) => n === 1).map(([key]) => key);
  const out: KnownUnits = new Map(once.map((key) => [key, null]));
  if (!once.length) return out;
  for (const row of store.all<StoredUnit & { external_key: string }>(
    "SELECT id, deleted, writable_languages, external_key FROM units WHERE external_key IN (SELECT value FROM json_each(?))",
    JSON.stringify(once),
  ))
    out.set(row.external_key, { id: row.id, deleted: row.deleted, writable_languages: row.writable_languages });
  return out;
}

/**
 * The push's statements for a unit or segment it already has, built from the column lists
 * (src/site/sync/columns.ts); the INSERTs of new rows are in src/site/sync/push-writes.ts.
 * An UPDATE stamps the row with the site's change sequence (src/site/change-seq.ts) when its
 * flag, bound before the row's id, says so.
 */
const INSERT_UNIT = `INSERT INTO units (${UNIT_ROW.insert.names.join(", ")}) VALUES (${UNIT_ROW.insert.names.map(() => "?").join(", ")}) RETURNING id`;
const UPDATE_UNIT = `UPDATE units SET ${UNIT_ROW.update.set}, deleted = 0, seq = CASE WHEN ? THEN ${CHANGE_SEQ} ELSE seq END WHERE id = ?`;
const SELECT_SEGMENTS = `SELECT ${SEGMENT_ROW.selected("id", "removed")} FROM segments WHERE unit_id = ?`;
const UPDATE_SEGMENT = `UPDATE segments SET ${SEGMENT_ROW.update.set}, seq = CASE WHEN removed = 1 OR ? THEN ${CHANGE_SEQ} ELSE seq END, removed = 0 WHERE id = ?`;

/**
 * Translations of a segment that were current for `from` and are not for `to` (made stale by this
 * push), counted by the statement that stamps them with the site's change sequence: work that
 * arose now, which jobs created before leave to the next one (src/site/change-seq.ts).
 */
function staleTranslations(store: Store, segmentId: number, from: string, to: string): number {
  if (from === to) return 0;
  return store.run(`UPDATE translations SET seq = ${CHANGE_SEQ} WHERE segment_id = ? AND status <> 'missing' AND source_fingerprint = ?`, segmentId, from);
}

/** Pushes one unit in a transaction of its own (see `applySnapshot`). */
export function pushUnit(store: Store, settings: SiteSettings, snapshot: UnitSnapshot, digest: string | null = null, sink?: CountSink): SyncResult {
  return store.tx(() => {
    const writes = new PushWrites(store);
    const result = applySnapshot(store, settings, snapshot, digest, sink, writes);
    writes.flush();
    return result;
  });
}

/**
 * Applies one unit's snapshot. It opens no transaction: the caller runs it inside one
 * (`pushUnit`, or `pushBatch` for a whole batch) so that a failure leaves nothing half-written.
 *
 * `digest`: SHA-256 of the snapshot as the connector sent it (the batch route computes it). It
 * is stored with the unit unless the snapshot imports translations (whose effect depends on
 * the translations' states, not only on the snapshot), and `pushUnchanged` answers the same
 * snapshot again without reading its segments. Every push sets it, so a stale one never stays.
 *
 * `writes`: where its new segments wait to be written in bulk (src/site/sync/push-writes.ts); the
 * caller flushes it before its transaction ends. A batch shares one among its units, and a unit
 * that reads stored segments flushes it first, so each unit still sees the ones before it.
 * `units`: the batch's units as `knownUnits` read them before it began, so that each is not
 * looked up by a statement of its own.
 *
 * The steps below, in the order they run.
 */
export function applySnapshot(
  store: Store,
  settings: SiteSettings,
  snapshot: UnitSnapshot,
  digest: string | null,
  sink: CountSink | undefined,
  writes: PushWrites,
  units?: KnownUnits,
): SyncResult {
  const push = beginPush(store, settings, snapshot, writes);
  const existing = readUnit(push, units);
  const stored = readSegments(push, existing);
  const compared = updateSegments(push, stored);
  removeAbsent(push, stored);
  const { unit, fresh } = writeUnit(push, existing, digest);
  holdAdded(push, unit, compared);
  importSnapshotTranslations(push, unit, compared);
  refreshCounts(push, unit, existing, fresh, sink);
  return push.out;
}

/** What the steps of one push share: the snapshot, what is derived from it once, and the result they fill in. */
interface Push {
  store: Store;
  settings: SiteSettings;
  snapshot: UnitSnapshot;
  writes: PushWrites;
  now: string;
  targets: string[];
  /** Each segment's position (its index when the snapshot gives none). */
  positions: number[];
  /** The snapshot's writable languages as stored (JSON), or null. */
  writable: string | null;
  out: SyncResult;
}

/** The snapshot's segments as compared: each one's fingerprint and characters, and the indices of those new to the unit. */
interface Compared {
  fingerprints: string[];
  chars: number[];
  added: number[];
}

/** The push's shared state, with an empty result. */
function beginPush(store: Store, settings: SiteSettings, snapshot: UnitSnapshot, writes: PushWrites): Push {
  return {
    store,
    settings,
    snapshot,
    writes,
    now: store.now(),
    targets: siteTargets(settings),
    positions: snapshot.segments.map((s, i) => s.position ?? i),
    writable: snapshot.writable_languages ? JSON.stringify(snapshot.writable_languages) : null,
    out: {
      external_key: snapshot.external_key,
      unit_created: false,
      added: 0,
      changed: 0,
      removed: 0,
      unchanged: 0,
      stale_translations: 0,
      imported_translations: 0,
      fingerprint_mismatches: [],
    },
  };
}

/** The unit as stored, read ahead by the batch or read now (a key not read ahead may name a unit still held: written first). */
function readUnit({ store, snapshot, writes }: Push, units: KnownUnits | undefined): StoredUnit | undefined {
  const read = units?.get(snapshot.external_key);
  if (read === undefined) writes.flush();
  return read !== undefined ? (read ?? undefined) : store.one<StoredUnit>("SELECT id, deleted, writable_languages FROM units WHERE external_key = ?", snapshot.external_key);
}

/** The unit's stored segments by key (none for a unit not stored yet). */
function readSegments({ store }: Push, existing: StoredUnit | undefined): Map<string, StoredSegment> {
  return new Map((existing ? store.all<StoredSegment>(SELECT_SEGMENTS, existing.id) : []).map((s) => [s.key, s]));
}

/** Each segment compared with its stored one and updated if it changed (taken out of `stored`); new ones are inserted once the unit's row exists. */
function updateSegments({ store, snapshot, positions, out }: Push, stored: Map<string, StoredSegment>): Compared {
  const segments = snapshot.segments;
  const fingerprints: string[] = new Array(segments.length);
  const chars: number[] = new Array(segments.length);
  const added: number[] = [];
  segments.forEach((seg, i) => {
    const old = stored.get(seg.key);
    // An unchanged text keeps its fingerprint: only new or changed texts are hashed.
    const sameText = old !== undefined && old.text === seg.text;
    const fp = (fingerprints[i] = sameText ? old.fingerprint : fingerprint(seg.text));
    // Counted once here; estimates, reservations and bills read the stored count.
    chars[i] = sameText ? old.characters : characters(seg.text);
    if (seg.fingerprint && seg.fingerprint.toLowerCase() !== fp) out.fingerprint_mismatches.push(seg.key);
    if (!old) {
      added.push(i);
      return;
    }
    stored.delete(seg.key);
    if (old.removed) out.added++;
    else if (old.fingerprint !== fp) out.changed++;
    else out.unchanged++;
    out.stale_translations += staleTranslations(store, old.id, old.fingerprint, fp);
    // Written again when anything the push writes differs from what is stored, or the segment was removed.
    // Stamped with the site's change sequence (src/site/change-seq.ts): a segment back from removed, and one whose text got
    // longer (a job created before would bill more for it than it estimated: the segment is the next job's).
    if (old.removed || !sameSegment(old, seg, positions[i], fp, chars[i]))
      store.run(
        UPDATE_SEGMENT,
        ...SEGMENT_ROW.update.values({ segment: seg, position: positions[i], fingerprint: fp, characters: chars[i] }),
        chars[i] > old.characters ? 1 : 0,
        old.id,
      );
  });
  out.added += added.length;
  return { fingerprints, chars, added };
}

/** The stored segments left over (absent from the snapshot) marked removed. */
function removeAbsent({ store, out }: Push, stored: Map<string, StoredSegment>) {
  for (const old of stored.values()) {
    if (old.removed) continue;
    store.run("UPDATE segments SET removed = 1 WHERE id = ?", old.id);
    out.removed++;
  }
}

/** The unit's row written (held with the batch's new rows, inserted, or updated); `fresh`: the counts of a new unit that imports nothing. */
function writeUnit({ store, snapshot, writes, now, targets, writable, out }: Push, existing: StoredUnit | undefined, digest: string | null) {
  const segments = snapshot.segments;
  const imports = segments.some((seg) => seg.translations && Object.keys(seg.translations).length);
  // A unit just created without translations to import: its counts are known (every segment
  // missing), so its row is written with them and no count query runs.
  const fresh = !existing && !segments.some((seg) => seg.translations) ? newUnitCounts(targets, writable, segments.length) : undefined;
  const source: UnitSource = {
    snapshot,
    writable,
    now,
    digest: imports ? null : digest,
    mismatches: JSON.stringify(out.fingerprint_mismatches),
    counts: fresh ? { segments: fresh.segments, needsWork: fresh.needsWork, counted: 1 } : { segments: 0, needsWork: 0, counted: 0 },
  };
  let unit: UnitRef;
  if (fresh) {
    // Held with the batch's other new rows and written in one statement (src/site/sync/push-writes.ts).
    unit = writes.unit(snapshot.external_key, UNIT_ROW.insert.values(source));
    out.unit_created = true;
  } else if (!existing) {
    unit = store.one<{ id: number }>(INSERT_UNIT, ...UNIT_ROW.insert.values(source))!.id;
    out.unit_created = true;
  } else {
    unit = existing.id;
    out.unit_created = existing.deleted === 1;
    // Restored, or its writable languages changed: stamped with the site's change sequence (src/site/change-seq.ts).
    const stamp = existing.deleted === 1 || (existing.writable_languages ?? null) !== writable;
    store.run(UPDATE_UNIT, ...UNIT_ROW.update.values(source), stamp ? 1 : 0, unit);
  }
  return { unit, fresh };
}

/** The new segments held to be written in bulk with the unit's row. */
function holdAdded({ snapshot, writes, positions }: Push, unit: UnitRef, { added, fingerprints, chars }: Compared) {
  // One source read by every row in turn (its values are copied into the row): nothing allocated per segment.
  const source: SegmentSource = { segment: snapshot.segments[0], position: 0, fingerprint: "", characters: 0 };
  for (const i of added) {
    source.segment = snapshot.segments[i];
    source.position = positions[i];
    source.fingerprint = fingerprints[i];
    source.characters = chars[i];
    writes.segment(unit, source);
  }
}

/** The snapshot's `translations` imported (its segments written first, for their ids). */
function importSnapshotTranslations({ store, settings, snapshot, writes, now, out }: Push, unit: UnitRef, { fingerprints }: Compared) {
  const segments = snapshot.segments;
  if (!segments.some((seg) => seg.translations)) return;
  writes.flush();
  const ids = new Map(store.all<{ id: number; key: string }>("SELECT id, key FROM segments WHERE unit_id = ?", writes.idOf(unit)).map((r) => [r.key, r.id]));
  out.imported_translations = importTranslations(store, segments, fingerprints, ids, targetCodeMap(settings), snapshot.source_language ?? settings.sourceLanguage, now);
}

/** The unit's counts, written with a new unit or refreshed when what they depend on changed. */
function refreshCounts(
  { store, snapshot, writes, targets, writable, out }: Push,
  unit: UnitRef,
  existing: StoredUnit | undefined,
  fresh: ReturnType<typeof newUnitCounts> | undefined,
  sink: CountSink | undefined,
) {
  // Counts change only with the segments, their texts, imports or the unit's languages: an unchanged push writes nothing more.
  const languagesChanged = (existing?.writable_languages ?? null) !== writable;
  if (fresh) writeNewUnitCounts(store, writes, unit, snapshot.external_key, fresh, sink);
  else if (out.unit_created || out.added || out.changed || out.removed || out.imported_translations || languagesChanged) {
    // The count reads this unit's segments.
    writes.flush();
    refreshUnit(store, targets, writes.idOf(unit), sink);
  }
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
  segments: SegmentInput[],
  fingerprints: string[],
  ids: Map<string, number>,
  codes: Map<string, string>,
  sourceLanguage: string,
  now: string,
): number {
  let imported = 0;
  segments.forEach((seg, i) => {
    if (!seg.translations) return;
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
        fingerprints[i],
        now,
      );
      if (written > 0) {
        imported++;
        rememberTranslation(store, fingerprints[i], seg.text, sourceLanguage, code, text, "imported");
      }
    }
  });
  return imported;
}

/** DELETE /v1/units/{key}: always succeeds; the data is kept (30 days, src/site/results/retention.ts) so a later push restores the unit. */
export function deleteUnit(store: Store, settings: SiteSettings, externalKey: string) {
  store.tx(() => {
    const unit = store.one<{ id: number; deleted: number }>("SELECT id, deleted FROM units WHERE external_key = ?", externalKey);
    if (!unit || unit.deleted) return;
    // Results of a deleted unit stop being listed (listing checks the unit) and come back with it.
    store.run("UPDATE units SET deleted = 1, deleted_at = ? WHERE id = ?", store.now(), unit.id);
    refreshUnit(store, siteTargets(settings), unit.id);
  });
}
