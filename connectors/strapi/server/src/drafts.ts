// A target locale's draft, composed so that an editor's work is never overwritten. The plugin
// remembers, per unit and locale, what each segment's text was when it last wrote the draft (or
// when an editor's decision was reported): its baseline. Reading the draft back (its fields split
// as the source's are, its blocks lined up in order with the keys the plugin wrote) tells, per
// segment key, the text the draft holds now; one that differs from its baseline is the editor's.
// - A new machine text replaces a segment the editor left alone.
// - A segment the editor changed keeps the editor's text; a new machine text for it becomes a
//   conflict (shown in the edit view: take the new one, or keep mine).
// - A segment without a new machine text keeps what the draft holds (only the segments whose
//   translation changed are written).
// - A field whose blocks no longer line up with the keys (the editor added or removed a
//   paragraph) is kept whole; a new machine text for it becomes a conflict of the whole field.
import type { TrackedField } from "./fields";
import type { Kit } from "./kit";
import { type EntrySplit, joinEntry, splitField } from "./segments";
import type { Translations } from "./split-types";

type Entry = Record<string, unknown>;

export interface Conflict {
  field: string;
  /** The segment's key; null when the whole field is in conflict (its blocks no longer line up). */
  key: string | null;
  /** The editor's text (for a whole field: its text, block by block). */
  mine: string;
  /** The new machine text (for a whole field: the field as the plugin would write it). */
  theirs: string;
  /** A whole field's value as the plugin would write it. */
  theirsValue?: unknown;
  at: string;
}

export interface DraftRecord {
  /** Per segment key, the text the draft held when the plugin last wrote it or an editor's decision was reported. */
  written: Record<string, string>;
  /** Per split field (Markdown, blocks), its keys in the order the draft holds their blocks. */
  order: Record<string, string[]>;
  conflicts: Conflict[];
}

/** What the draft holds now, per segment key, and the split fields whose blocks no longer line up with the keys. */
export function readDraft(kit: Kit, split: EntrySplit, draft: Entry | null, record: DraftRecord | null): { mine: Map<string, string>; unaligned: Set<string> } {
  const mine = new Map<string, string>();
  const unaligned = new Set<string>();
  if (!draft) return { mine, unaligned };
  for (const f of split.fields) {
    const value = draft[f.field.name];
    if (f.text !== undefined) {
      if (typeof value === "string") mine.set(f.prefix, value);
      continue;
    }
    const theirs = splitField(kit, f.field, value, [])?.segments ?? [];
    const keys = record?.order[f.field.name] ?? f.split!.segments.map((s) => `${f.prefix}.${s.key}`);
    if (theirs.length === keys.length) keys.forEach((key, i) => mine.set(key, theirs[i].text));
    else if (theirs.length) unaligned.add(f.field.name);
  }
  return { mine, unaligned };
}

export interface Composed {
  /** The fields to write (only those whose value changes); empty when nothing changes. */
  data: Entry;
  record: DraftRecord;
  /** Keys written with a new machine text. */
  written: string[];
  /** Conflicts found by this composition (also in record.conflicts). */
  conflicts: Conflict[];
}

export interface ComposeInput {
  kit: Kit;
  split: EntrySplit;
  /** The locale's current draft, or null when there is none. */
  draft: Entry | null;
  record: DraftRecord | null;
  /** New machine texts by key. */
  results: Map<string, string>;
  /** Earlier translations (the service's current ones) for keys the draft does not hold yet. */
  earlier: Map<string, string>;
  /** Keys (or whole fields, by field name) whose new text replaces the editor's: "take the new one". */
  take?: Set<string>;
  now?: string;
}

const same = (kit: Kit, a: unknown, b: unknown) =>
  typeof a === "string" && typeof b === "string" ? kit.normalize(a) === kit.normalize(b) : JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/** The draft to write: new machine texts where the editor changed nothing, the editor's text and a conflict where they meet. */
