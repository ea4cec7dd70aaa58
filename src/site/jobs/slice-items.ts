/**
 * A slice's items: loaded in pieces, bounded by characters too, and sorted as they come into
 * items that left the job's scope, items whose text costs no engine request (a memory hit, a
 * text translated earlier in the job) and texts that go to the engine, grouped by text. Then
 * the memory's look-ups for the texts going to the engine: the organization's exact matches
 * (memory hits like the site's own) and the site's fuzzy matches (examples for the engine).
 */

import type { SiteSettings } from "../../control/sites.control";
import type { Engine } from "../../engines/types";
import type { Format } from "../../limits";
import { orgMemory } from "../../memory/stub";
import { type FuzzyMatch, fuzzyMatches, hasFuzzyIndex } from "../memory/fuzzy";
import { stateSql } from "../state";
import { type Produced, type SliceItem, TRANSLATION_MARK } from "./commit";
import type { Invocation } from "./invocation";
import type { JobRow } from "./jobs";
import type { ContextItem } from "./neighbours";
import { arisenSince, type JobScope } from "./scope";
import { sharedHits } from "./shared-hits";

/** Source characters per slice at most (at least one item is always taken). */
export const SLICE_CHARACTERS = 200_000;

/**
 * Items one query loads: a slice is loaded in pieces of this many, with a turn for waiting
 * requests between two (each piece is one step of a few ms; a slice of 1,000 items in one
 * query was the runner's longest step after the job's start).
 */
export const LOAD_ITEMS = 250;

/** The language a slice works off, as the site's settings stand when the slice starts (slice.ts, setUpSlice). */
export interface SliceLanguage {
  language: string;
  settings: SiteSettings;
  scope: JobScope;
  /** The language's entry in the site's target languages (none when it is no longer one). */
  target: SiteSettings["targetLanguages"][number] | undefined;
  /** The language's engine; none when the language is refused before one is made. */
  engine: Engine | undefined;
  /** Why the language fails as a whole: its commit fails every pending item, so no next slice. */
  refused: string | undefined;
  /** Items the slice takes at most. */
  limit: number;
}

/**
 * Up to `limit` pending items of `language` after segment id `after`, in id order. Each item
 * comes with its memory hit (none for a forced job), whether another segment has the same text
 * (`repeated`: only then can its result be reused later in the job, so only then is the result
 * entered in results_job_text) and a translation of the same text in the same source language
 * made earlier in this job (the latest), each one index look-up, so the slice needs no further
 * reads (results_job_text, keyed by the fingerprint's first 8 digits and holding repeated texts
 * only: the look-up names that expression and `repeated = 1` as the index does, or SQLite would
 * not use it).
 */
function loadItems(inv: Invocation, job: JobRow, language: string, settings: SiteSettings, scope: JobScope, after: number, limit: number): (SliceItem & ContextItem)[] {
  const { store } = inv.deps;
  const seen = store.othersMark();
  const items: (SliceItem & ContextItem)[] = [];
  // The job's watermark, ?8 (jobs from before it have none).
  const args: unknown[] = [job.id, language, settings.sourceLanguage, limit, job.started_at ?? "", scope.force ? 1 : 0, after];
  if (scope.watermark !== undefined) args.push(scope.watermark);
  const w = scope.watermark !== undefined ? "?8" : undefined;
  // Read as arrays and made into items by one literal: the load is the runner's largest read, and Store.all's
  // column-by-column objects cost about twice as much per row.
  for (const r of store.rows<LoadedRow>(
    `SELECT ji.segment_id, s.unit_id, s.text, s.fingerprint, s.characters, s.format, s.field, s.kind, s.max_length,
       coalesce(u.source_language, ?3) AS source_language, ${stateSql()} AS state, (s.removed = 0 AND u.deleted = 0) AS live,
       (s.removed = 0 AND u.deleted = 0 AND u.counted = 1) AS counted,
       ${TRANSLATION_MARK} AS mark, coalesce(t.origin = 'imported' AND t.updated_at >= ?5, 0) AS imported_since, ${arisenSince(scope, w)} AS arisen,
       CASE WHEN ?6 THEN NULL ELSE (SELECT m.text FROM memory m WHERE m.source_fingerprint = s.fingerprint
         AND m.source_language = lower(coalesce(u.source_language, ?3)) AND m.target_language = lower(?2)) END AS memory,
       EXISTS (SELECT 1 FROM segments o WHERE o.fingerprint = s.fingerprint AND o.id <> s.id) AS repeated,
       (SELECT json_array(r.text, r.origin, r.engine) FROM results r JOIN units ru ON ru.id = r.unit_id
         WHERE r.repeated = 1 AND r.job_id = ?1 AND r.language = ?2 AND substr(r.source_fingerprint, 1, 8) = substr(s.fingerprint, 1, 8) AND r.source_fingerprint = s.fingerprint
           AND lower(coalesce(ru.source_language, ?3)) = lower(coalesce(u.source_language, ?3))
         ORDER BY r.id DESC LIMIT 1) AS earlier
     FROM job_items ji JOIN segments s ON s.id = ji.segment_id JOIN units u ON u.id = s.unit_id
     LEFT JOIN translations t ON t.segment_id = s.id AND t.language = ji.language
     WHERE ji.job_id = ?1 AND ji.language = ?2 AND ji.segment_id > ?7
     ORDER BY ji.segment_id LIMIT ?4`,
    ...args,
  ))
    items.push({
      segment_id: r[0],
      unit_id: r[1],
      language,
      text: r[2],
      fingerprint: r[3],
      characters: r[4],
      format: r[5],
      field: r[6],
      kind: r[7],
      max_length: r[8],
      source_language: r[9],
      state: r[10],
      live: r[11],
      counted: r[12],
      mark: r[13],
      imported_since: r[14],
      arisen: r[15],
      memory: r[16],
      repeated: r[17],
      earlier: r[18],
      seen,
    });
  return items;
}

