/**
 * Copying a sharing site's memory to its organization's memory object (src/memory/), off the
 * request's path (docs/decisions.md "How sharing works").
 *
 * A change to the memory (rememberTranslation, and edits and deletions: `noteMemoryChange`)
 * leaves a row in the `meta` table, one per memory key (an outbox; no table of its own, the
 * site schema is not changed for it). The object then registers the `memory_share` need, due
 * now; its alarm reads the noted keys, sends the entries as they are NOW (or as gone, when the
 * memory no longer has them) in bulk, and deletes the notes it sent, unless they were noted
 * again meanwhile. Re-sending is harmless (the organization's object stores the entry as
 * given), so a run that dies half-way just sends again: at least once.
 *
 * Turning sharing on copies the whole memory (a backfill that walks it in key order, in
 * bounded runs); turning it off withdraws the site's entries from the organization's memory.
 */
import type { SiteSettings } from "../../control/sites.control";
import type { SharedChange } from "../../memory/object";
import type { OrgMemoryApi } from "../../memory/stub";
import { log, redactError } from "../../obs/log";
import type { Store } from "../store";

/** Outbox notes: meta keys `mshare:<fingerprint>|<source language>|<target language>` (the range `mshare:`…`mshare;`). */
const NOTE = "mshare:";
const NOTE_END = "mshare;";
/** Meta: the backfill's position ([fingerprint, source, target] of the last key sent, or null before the first). */
const BACKFILL = "memory_share_backfill";
/** Meta: the site's entries are to be withdrawn from the organization's memory (sharing turned off). */
const WITHDRAW = "memory_share_withdraw";
/** Meta: consecutive failed sends (the back-off grows with it). */
const FAILURES = "memory_share_failures";

/** Entries per send, and the texts' characters per send at most (a bound value stays well under 2 MB). */
export const SHARE_BATCH = 500;
const SHARE_CHARACTERS = 500_000;
/** Back-off after a failed send: 5 s, doubling, at most 10 minutes. */
const retryDelay = (failures: number) => Math.min(5_000 * 2 ** Math.max(0, failures - 1), 600_000);

/** Whether the site shares: as adopted (a field, as an import remembers thousands of texts), else from the stored settings. */
function sharing(store: Store): boolean {
  return (store.sharesMemory ??= store.one<{ shared: number }>("SELECT json_extract(value, '$.shareMemory') = 1 AS shared FROM meta WHERE key = 'settings'")?.shared === 1);
}

/**
 * The memory entry (fingerprint, source language, target language) was stored, edited or
 * deleted: when the site shares, it is copied (or withdrawn) by the next `memory_share` run.
 * Synchronous and cheap (one write), so it can run inside the caller's transaction; the
 * caller's object registers the need afterwards (`SiteObject.shareSoon`).
 */
export function noteMemoryChange(store: Store, sourceFingerprint: string, sourceLanguage: string, targetLanguage: string) {
  noteMemoryChanges(store, JSON.stringify([[sourceFingerprint, sourceLanguage, targetLanguage]]));
}

/**
 * Many memory entries were stored at once (a TMX import): noteMemoryChange for each, in one
 * statement. `entries` is JSON: an array of [fingerprint, source language, target language].
 */
