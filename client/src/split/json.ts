// JSON → segments: every non-empty string value, keyed by its path (`nav.items.0.label`, each
// name encoded into the key pattern). A path is its own stable key: no hashing needed.
import { encodeKeyPart, type SplitSegment, type Translations } from "./keys.js";

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

// An empty name is `_` (an encoded character is always `_` and two hex digits, so this is unambiguous).
const pathKey = (path: (string | number)[]) => path.map((p) => encodeKeyPart(String(p)) || "_").join(".");

/** The string values of a parsed JSON value as segments. */
export function flattenJson(value: unknown): SplitSegment[] {
  const out: SplitSegment[] = [];
  const walk = (v: unknown, path: (string | number)[]) => {
    if (typeof v === "string") {
      if (v.trim() !== "" && path.length > 0) out.push({ key: pathKey(path), text: v, format: "plain", field: path.map(String).join("."), kind: null });
    } else if (Array.isArray(v)) v.forEach((item, i) => walk(item, [...path, i]));
    else if (v !== null && typeof v === "object") for (const [k, item] of Object.entries(v)) walk(item, [...path, k]);
  };
  walk(value, []);
  return out;
}

/** A copy of `value` with each string replaced by its translation (kept where none is given). */
export function unflattenJson<T>(value: T, translations: Translations): T {
  const walk = (v: Json, path: (string | number)[]): Json => {
    if (typeof v === "string") return path.length > 0 ? (translations[pathKey(path)] ?? v) : v;
    if (Array.isArray(v)) return v.map((item, i) => walk(item, [...path, i]));
    if (v !== null && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, item]) => [k, walk(item, [...path, k])]));
    return v;
  };
  return walk(value as Json, []) as T;
}

/**
 * JSON text in, translated JSON text out, written with the source's indentation (spaces or a
 * tab, found on its first indented line) and final newline. Other formatting is not kept:
 * JSON files are data, and a formatter's output is what most of them already are.
 */
export function joinJson(doc: string, translations: Translations): string {
  const indent = /\n([ \t]+)\S/.exec(doc)?.[1] ?? "";
  const text = JSON.stringify(unflattenJson(JSON.parse(doc), translations), null, indent);
  return /\n\s*$/.test(doc) ? `${text}\n` : text;
}
