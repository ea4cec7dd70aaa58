import type { SpanRole } from "./span";

/** One protected stretch of the source, as protect() hands it to an engine and restore() takes it back. */
export interface Token {
  /** 1-based, unique within one protected text. */
  id: number;
  /** The exact source text, restored byte-identical. */
  original: string;
  role: SpanRole;
  /** Element name shown in HTML mode for open, close and void tokens. */
  element?: string;
  /** Id of the other half of an element (opener ↔ closer). */
  partner?: number;
  /** Label shown inside an atom's span in HTML mode: context for the engine, ignored on restore. */
  label: string;
  glueLeft?: boolean;
  glueRight?: boolean;
}

/** A protected text as a sequence of translatable text and tokens. */
export type Piece = { text: string } | { token: Token };

/**
 * Text mode tokens are `⟦3⟧`: mathematical white brackets occur in no ordinary prose, markup
 * or placeholder syntax, engines and LLMs copy them, and they survive every target script.
 * Engines sometimes pad them (`⟦ 3 ⟧`) or write fullwidth digits, which is accepted.
 */
export const TEXT_TOKEN_RE = /⟦\s*([0-9０-９]+)\s*⟧/gu;
export const TOKEN_BRACKETS_RE = /[⟦⟧]/u;

export function textToken(id: number): string {
  return `⟦${id}⟧`;
}

export function textTokenId(digits: string): number {
  return Number(digits.replace(/[０-９]/g, (d) => String.fromCharCode(d.charCodeAt(0) - 0xfee0)));
}

/**
 * Applies `transform` to every stretch of a text-mode protected string that is not a token:
 * how a text-mode engine (pseudo-localization, for one) changes the prose and nothing else.
 */
export function mapTextOutsideTokens(protectedText: string, transform: (text: string) => string): string {
  let out = "";
  let at = 0;
  for (const m of protectedText.matchAll(TEXT_TOKEN_RE)) {
    out += transform(protectedText.slice(at, m.index)) + m[0];
    at = m.index + m[0].length;
  }
  return out + transform(protectedText.slice(at));
}

/** HTML mode marks tokens with `id="m3"`; the source's own attributes never reach the engine, so no id can clash. */
export function htmlTokenId(id: number): string {
  return `m${id}`;
}

export function parseHtmlTokenId(value: string | undefined): number | null {
  const m = value === undefined ? null : /^m(\d+)$/.exec(value.trim());
  return m ? Number(m[1]) : null;
}
