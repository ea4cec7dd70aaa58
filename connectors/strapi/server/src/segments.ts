// An entry's translated fields ↔ a unit's segments. A plain field (string, text) is one segment
// keyed by its name; a richtext field (Markdown) is cut with the kit's splitMarkdown and a blocks
// field with its splitHtml (blocks.ts), each block keyed `<field>.<kit key>`. The kit lines the
// keys up with the previous push (`previous`): an edited block keeps its key, so its
// translations turn stale rather than the block being new.
import { type Block, blocksToHtml, readBlocksHtml, replaceInline } from "./blocks";
import type { TrackedField, TrackedType } from "./fields";
import type { Kit } from "./kit";
import type { Split, SplitSegment, Translations } from "./split-types";

/** A segment of the unit's previous push: its key and source text. */
export interface Previous {
  key: string;
  text: string;
}

export interface UnitSegment {
  key: string;
  text: string;
  format: "plain" | "html" | "markdown";
  field: string;
  kind: string | null;
}

interface FieldSplit {
  field: TrackedField;
  /** The field's key, or the prefix of its blocks' keys. */
  prefix: string;
  /** Markdown and blocks: the kit's split (keys without the prefix). */
  split?: Split;
  /** Blocks: the source blocks, onto which translations are read back. */
  blocks?: Block[];
  /** Plain: the source text. */
  text?: string;
}

export interface EntrySplit {
  segments: UnitSegment[];
  fields: FieldSplit[];
}

type Entry = Record<string, unknown>;

export function splitField(kit: Kit, field: TrackedField, value: unknown, previous: Previous[]): Split | undefined {
  if (field.kind === "markdown" && typeof value === "string" && value.trim() !== "") return kit.splitMarkdown(value, { fields: [], previous });
  if (field.kind === "blocks" && Array.isArray(value) && value.length) return kit.splitHtml(blocksToHtml(value as Block[]), { previous });
  return undefined;
}

/** The entry's segments (what is pushed) and the templates that put translations back. */
export function splitEntry(kit: Kit, type: TrackedType, entry: Entry, previous: readonly Previous[] = []): EntrySplit {
  const segments: UnitSegment[] = [];
  const fields: FieldSplit[] = [];
  for (const field of type.fields) {
    const prefix = kit.encodeKeyPart(field.name);
    const value = entry[field.name];
    if (field.kind === "plain") {
      if (typeof value !== "string" || value.trim() === "") continue;
      segments.push({ key: prefix, text: value, format: "plain", field: field.name, kind: field.name === type.titleField ? "title" : null });
      fields.push({ field, prefix, text: value });
      continue;
    }
    const mine = previous.filter((p) => p.key.startsWith(`${prefix}.`)).map((p) => ({ key: p.key.slice(prefix.length + 1), text: p.text }));
    const split = splitField(kit, field, value, mine);
    if (!split) continue;
    for (const s of split.segments)
      segments.push({ key: `${prefix}.${s.key}`, text: s.text, format: field.kind === "markdown" ? "markdown" : "html", field: field.name, kind: s.kind });
    fields.push({ field, prefix, split, blocks: field.kind === "blocks" ? (value as Block[]) : undefined });
  }
  return { segments, fields };
}

/** The translated fields' values, from translations by segment key (a key without one keeps its source text). */
export function joinEntry(kit: Kit, split: EntrySplit, translations: Translations): Entry {
  const data: Entry = {};
  for (const f of split.fields) {
    if (f.text !== undefined) {
      data[f.field.name] = translations[f.prefix] ?? f.text;
      continue;
    }
    const own: Translations = {};
    for (const s of f.split!.segments) own[s.key] = translations[`${f.prefix}.${s.key}`];
    if (f.field.kind === "markdown") data[f.field.name] = kit.joinMarkdown(f.split!, own);
    else data[f.field.name] = replaceInline(f.blocks!, readBlocksHtml(kit.parseDocument, kit.joinHtml(f.split!, own)));
  }
  return data;
}

/**
 * An editor's version of a translation (a target-locale entry), as texts by the source's
 * segment keys: a plain field as it is; a split field's blocks lined up in order with the
 * source's blocks of that field, when both have as many (otherwise none of that field).
 */
export function editorTexts(kit: Kit, source: EntrySplit, target: Entry): Map<string, string> {
  const out = new Map<string, string>();
  for (const f of source.fields) {
    const value = target[f.field.name];
    if (f.text !== undefined) {
      if (typeof value === "string") out.set(f.prefix, value);
      continue;
    }
    const theirs: SplitSegment[] | undefined = splitField(kit, f.field, value, [])?.segments;
    const ours = f.split!.segments;
    if (!theirs || theirs.length !== ours.length) continue;
    ours.forEach((s, i) => out.set(`${f.prefix}.${s.key}`, theirs[i].text));
  }
  return out;
}
