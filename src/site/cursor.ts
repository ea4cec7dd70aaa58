import { invalid } from "../errors";

/** Opaque keyset cursors: base64url of a JSON position. A malformed cursor is a 422. */
export function encodeCursor(position: unknown): string {
  const bytes = new TextEncoder().encode(JSON.stringify(position));
  let s = "";
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

export function decodeCursor<T>(cursor: string | undefined, check: (v: unknown) => v is T): T | undefined {
  if (!cursor) return undefined;
  try {
    const bin = atob(cursor.replace(/-/g, "+").replace(/_/g, "/"));
    const value = JSON.parse(new TextDecoder().decode(Uint8Array.from(bin, (c) => c.charCodeAt(0))));
    if (check(value)) return value;
  } catch {
    // fall through
  }
  throw invalid("cursor is not a cursor this list returned");
}

export const isString = (v: unknown): v is string => typeof v === "string";
export const isNumber = (v: unknown): v is number => typeof v === "number" && Number.isSafeInteger(v);
