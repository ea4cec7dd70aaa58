/**
 * A JSON body's shape, bounded on its text before anything parses it (docs/decisions.md
 * "Requests: keys, limits, hostile input, errors"). The platform's `JSON.parse` is not linear in nesting: 4,000,000 nested
 * arrays (8 MB) take it 6 to 11 s, 1,000,000 keys in one object about 0.8 s. So one pass over
 * the characters, with no recursion and no allocation but a frame per open container (at
 * most `LIMITS.jsonDepth` + a few), measures every container's depth and width first:
 *
 * - depth: a field of a unit (or of any body) nests at most `LIMITS.jsonDepth` levels, its
 *   own brackets counted (`"metadata": {"a": []}` is 2 levels);
 * - width: an array has at most `LIMITS.jsonWidth` items, an object at most that many keys.
 *
 * The pass does not validate JSON: what it cannot follow, `JSON.parse` refuses after it.
 * Sizes of strings and of `metadata` as JSON are checked after parsing (src/api/schemas.ts),
 * where the bounds proven here keep that work small.
 */
import { LIMITS } from "../limits";

export interface TextProblem {
  /** The field that breaks a bound: `metadata`, `units[3].metadata`, `metadata.tags` … */
  path: string;
  /** The rule it breaks, in plain language. */
  rule: string;
}

/** A unit of a batch refused by its text: where it stands (to be left out of the parse) and why. */
export interface RefusedUnit extends TextProblem {
  index: number;
  start: number;
  end: number;
  /** The unit's `external_key` when it could be read from the text, else "". */
  externalKey: string;
}

export interface TextScan {
  /** A problem that refuses the whole body (422). */
  problem?: TextProblem;
  /** Batch only: units refused alone, in order. */
  refused: RefusedUnit[];
  /**
   * Batch only: where each unit of the `units` array that JSON.parse keeps (the last) stands in
   * the text, by index, `[start, end)`; only units that are objects or arrays have one.
   */
  spans?: { start: number; end: number }[];
  /** How many characters the pass looked at (a count of work, for tests and the bench). */
  visited: number;
}