/** A row of loadItems' query, in its column order. */
type LoadedRow = [
  segment_id: number,
  unit_id: number,
  text: string,
  fingerprint: string,
  characters: number,
  format: Format,
  field: string | null,
  kind: string | null,
  max_length: number | null,
  source_language: string,
  state: string,
  live: number,
  counted: number,
  mark: string,
  imported_since: number,
  arisen: number,
  memory: string | null,
  repeated: number,
  earlier: string | null,
];

/**
 * What makes two items repeats of each other: the same text in the same source language (the
 * unit's, else the site's; matched case-insensitively, as the memory matches it). The same text
 * in two source languages is two translations, each billed.
 */
export const repeatKey = (item: SliceItem) => `${item.source_language.toLowerCase()}\u0000${item.fingerprint}`;

export interface Group {
  /** Items with the same source language and text: the first is sent, the others reuse its translation. */
  items: (SliceItem & ContextItem)[];
}

/** An item whose text costs no engine request: [item, text, origin, engine, kind]. */
export type Known = [SliceItem, string, string, string, Produced["kind"]];

/** A slice's items as loadSlice sorted them. */
export interface SliceWork {
  /** Every item the slice took, in segment id order. */
  items: (SliceItem & ContextItem)[];
  /** Items that left the scope since the job started (removed, deleted, imported, translated; work that arose after its watermark): skipped. */
  skipped: (SliceItem & ContextItem)[];
  /** Items still to translate. */
  work: (SliceItem & ContextItem)[];
  /** Items whose text costs no engine request. */
  known: Known[];
  /** Texts going to the engine, by repeatKey: source language + fingerprint. */
  toSend: Map<string, Group>;
}

/**
 * Loads the slice's items after segment id `after` and sorts them. Answers null when the job was
 * cancelled meanwhile (nothing of the slice was sent or stored yet) or the language has no
 * pending items there.
 */
export async function loadSlice(inv: Invocation, job: JobRow, lang: SliceLanguage, after: number): Promise<SliceWork | null> {
  const { language, settings, scope, limit } = lang;
  const slice: SliceWork = { items: [], skipped: [], work: [], known: [], toSend: new Map() };
  const { items } = slice;
  const unsaved = inv.unsavedTexts(language);
  // Loaded in pieces of LOAD_ITEMS, each sorted as soon as it is loaded, before anything is awaited: the piece's load saw
  // the job's stored results, `unsaved` holds those of commits still landing, and a commit that lands while requests
  // have their turn between two pieces moves its texts from one to the other (the next piece's load sees them stored).
  let size = 0;
  let from = after;
  for (let full = false; !full && items.length < limit; ) {
    const want = Math.min(LOAD_ITEMS, limit - items.length);
    // A piece's load and sort are one piece of CPU: it starts a step rather than ending one (requests waiting meanwhile go first).
    await inv.ahead(want, "slice");
    // Cancelled meanwhile: nothing of the slice was sent or stored yet.
    if (!inv.stillRunning(job.id)) return null;
    const piece = loadItems(inv, job, language, settings, scope, from, want);
    for (const item of piece) {
      // Bounded by characters too, so a slice of long texts stays as short as one of short texts.
      if (items.length && size + item.characters > SLICE_CHARACTERS) {
        full = true;
        break;
      }
      items.push(item);
      size += item.characters;
      sortItem(slice, item, lang, unsaved);
    }
    if (piece.length < want) break;
    from = piece[piece.length - 1].segment_id;
  }
  return items.length ? slice : null;
}

