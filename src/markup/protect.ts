import type { Format } from "../limits";
import { decodeEntity, escapeHtml } from "./entities";
import { type RestoreContext, restorePieces } from "./restore";
import { scan, visibleText } from "./scan";
import type { Span } from "./span";
import { htmlTokenId, type Piece, TOKEN_BRACKETS_RE, type Token, textToken } from "./tokens";

export { MarkupError } from "./errors";
export { mapTextOutsideTokens } from "./tokens";

/**
 * How protected tokens are presented to an engine:
 * - "html": the engine runs in its HTML mode (DeepL tag_handling=html, Google text/html,
 *   Azure textType=html). Output is valid HTML; plain/markdown text is HTML-escaped; each
 *   placeholder/URL becomes an element the engine leaves untranslated.
 * - "text": the engine has no markup mode (pseudo, workers_ai, openai). Tags, placeholders,
 *   URLs and markdown syntax become opaque tokens the engine copies through.
 *
 * HTML mode, in detail (what DeepL, Google and Azure all keep):
 * - an element of the source (an HTML tag, or markdown emphasis and links seen as `<strong>`,
 *   `<em>`, `<a>`) is shown as that element with its attributes replaced by `id="m3"`, so the
 *   engine can move it with the words it marks and cannot translate an attribute; closing
 *   tags carry no attributes and are matched back to their opener when restoring;
 * - everything else (placeholders, URLs, code, comments, markdown markers) is a
 *   `<span translate="no" class="notranslate" id="m3">label</span>`: DeepL and Google honour
 *   `translate="no"`, Azure honours `class="notranslate"`; the label (the original text) gives
 *   the engine grammatical context and is ignored on restore;
 * - in plain and markdown text, line breaks become `<br id="m3">`, because HTML modes treat
 *   a newline as a space and would merge lines.
 *
 * Text mode: each token is `⟦3⟧`; text is left as it is, except that HTML entities are
 * decoded for the engine and written back on restore the way the source wrote them, so an
 * engine never sees `&amp;`; new text is escaped only where HTML would misread it.
 */
export type ProtectMode = "html" | "text";

export interface ProtectedText {
  /** What to send to the engine. */
  text: string;
  /** Turns the engine's output back into the segment's format, restoring every token byte-identical. Throws MarkupError when a token is missing or duplicated. */
  restore(translated: string): string;
}

const isHtml = (format: Format) => format === "html" || format === "rich_text";

/** A line break and the whitespace after it; `lineBreakRuns` adds the spaces before it. */
const LINE_BREAK_RE = /\n\s*/g;
const HORIZONTAL_SPACE_RE = /[^\S\n]/;

/**
 * The whitespace runs that hold a line break: what the expression `[^\S\n]*\n\s*` matches, found in linear
 * time (that expression retries its leading run from every space of a long run without a line
 * break, which made a text of 100,000 spaces take half a minute).
 */
function* lineBreakRuns(text: string): Generator<{ index: number; 0: string }> {
  let end = 0;
  for (const m of text.matchAll(LINE_BREAK_RE)) {
    let start = m.index;
    while (start > end && HORIZONTAL_SPACE_RE.test(text[start - 1])) start--;
    end = m.index + m[0].length;
    yield { index: start, 0: text.slice(start, end) };
  }
}
const SPLITTERS = {
  text: { html: /[⟦⟧<]/gu, other: /[⟦⟧]/gu },
  html: { html: /</g, other: null },
} as const;

/** Longest label shown inside an atom: enough for the engine to read a placeholder or a short code as a word, without paying for whole code blocks. */
const MAX_LABEL = 64;
const labelOf = (text: string) => ([...text].length > MAX_LABEL ? `${[...text].slice(0, MAX_LABEL - 1).join("")}…` : text);

/**
 * Splits a segment into text and tokens. For text-mode HTML it also notes how the source
 * wrote each decoded character (`&copy;`, `&#8217;`), so restore writes it the same way.
 */