interface Frame {
  array: boolean;
  /** Commas seen directly in this container: its items are commas + 1 (when not empty). */
  commas: number;
  /** The last key read (objects). */
  key: string;
  expectKey: boolean;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const KEY_CHARS = 80;

/**
 * The longest string literal any valid field can be, as raw JSON text: a segment's text of
 * `LIMITS.segmentText` code points, each written as an escaped surrogate pair (12 characters).
 * A longer literal is refused here, before the parse, the digest or any stringify copies it.
 */
const MAX_RAW_STRING = LIMITS.segmentText * 12;
const STRING_RULE = `is too long: no field takes more than ${LIMITS.segmentText} characters`;

export const depthRule = (max = LIMITS.jsonDepth) => `must be nested at most ${max} levels deep`;
const widthRule = (array: boolean) => (array ? `must have at most ${LIMITS.jsonWidth} items` : `must have at most ${LIMITS.jsonWidth} keys`);

/** `units[3].metadata.a` for the container opened below `frames[0..count)`. */
function pathOf(frames: Frame[], count: number): string {
  let out = "";
  for (let k = 0; k < count; k++) {
    const f = frames[k];
    if (f.array) out += `[${f.commas}]`;
    else out += out ? `.${f.key}` : f.key;
  }
  return out || "body";
}

/** The string starting at `i` (a quote): the index of its closing quote, or the text's length. */
function stringEnd(text: string, i: number): number {
  let j = i;
  for (;;) {
    j = text.indexOf('"', j + 1);
    if (j < 0) return text.length;
    // Escaped when an odd run of backslashes precedes it (each backslash is in one run: linear).
    let b = j - 1;
    while (text.charCodeAt(b) === BACKSLASH) b--;
    if ((j - 1 - b) % 2 === 0) return j;
  }
}

/** The raw string at [i, end] as a key or value (escapes decoded when short enough to be cheap). */
function readString(text: string, i: number, end: number, max: number): string {
  if (end - i - 1 > max * 6) return text.slice(i + 1, i + 1 + max);
  const raw = text.slice(i + 1, end);
  if (!raw.includes("\\")) return raw.slice(0, max);
  try {
    return String(JSON.parse(text.slice(i, end + 1))).slice(0, max);
  } catch {
    return text.slice(i + 1, Math.min(end, i + 1 + max));
  }
}

/**
 * Scans a body's text. With `batch`, the body is `{"units": [...]}`: a unit that breaks a
 * bound is refused alone (`refused`, with its span in the text); anything else that breaks
 * one refuses the body (`problem`). Without it, the body itself is the unit.
 */
export function scanJsonText(text: string, options: { batch?: boolean } = {}): TextScan {
  // Depth (open containers) at which a unit's own container stands.
  const unitDepth = options.batch ? 3 : 1;
  const maxDepth = unitDepth + LIMITS.jsonDepth;
  const frames: Frame[] = [];
  const refused: RefusedUnit[] = [];
  let spans: { start: number; end: number }[] = [];
  let depth = 0;
  // Batch: the unit being read, its start, and whether it is already refused (its deeper text is only counted).
  let unitStart = -1;
  let unitKey = "";
  let refusal: TextProblem | undefined;
  const n = text.length;
  const inUnits = () => options.batch === true && frames.length >= 2 && !frames[0].array && frames[0].key === "units" && frames[1].array;

  /** A unit of a batch fails alone (its text is counted on, then left out); anything else refuses the body. */
  const refuseUnit = (problem: TextProblem): boolean => {
    if (!(options.batch && depth >= unitDepth && inUnits())) return false;
    refusal = problem;
    frames.length = unitDepth;
    return true;
  };

  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const end = stringEnd(text, i);
      // Inside a refused unit's deeper text only brackets count.
      if (!(refusal && depth > unitDepth)) {
        if (end - i - 1 > MAX_RAW_STRING) {
          const problem = { path: pathOf(frames, depth), rule: STRING_RULE };
          if (!refuseUnit(problem)) return { problem, refused, visited: i + 1 };
          i = end;
          continue;
        }
        const top = frames[depth - 1];
        if (top && !top.array && top.expectKey) {
          top.key = readString(text, i, end, KEY_CHARS);
          top.expectKey = false;
        } else if (top && depth === unitDepth && options.batch && top.key === "external_key" && inUnits()) {
          unitKey = readString(text, i, end, LIMITS.unitKey);
        }
      }
      i = end;
      continue;
    }
    if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      depth++;
      if (refusal && depth > unitDepth) continue;
      // Another `units` array: JSON.parse keeps the last one, so its spans are the ones that count.
      if (depth === 2 && options.batch && c === OPEN_ARRAY && !frames[0].array && frames[0].key === "units") spans = [];
      if (depth === unitDepth && options.batch && inUnits()) {
        unitStart = i;
        unitKey = "";
      }
      if (depth > maxDepth) {
        // Named by the field that nests too deeply: a unit's field, or a field of the body.
        const problem = { path: pathOf(frames, Math.min(frames.length, inUnits() ? unitDepth : 1)), rule: depthRule() };
        if (!refuseUnit(problem)) return { problem, refused, visited: i + 1 };
        continue;
      }
      frames.push({ array: c === OPEN_ARRAY, commas: 0, key: "", expectKey: c === OPEN_OBJECT });
      continue;
    }
    if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      if (depth === 0) continue;
      depth--;
      if (refusal && depth >= unitDepth) continue;
      frames.pop();
      if (refusal && depth === unitDepth - 1) {
        refused.push({ ...refusal, index: frames[1].commas, start: unitStart, end: i + 1, externalKey: unitKey });
        refusal = undefined;
      } else if (depth === unitDepth - 1 && options.batch && inUnits()) spans[frames[1].commas] = { start: unitStart, end: i + 1 };
      continue;
    }
    if (c === COMMA) {
      if (refusal && depth > unitDepth) continue;
      const top = frames[depth - 1];
      if (!top) continue;
      top.commas++;
      if (!top.array) top.expectKey = true;
      if (top.commas >= LIMITS.jsonWidth && !refusal) {
        const problem = { path: pathOf(frames, depth - 1), rule: widthRule(top.array) };
        if (!refuseUnit(problem)) return { problem, refused, visited: i + 1 };
      }
      continue;
    }
    if (c === COLON) continue;
  }
  // A refused unit never closed: the text is broken anyway; refuse it whole.
  if (refusal) return { problem: refusal, refused, visited: n };
  return options.batch ? { refused, spans, visited: n } : { refused, visited: n };
}

/** The text with each refused unit replaced by `null` (spans in order, not overlapping). */
export function withoutUnits(text: string, refused: readonly RefusedUnit[]): string {
  if (!refused.length) return text;
  let out = "";
  let from = 0;
  for (const r of refused) {
    out += `${text.slice(from, r.start)}null`;
    from = r.end;
  }
  return out + text.slice(from);
}
