// JSON → segments: every non-empty string value, keyed by its path (`nav.items.0.label`, each
// name encoded into the key pattern). A path is its own stable key: no hashing needed.
import { encodeKeyPart, lineAt, type Split, type SplitSegment, type Translations } from "./keys.js";

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

/**
 * A JSON document as a Split like the other kinds: its string values as segments, and the
 * document itself as the template (`joinJson` puts the values back by path). A document that
 * is not JSON is a problem naming its line, as the other splitters report what they cannot read.
 */
export function splitJson(doc: string): Split {
  let value: unknown;
  try {
    value = JSON.parse(doc);
  } catch (e) {
    const message = (e as Error).message;
    const at = /at position (\d+)/.exec(message);
    const line = at ? lineAt(doc, Number(at[1])) : 1;
    return { segments: [], parts: [doc], problems: [{ line, message: `line ${line}: not valid JSON (${message.replace(/ \(line \d+ column \d+\)$/, "")})` }] };
  }
  const segments = flattenJson(value);
  // JSON writes a NUL only as `\u0000`, and values come in document order (but for an object's integer-like
  // names, which JavaScript puts first: there the line may be another NUL's): each NUL of a value is the next escape.
  const escapes = [...doc.matchAll(/\\u0000/gi)].map((m) => m.index);
  let seen = 0;
  const problems = segments
    .filter((s) => s.text.includes("\u0000"))
    .map((s) => {
      const line = lineAt(doc, escapes[seen] ?? 0);
      seen += s.text.split("\u0000").length - 1;
      return { line, key: s.key, message: `line ${line}: the value of ${s.field} contains U+0000 (NUL), which the service refuses: remove it` };
    });
  return problems.length ? { segments, parts: [doc], problems } : { segments, parts: [doc] };
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