function toPieces(core: string, format: Format, mode: ProtectMode): { pieces: Piece[]; entityStyle: Map<string, string> } {
  const pieces: Piece[] = [];
  const entityStyle = new Map<string, string>();
  let literalText = "";
  const byPair = new Map<number, Token>();
  let lastId = 0;
  const newToken = (original: string, span: Pick<Span, "role" | "element" | "glueLeft" | "glueRight">): Token => {
    const token: Token = {
      id: ++lastId,
      original,
      role: span.role,
      element: span.element,
      label: labelOf(isHtml(format) ? visibleText(original, format) : original),
      glueLeft: span.glueLeft,
      glueRight: span.glueRight,
    };
    pieces.push({ token });
    return token;
  };
  // Characters of the text between spans that become tokens themselves:
  // - in text mode ⟦ and ⟧, so that every bracket in the output belongs to a token;
  // - in HTML a stray `<` (one that opens no tag), which an engine's parser or the encoding
  //   on restore would otherwise turn into a tag or into `&lt;`;
  // - in HTML mode, the line breaks of plain and markdown text, which HTML engines read as spaces.
  const lineBreaks = mode === "html" && !isHtml(format);
  const splitter = SPLITTERS[mode][isHtml(format) ? "html" : "other"];
  const pushText = (text: string) => {
    literalText += text;
    let at = 0;
    for (const m of lineBreaks ? lineBreakRuns(text) : splitter ? text.matchAll(splitter) : []) {
      if (m.index > at) pieces.push({ text: text.slice(at, m.index) });
      newToken(m[0], lineBreaks ? { role: "void", element: "br", glueLeft: true, glueRight: true } : { role: "atom" });
      at = m.index + m[0].length;
    }
    if (at < text.length) pieces.push({ text: text.slice(at) });
  };

  let at = 0;
  for (const span of scan(core, format)) {
    pushText(core.slice(at, span.start));
    at = span.end;
    const original = core.slice(span.start, span.end);
    if (span.kind === "entity" && isHtml(format)) {
      // An HTML engine reads references itself; a text engine gets the character it means.
      const decoded = mode === "html" ? original : decodeEntity(original);
      // A reference to a token bracket stays a token, so brackets in the output are always tokens.
      if (decoded !== null && !TOKEN_BRACKETS_RE.test(decoded)) {
        if (mode === "text" && !entityStyle.has(decoded)) entityStyle.set(decoded, original);
        pieces.push({ text: decoded });
        continue;
      }
    }
    const token = newToken(original, span);
    if (span.pair === undefined) continue;
    const partner = byPair.get(span.pair);
    if (partner) {
      partner.partner = token.id;
      token.partner = partner.id;
    } else byPair.set(span.pair, token);
  }
  pushText(core.slice(at));

  for (const piece of pieces) {
    // A closer whose opener was not kept can only be shown as an opaque atom.
    if ("token" in piece && piece.token.role === "close" && piece.token.partner === undefined) piece.token.role = "atom";
  }
  // A character the source also wrote literally has no single style: restore writes it literally.
  for (const char of entityStyle.keys()) if (literalText.includes(char)) entityStyle.delete(char);
  return { pieces, entityStyle };
}

function renderHtmlToken(token: Token): string {
  const id = htmlTokenId(token.id);
  switch (token.role) {
    case "open":
    case "void":
      return `<${token.element} id="${id}">`;
    case "close":
      return `</${token.element}>`;
    case "atom":
      return `<span translate="no" class="notranslate" id="${id}">${escapeHtml(token.label)}</span>`;
  }
}

function render(pieces: Piece[], format: Format, mode: ProtectMode): string {
  return pieces
    .map((piece) => {
      if ("token" in piece) return mode === "text" ? textToken(piece.token.id) : renderHtmlToken(piece.token);
      if (mode === "text") return piece.text;
      return isHtml(format) ? piece.text : escapeHtml(piece.text);
    })
    .join("");
}

export function protect(text: string, format: Format, mode: ProtectMode): ProtectedText {
  // Leading and trailing whitespace never reaches the engine, which would trim or change it.
  const lead = /^\s*/.exec(text)![0];
  const core = text.slice(lead.length).trimEnd();
  const trail = text.slice(lead.length + core.length);
  const { pieces, entityStyle } = toPieces(core, format, mode);
  const context: RestoreContext = {
    format,
    mode,
    tokens: pieces.flatMap((p) => ("token" in p ? [p.token] : [])),
    entityStyle,
  };
  return {
    text: render(pieces, format, mode),
    restore: (translated) => lead + restorePieces(translated.trim(), context) + trail,
  };
}
