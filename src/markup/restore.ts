import type { Format } from "../limits";
import { decodeEntities } from "./entities";
import { MarkupError } from "./errors";
import { findHtmlTags, tagAttributes } from "./html";
import { type Piece, parseHtmlTokenId, TEXT_TOKEN_RE, TOKEN_BRACKETS_RE, type Token, textToken, textTokenId } from "./tokens";
import { trailingRun } from "./trailing";

export interface RestoreContext {
  format: Format;
  mode: "html" | "text";
  tokens: Token[];
  /** Text-mode HTML: how the source wrote characters it wrote as references (`©` → `&copy;`). */
  entityStyle: Map<string, string>;
}

const isHtml = (format: Format) => format === "html" || format === "rich_text";

/** How a token is named in messages: as the engine saw it, with the start of what it stands for. */
function describe(token: Token, mode: RestoreContext["mode"]): string {
  const original = JSON.stringify(token.original.length > 40 ? `${token.original.slice(0, 40)}…` : token.original);
  if (mode === "text") return `${textToken(token.id)} (${original})`;
  return token.role === "close" ? original : `${original} (id m${token.id})`;
}

/** Reads a text-mode answer: `⟦n⟧` tokens between stretches of text. */
function parseText(output: string, byId: Map<number, Token>): Piece[] {
  const pieces: Piece[] = [];
  const pushText = (text: string) => {
    if (TOKEN_BRACKETS_RE.test(text)) {
      throw new MarkupError(`The engine's output has a damaged token near ${JSON.stringify(text.slice(0, 40))}.`);
    }
    if (text) pieces.push({ text });
  };
  let at = 0;
  for (const m of output.matchAll(TEXT_TOKEN_RE)) {
    pushText(output.slice(at, m.index));
    const token = byId.get(textTokenId(m[1]));
    if (!token) throw new MarkupError(`The engine's output has a token that was not in the source: ${m[0]}.`);
    pieces.push({ token });
    at = m.index + m[0].length;
  }
  pushText(output.slice(at));
  return pieces;
}

interface OpenElement {
  name: string;
  token: Token;
}

/**
 * Reads an HTML-mode answer. Tokens come back by their id; a closing tag closes the nearest
 * open element of its name and restores the closer that was paired with that element's
 * opener, so an engine may reorder elements freely. Text inside an atom's span is the
 * label we sent and is dropped.
 */
function parseHtml(output: string, ctx: RestoreContext, byId: Map<number, Token>): Piece[] {
  const pieces: Piece[] = [];
  const stack: OpenElement[] = [];
  const insideAtom = () => stack.some((e) => e.token.role === "atom");
  const pushText = (text: string) => {
    if (!text || insideAtom()) return;
    pieces.push({ text: isHtml(ctx.format) ? text : decodeEntities(text) });
  };
  let at = 0;
  for (const tag of findHtmlTags(output)) {
    pushText(output.slice(at, tag.start));
    at = tag.end;
    const tagText = output.slice(tag.start, tag.end);
    if (tag.type === "comment") throw new MarkupError(`The engine added markup that was not in the source: ${tagText}`);
    if (tag.type === "close") {
      const index = stack.findLastIndex((e) => e.name === tag.name);
      if (index < 0 || stack.slice(index + 1).some((e) => e.token.role === "atom")) {
        throw new MarkupError(`The engine's output has a closing tag that matches nothing: ${tagText}`);
      }
      const { token } = stack[index];
      stack.length = index;
      const closer = token.partner === undefined ? undefined : byId.get(token.partner);
      // No closer: the engine closed an element the source left open; the source's shape wins.
      if (closer) pieces.push({ token: closer });
      continue;
    }
    const id = parseHtmlTokenId(tagAttributes(tagText).get("id"));
    const token = id === null ? undefined : byId.get(id);
    if (!token || token.role === "close") {
      throw new MarkupError(`The engine added markup that was not in the source: ${tagText}`);
    }
    pieces.push({ token });
    if (tag.type === "open" && token.role !== "void") stack.push({ name: tag.name, token });
    else if (token.role === "open" && token.partner !== undefined) {
      // The engine wrote the element as empty (`<b id="m1"/>`): its closer follows at once.
      pieces.push({ token: byId.get(token.partner)! });
    }
  }
  pushText(output.slice(at));
  const unclosedAtom = stack.find((e) => e.token.role === "atom");
  if (unclosedAtom) throw new MarkupError(`The engine's output leaves ${describe(unclosedAtom.token, "html")} unclosed.`);
  return pieces;
}