export function composeDraft({ kit, split, draft, record, results, earlier, take = new Set(), now = new Date().toISOString() }: ComposeInput): Composed {
  const { mine, unaligned } = readDraft(kit, split, draft, record);
  const source = new Map(split.segments.map((s) => [s.key, s.text]));
  const edited = (key: string) => {
    const text = mine.get(key);
    if (text === undefined || take.has(key)) return false;
    const base = record?.written[key];
    // A draft the plugin never wrote (made by hand, or filled from the source in the admin): the editor's, unless it is the source text.
    if (base === undefined) return text.trim() !== "" && !same(kit, text, source.get(key));
    return !same(kit, text, base);
  };
  const translations: Translations = {};
  const conflicts: Conflict[] = [];
  const written: string[] = [];
  for (const s of split.segments) {
    const result = results.get(s.key);
    const text = mine.get(s.key);
    if (unaligned.has(s.field) && !take.has(s.field)) {
      const t = result ?? earlier.get(s.key) ?? record?.written[s.key];
      if (t !== undefined) translations[s.key] = t;
      continue;
    }
    if (result !== undefined) {
      if (edited(s.key)) {
        translations[s.key] = text!;
        if (!same(kit, text, result)) conflicts.push({ field: s.field, key: s.key, mine: text!, theirs: result, at: now });
      } else {
        translations[s.key] = result;
        written.push(s.key);
      }
    } else if (text !== undefined && !(take.has(s.field) && unaligned.has(s.field))) translations[s.key] = text;
    else if (earlier.has(s.key)) translations[s.key] = earlier.get(s.key)!;
  }
  const composed = joinEntry(kit, split, translations);
  const keep = new Set<string>();
  for (const field of unaligned) {
    if (take.has(field)) continue;
    keep.add(field);
    if (split.segments.some((s) => s.field === field && results.has(s.key)) && !same(kit, draft?.[field], composed[field])) {
      const f = split.fields.find((x) => x.field.name === field)!;
      conflicts.push({ field, key: null, mine: readable(kit, f.field, draft?.[field]), theirs: readable(kit, f.field, composed[field]), theirsValue: composed[field], at: now });
    }
  }
  // Earlier conflicts stay while their segment is still the editor's and nothing newer came for it.
  const replaced = new Set(conflicts.map((c) => c.key ?? c.field));
  const stillOpen = (c: Conflict) => {
    if (replaced.has(c.key ?? c.field) || take.has(c.key ?? c.field)) return false;
    if (c.key === null) return keep.has(c.field);
    return source.has(c.key) && mine.has(c.key) && !same(kit, mine.get(c.key), c.theirs) && !unaligned.has(c.field);
  };
  const allConflicts = [...(record?.conflicts ?? []).filter(stillOpen), ...conflicts];

  const data: Entry = {};
  const after: Entry = { ...(draft ?? {}) };
  for (const f of split.fields) {
    const name = f.field.name;
    const value = keep.has(name) ? draft?.[name] : composed[name];
    after[name] = value;
    if (!draft || !same(kit, draft[name], value)) data[name] = value;
  }
  // The new baseline: what the draft holds after this write, except that a segment the editor changed keeps its old baseline (it stays the editor's).
  const order: Record<string, string[]> = { ...(record?.order ?? {}) };
  for (const f of split.fields) if (f.split && !keep.has(f.field.name)) order[f.field.name] = f.split.segments.map((s) => `${f.prefix}.${s.key}`);
  const recordAfter: DraftRecord = { written: {}, order, conflicts: allConflicts };
  const now_ = readDraft(kit, split, after, recordAfter).mine;
  for (const s of split.segments) {
    if (keep.has(s.field)) {
      if (record?.written[s.key] !== undefined) recordAfter.written[s.key] = record.written[s.key];
      continue;
    }
    if (edited(s.key)) {
      if (record?.written[s.key] !== undefined) recordAfter.written[s.key] = record.written[s.key];
    } else if (now_.has(s.key)) recordAfter.written[s.key] = now_.get(s.key)!;
  }
  return { data, record: recordAfter, written, conflicts };
}

/** A field's text for people: a plain or Markdown value as it is, blocks as their texts one per line. */
export function readable(kit: Kit, field: TrackedField, value: unknown): string {
  if (typeof value === "string") return value;
  if (value === null || value === undefined) return "";
  const segments = splitField(kit, field, value, [])?.segments ?? [];
  return segments.map((s) => s.text.replace(/<[^>]+>/g, "")).join("\n");
}

/** A new baseline from an editor's version (published or kept): every segment the draft holds counts as its text now. */
export function rebaseline(kit: Kit, split: EntrySplit, draft: Entry | null, record: DraftRecord | null): DraftRecord | null {
  if (!draft) return null;
  let { mine, unaligned } = readDraft(kit, split, draft, record);
  const order: Record<string, string[]> = { ...(record?.order ?? {}) };
  if (unaligned.size) {
    // The editor's structure: lined up with the source's when it has as many blocks.
    const fresh = readDraft(kit, split, draft, null);
    for (const field of unaligned)
      if (!fresh.unaligned.has(field)) {
        const f = split.fields.find((x) => x.field.name === field)!;
        order[field] = f.split!.segments.map((s) => `${f.prefix}.${s.key}`);
      }
    ({ mine, unaligned } = readDraft(kit, split, draft, { written: {}, order, conflicts: [] }));
  }
  return { written: Object.fromEntries(mine), order, conflicts: [] };
}