export function noteMemoryChanges(store: Store, entries: string) {
  if (!sharing(store)) return;
  // A new value each time: a note made again while its entry is being sent is not deleted by that send.
  store.run(
    `INSERT INTO meta (key, value) SELECT ?1 || (e.value ->> 0) || '|' || lower(e.value ->> 1) || '|' || lower(e.value ->> 2), ?2 FROM json_each(?3) e WHERE true
     ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
    NOTE,
    JSON.stringify(crypto.randomUUID()),
    entries,
  );
}

/**
 * The site's sharing setting changed from `before` to `after` (called inside the settings'
 * transaction): turned on, the whole memory is copied; turned off, the notes go and the
 * site's entries are withdrawn. Answers whether the `memory_share` need is to be registered.
 */
export function sharingChanged(store: Store, before: boolean, after: boolean): boolean {
  if (before === after) return false;
  if (after) {
    // An empty memory (a new site) has nothing to copy: no run is registered for it. A withdrawal
    // not yet done stays: the run does it first, then copies the memory as it is now.
    if (store.one("SELECT 1 FROM memory LIMIT 1") === undefined) return store.getMeta(WITHDRAW) !== undefined;
    store.setMeta(BACKFILL, null);
  } else {
    store.run("DELETE FROM meta WHERE key >= ? AND key < ?", NOTE, NOTE_END);
    store.run("DELETE FROM meta WHERE key IN (?, ?)", BACKFILL, FAILURES);
    store.setMeta(WITHDRAW, true);
  }
  return true;
}

/** Whether a `memory_share` run has anything to do. */
export function shareWaiting(store: Store): boolean {
  return store.one("SELECT 1 FROM meta WHERE (key >= ?1 AND key < ?2) OR key IN (?3, ?4) LIMIT 1", NOTE, NOTE_END, BACKFILL, WITHDRAW) !== undefined;
}

interface MemoryRow {
  source_fingerprint: string;
  source_language: string;
  target_language: string;
  text: string;
  origin: string;
  updated_at: string;
}

/**
 * One run of the `memory_share` need: sends up to SHARE_BATCH noted entries (then backfill
 * entries) to the organization's memory. Answers when it is next due: now when more is waiting,
 * later after a failed send (the notes stay), null when everything is sent. `org` is the
 * organization's memory object (a parameter: tests hand a failing one).
 */
export async function runMemoryShare(store: Store, settings: SiteSettings, org: OrgMemoryApi, now = Date.now()): Promise<number | null> {
  try {
    if (store.getMeta(WITHDRAW) !== undefined) {
      await org.removeSite(settings.id);
      store.run("DELETE FROM meta WHERE key = ?", WITHDRAW);
    }
    if (!settings.shareMemory) return null;
    const notes = store.all<{ key: string; value: string }>("SELECT key, value FROM meta WHERE key >= ? AND key < ? ORDER BY key LIMIT ?", NOTE, NOTE_END, SHARE_BATCH);
    const noted = notes.map((n) => n.key.slice(NOTE.length).split("|") as [string, string, string]);
    const current = new Map<string, MemoryRow>();
    if (noted.length)
      for (const row of store.all<MemoryRow>(
        `SELECT m.source_fingerprint, m.source_language, m.target_language, m.text, m.origin, m.updated_at
         FROM json_each(?1) k JOIN memory m ON m.source_fingerprint = k.value ->> 0 AND m.source_language = k.value ->> 1 AND m.target_language = k.value ->> 2`,
        JSON.stringify(noted),
      ))
        current.set(`${row.source_fingerprint}|${row.source_language}|${row.target_language}`, row);

    const changes: SharedChange[] = [];
    let characters = 0;
    const sentNotes: { key: string; value: string }[] = [];
    for (const [i, [fingerprint, source, target]] of noted.entries()) {
      const row = current.get(`${fingerprint}|${source}|${target}`);
      if (changes.length && characters + (row?.text.length ?? 0) > SHARE_CHARACTERS) break;
      characters += row?.text.length ?? 0;
      changes.push(row ?? { source_fingerprint: fingerprint, source_language: source, target_language: target, text: null, origin: "", updated_at: store.now() });
      sentNotes.push(notes[i]!);
    }

    // The backfill fills what room the notes left.
    const backfill = store.getMeta<[string, string, string] | null>(BACKFILL);
    let backfillDone = false;
    let backfillLast: [string, string, string] | null | undefined;
    const room = SHARE_BATCH - changes.length;
    if (backfill !== undefined && room > 0 && characters < SHARE_CHARACTERS) {
      const after = backfill ?? ["", "", ""];
      const rows = store.all<MemoryRow>(
        `SELECT source_fingerprint, source_language, target_language, text, origin, updated_at FROM memory
         WHERE (source_fingerprint, source_language, target_language) > (?1, ?2, ?3)
         ORDER BY source_fingerprint, source_language, target_language LIMIT ?4`,
        after[0],
        after[1],
        after[2],
        room,
      );
      let taken = 0;
      for (const row of rows) {
        if (taken && characters + row.text.length > SHARE_CHARACTERS) break;
        characters += row.text.length;
        changes.push(row);
        backfillLast = [row.source_fingerprint, row.source_language, row.target_language];
        taken++;
      }
      backfillDone = taken === rows.length && rows.length < room;
      if (!taken && !rows.length) backfillDone = true;
    }

    if (changes.length) await org.share(settings.id, changes);
    // Sent: the notes go unless noted again meanwhile (a new value), and the backfill moves on.
    store.tx(() => {
      if (sentNotes.length)
        store.run(
          "DELETE FROM meta WHERE key IN (SELECT n.value ->> 0 FROM json_each(?1) n WHERE (SELECT value FROM meta WHERE key = n.value ->> 0) = n.value ->> 1)",
          JSON.stringify(sentNotes.map((n) => [n.key, n.value])),
        );
      if (backfillDone) store.run("DELETE FROM meta WHERE key = ?", BACKFILL);
      else if (backfillLast) store.setMeta(BACKFILL, backfillLast);
      store.run("DELETE FROM meta WHERE key = ?", FAILURES);
    });
    return shareWaiting(store) ? now : null;
  } catch (err) {
    // The organization's object unreachable or failing: the notes stay, the need comes back later.
    const failures = (store.getMeta<number>(FAILURES) ?? 0) + 1;
    store.setMeta(FAILURES, failures);
    log("warn", "memory.share_failed", { site_id: settings.id, failures, error: redactError(err) });
    return now + retryDelay(failures);
  }
}