/** Sorts one item the slice took: skipped, known, or into the group of its text. */
function sortItem(slice: SliceWork, item: SliceItem & ContextItem, lang: SliceLanguage, unsaved: ReturnType<Invocation["unsavedTexts"]>) {
  // An import since the job started wins, also over a forced job; work that arose after the job's watermark is the next job's.
  if (!item.live || item.imported_since === 1 || item.arisen === 1 || (!lang.scope.force && item.state !== "missing" && item.state !== "stale")) {
    slice.skipped.push(item);
    return;
  }
  slice.work.push(item);
  if (lang.refused) return;
  // Texts translated earlier in this job are reused, not sent again: stored, or produced by a commit still landing.
  const { memory: hit, earlier } = item;
  const key = repeatKey(item);
  const before = earlier !== null ? (JSON.parse(earlier) as [string, string, string]) : unsaved.get(key);
  if (hit !== null) slice.known.push([item, hit, "tm_exact", "memory", "memory"]);
  else if (before) slice.known.push([item, before[0], before[1], before[2], "reuse"]);
  else {
    const group = slice.toSend.get(key);
    if (group) group.items.push(item);
    else slice.toSend.set(key, { items: [item] });
  }
}

/** Turns the texts going to the engine that the organization's memory holds into memory hits. */
export async function lookUpShared(inv: Invocation, lang: SliceLanguage, slice: SliceWork): Promise<void> {
  const { settings, scope, language } = lang;
  const { toSend, known } = slice;
  // Texts still going to the engine may be in the organization's memory (a sharing site, a job
  // not forced): one call for the slice. Its exact matches are memory hits like the site's own.
  if (settings.shareMemory && !scope.force && toSend.size && (await inv.othersShare())) {
    const keys = [...toSend.values()].map(({ items: [first] }): [string, string] => [first.source_language.toLowerCase(), first.fingerprint]);
    const shared = await sharedHits(settings, language, keys, orgMemory(inv.deps.env, settings.organizationId));
    for (const [key, group] of toSend) {
      const hit = shared.get(key);
      if (hit === undefined) continue;
      for (const item of group.items) known.push([item, hit, "tm_exact", "memory", "memory"]);
      toSend.delete(key);
    }
  }
}

/** The fuzzy matches of the texts going to the engine, by group; undefined where none were looked up. */
export function fuzzyExamples(inv: Invocation, lang: SliceLanguage, toSend: Map<string, Group>): Map<Group, FuzzyMatch[]> | undefined {
  const { store } = inv.deps;
  // Fuzzy matches of the texts that go to the engine (src/site/memory/fuzzy.ts), given to it as examples: context only, never a
  // result and never billed differently. A forced job ignores the memory, so it gets none; nor does a run with the
  // engine context switched off. Nor does a memory with nothing indexed (most sites' first jobs): no look-up, and no
  // turn counted for work not done (a turn costs about 1 ms of waiting; bench d, one per slice).
  if (!(lang.engine && toSend.size && !lang.scope.force && inv.deps.engineContext !== false && hasFuzzyIndex(store))) return undefined;
  const examples = new Map<Group, FuzzyMatch[]>();
  for (const [src, groups] of bySource(toSend)) {
    const found = fuzzyMatches(
      store,
      src,
      lang.language,
      groups.map((g) => g.items[0].text),
      groups.map((g) => g.items[0].format),
    );
    groups.forEach((g, i) => {
      if (found[i].length) examples.set(g, found[i]);
    });
  }
  return examples;
}

/** The texts going to the engine by source language (the unit's, as written), in the order they were sorted. */
export function bySource(toSend: Map<string, Group>): Map<string, Group[]> {
  const groups = new Map<string, Group[]>();
  for (const group of toSend.values()) {
    const src = group.items[0].source_language;
    const list = groups.get(src);
    if (list) list.push(group);
    else groups.set(src, [group]);
  }
  return groups;
}