/** Every token exactly once: anything else means the engine lost or invented markup. */
function checkComplete(pieces: Piece[], ctx: RestoreContext): void {
  const seen = new Map<number, number>();
  for (const piece of pieces) if ("token" in piece) seen.set(piece.token.id, (seen.get(piece.token.id) ?? 0) + 1);
  const missing = ctx.tokens.filter((t) => !seen.has(t.id));
  const repeated = ctx.tokens.filter((t) => (seen.get(t.id) ?? 0) > 1);
  const problems = [
    missing.length ? `lost ${missing.map((t) => describe(t, ctx.mode)).join(", ")}` : "",
    repeated.length ? `repeated ${repeated.map((t) => describe(t, ctx.mode)).join(", ")}` : "",
  ].filter(Boolean);
  if (problems.length) throw new MarkupError(`The engine's output ${problems.join(" and ")}.`);
}

const HSPACE_START = /^[^\S\n]+/;
const HSPACE = /[^\S\n]/;

/** Whether a space moved out of a markup pair still separates two words (not `word .` or `( word`). */
const WORD_EDGE_END = /[\p{L}\p{N}]$/u;
const WORD_EDGE_START = /^[\p{L}\p{N}]/u;

/**
 * Puts whitespace where markdown needs it: an opener (`**`, `[`) touches the word after it
 * and a closer the word before it, so a space an engine put inside moves outside (where it
 * still parts two words) or goes; a line marker or line break already holds its own
 * whitespace, so spaces next to it go.
 */
function applyGlue(pieces: Piece[]): Piece[] {
  const out: Piece[] = [];
  const textAt = (i: number) => {
    const piece = pieces[i];
    return piece && "text" in piece ? piece : undefined;
  };
  const lastText = () => {
    const piece = out.at(-1);
    return piece && "text" in piece ? piece : undefined;
  };
  for (let i = 0; i < pieces.length; i++) {
    const piece = pieces[i];
    if (!("token" in piece)) {
      out.push({ text: piece.text });
      continue;
    }
    const { glueLeft, glueRight } = piece.token;
    const before = lastText();
    const after = textAt(i + 1);
    if (glueLeft && glueRight) {
      if (before) before.text = before.text.slice(0, before.text.length - trailingRun(before.text, HSPACE));
      if (after) pieces[i + 1] = { text: after.text.replace(HSPACE_START, "") };
    } else if (glueRight && after) {
      const space = HSPACE_START.exec(after.text)?.[0] ?? "";
      pieces[i + 1] = { text: after.text.slice(space.length) };
      if (space && before && WORD_EDGE_END.test(before.text)) before.text += space;
    } else if (glueLeft && before) {
      const space = before.text.slice(before.text.length - trailingRun(before.text, HSPACE));
      before.text = before.text.slice(0, before.text.length - space.length);
      if (space && after && WORD_EDGE_START.test(after.text)) pieces[i + 1] = { text: space + after.text };
    }
    out.push(piece);
  }
  return out;
}

/**
 * Writes decoded text as HTML text: characters the source wrote as references are written
 * that way again; otherwise only `&` and `<` are escaped, and only where a parser would read
 * them as the start of a reference or tag, so untouched text comes back byte-identical.
 */
function encodeText(text: string, style: Map<string, string>): string {
  return text.replace(/[\s\S]/gu, (char, at: number) => {
    const styled = style.get(char);
    if (styled) return styled;
    if (char === "&" && /^[#A-Za-z0-9]/.test(text.charAt(at + 1))) return "&amp;";
    if (char === "<" && /^[A-Za-z/!?]/.test(text.charAt(at + 1))) return "&lt;";
    return char;
  });
}

/** Turns a trimmed engine answer back into the segment's format. */
export function restorePieces(output: string, ctx: RestoreContext): string {
  const byId = new Map(ctx.tokens.map((t) => [t.id, t]));
  const parsed = ctx.mode === "text" ? parseText(output, byId) : parseHtml(output, ctx, byId);
  checkComplete(parsed, ctx);
  // Text-mode HTML went out decoded; encode it again (decoding first, in case the engine escaped it already).
  const encode = ctx.mode === "text" && isHtml(ctx.format);
  return applyGlue(parsed)
    .map((piece) => {
      if ("token" in piece) return piece.token.original;
      return encode ? encodeText(decodeEntities(piece.text), ctx.entityStyle) : piece.text;
    })
    .join("");
}
