/**
 * One unit of a batch, validated as `UnitSnapshotIn` validates it, in a fraction of the time
 * for the common case. zod spends most of a large batch's validation on its segments (about
 * 10 ms for 5,000 in workerd, where it cannot compile its checks); plain segments are checked
 * here directly against the same rules. `UnitSnapshotIn` stays the definition: the unit's own
 * fields are validated by it, and any segment that is not plainly valid (a wrong type, a
 * limit broken, a duplicate key, a null format, translations to import) sends the segments
 * through `UnitSnapshotIn`'s own segments rule, so every error and its 422 detail come from zod
 * as before. Nothing is checked twice: the unit's fields are parsed once whatever happens
 * (issue 23: a refused `metadata` used to be measured again by a second full parse).
 * test/api/batch-unit.test.ts checks both paths against `UnitSnapshotIn` on generated units.
 */
import { z } from "@hono/zod-openapi";
import { FORMATS, type Format, LIMITS } from "../limits";
import { isPlainText, type SegmentInput, type UnitSnapshot, UnitSnapshotIn } from "./schemas";

/** The unit's own fields; its segments are checked below (or by UnitSnapshotIn). */
const UnitFields = UnitSnapshotIn.omit({ segments: true });
const UnitSegments = UnitSnapshotIn.pick({ segments: true });

const FORMAT_SET = new Set<unknown>(FORMATS);

/**
 * How each optional field of SegmentIn is checked here, as SegmentIn checks it: a text of at most
 * `text` characters, or an integer of at least `min` (null or absent passes). Typed against
 * SegmentIn: a field it gains is a compile error here until its check is added.
 */
const OPTIONAL_FIELDS = {
  field: { text: LIMITS.field },
  kind: { text: LIMITS.kind },
  parent_key: { text: LIMITS.parentKey },
  fingerprint: { text: 128 },
  max_length: { min: 1 },
  position: { min: 0 },
} satisfies {
  [K in Exclude<keyof SegmentInput, "key" | "text" | "format" | "translations">]-?: NonNullable<SegmentInput[K]> extends string ? { text: number } : { min: number };
};
const OPTIONAL = Object.entries(OPTIONAL_FIELDS).map(([name, rule]) => ({ name, max: "text" in rule ? rule.text : undefined, min: "min" in rule ? rule.min : 0 }));

type Parsed = ReturnType<typeof UnitSnapshotIn.safeParse>;

export function parseBatchUnit(raw: unknown): Parsed {
  // Not an object: UnitSnapshotIn says so at once, without looking at any field.
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return UnitSnapshotIn.safeParse(raw);
  const fields = UnitFields.safeParse(raw);
  const plain = plainSegments((raw as { segments?: unknown }).segments);
  const segments = plain ? ({ success: true, data: { segments: plain } } as const) : UnitSegments.safeParse(raw);
  if (fields.success && segments.success) return { success: true, data: { ...fields.data, segments: segments.data.segments } as UnitSnapshot } as Parsed;
  // As UnitSnapshotIn reports them: the fields' issues, then the segments' (its last field).
  const issues = [...(fields.error?.issues ?? []), ...(segments.success ? [] : segments.error.issues)];
  return { success: false, error: new z.ZodError(issues) } as Parsed;
}

const isInteger = (v: unknown, min: number) => Number.isSafeInteger(v) && (v as number) >= min;
const absent = (v: unknown) => v === undefined || v === null;

/**
 * The segments as SegmentIn outputs them (its fields only, `format` defaulted), or undefined
 * unless every one is plainly valid and their keys are distinct.
 */
function plainSegments(raw: unknown): SegmentInput[] | undefined {
  if (!Array.isArray(raw) || raw.length > LIMITS.segmentsPerUnit) return undefined;
  const keys = new Set<string>();
  const out: SegmentInput[] = new Array(raw.length);
  for (let i = 0; i < raw.length; i++) {
    const s = raw[i] as Record<string, unknown>;
    if (typeof s !== "object" || s === null || Array.isArray(s)) return undefined;
    const { key, text, format } = s;
    if (typeof key !== "string" || key.length === 0 || !isPlainText(key, LIMITS.segmentKey) || keys.has(key)) return undefined;
    if (typeof text !== "string" || !isPlainText(text, LIMITS.segmentText)) return undefined;
    if (format !== undefined && !FORMAT_SET.has(format)) return undefined;
    if (!absent(s.translations)) return undefined;
    keys.add(key);
    const segment: Record<string, unknown> = { key, text, format: (format as Format | undefined) ?? "plain" };
    for (const { name, max, min } of OPTIONAL) {
      const v = s[name];
      if (v === undefined) continue;
      if (v !== null && (max !== undefined ? typeof v !== "string" || !isPlainText(v, max) : !isInteger(v, min))) return undefined;
      segment[name] = v;
    }
    if (s.translations === null) segment.translations = null;
    out[i] = segment as SegmentInput;
  }
  return out;
}
