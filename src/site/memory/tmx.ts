/**
 * TMX 1.4b, the exchange format of translation memories (https://www.gala-global.org/tmx-14b):
 * reading a customer's file into memory entries, and writing the memory out.
 *
 * Reading (fast-xml-parser; never hand-rolled): the file must be well-formed XML with a `<tmx
 * version="1.4">` root (1.4 and 1.4b both say "1.4"), at most TMX_LIMITS.bytes and
 * TMX_LIMITS.units `<tu>`; each `<tu>` needs a `<tuv>` in the site's source language and at least
 * one other `<tuv>`. Anything else refuses the whole file with a message naming the line or the
 * element: nothing is stored from a file that is refused.
 *
 * Inline markup in `<seg>` (`<bpt>`, `<ept>`, `<it>`, `<ph>`, `<hi>`, `<ut>`, `<sub>`): the
 * native text is rebuilt, as TMX defines it: the codes `<bpt>`, `<ept>`, `<it>`, `<ph>` and
 * `<ut>` carry (e.g. `<bpt>&lt;b&gt;</bpt>` is `<b>`) are put back where they stand, `<hi>` and
 * `<sub>` give their text. So an HTML segment exported by another tool with its tags as inline
 * codes fingerprints as the connector pushes it, and becomes an exact hit.
 *
 * Writing: TMX level 1 (plain text in `<seg>`, markup escaped as text, which every tool reads),
 * one `<tu>` per memory entry with the source `<tuv>` and the target `<tuv>`.
 */
import { XMLParser, XMLValidator } from "fast-xml-parser";
import { isPlainText } from "../../api/schemas";
import { characters } from "../../characters";
import { ApiError } from "../../errors";
import { LIMITS } from "../../limits";

export const TMX_LIMITS = {
  /** The file, in bytes: half the dashboard's request bound (10 MB), leaving room for the form around it. */
  bytes: 5 * 1024 * 1024,
  /** `<tu>` elements in one file. */
  units: 50_000,
} as const;

/** One translation read from a file: the source text and its translation into one of the site's target languages. */
export interface TmxTranslation {
  source: string;
  /** The site's target language code it was matched to (as the site spells it). */
  targetLanguage: string;
  text: string;
}

export interface TmxRead {
  /** `<tu>` elements read. */
  units: number;
  translations: TmxTranslation[];
  /** Target `<tuv>`s in languages the site does not translate into (not stored). */
  otherLanguages: number;
}

type Node = Record<string, unknown>;
const ATTRS = ":@";
const TEXT = "#text";
const META = XMLParser.getMetaDataSymbol() as unknown as string;

const refuse = (detail: string) => new ApiError(422, `file: ${detail}`);

/** The element name of a preserveOrder node (its one key besides the attributes). */
const nameOf = (n: Node) => Object.keys(n).find((k) => k !== ATTRS) ?? "";
const childrenOf = (n: Node) => (n[nameOf(n)] as Node[] | undefined) ?? [];
const attr = (n: Node, name: string) => {
  const v = (n[ATTRS] as Record<string, unknown> | undefined)?.[name];
  return typeof v === "string" ? v : undefined;
};
const elements = (nodes: Node[], name: string) => nodes.filter((n) => nameOf(n) === name);

/** The line of a node in the file (from the parser's start index). */
function lineOf(xml: string, n: Node): number | undefined {
  const at = (n as Record<string, { startIndex?: number } | undefined>)[META]?.startIndex;
  if (at === undefined) return undefined;
  let line = 1;
  for (let i = xml.indexOf("\n"); i !== -1 && i < at; i = xml.indexOf("\n", i + 1)) line++;
  return line;
}

/** A `<seg>`'s native text: its text, and the codes and text of its inline elements, in order. */
function nativeText(nodes: Node[]): string {
  let out = "";
  for (const n of nodes) {
    if (TEXT in n) out += String(n[TEXT]);
    else out += nativeText(childrenOf(n));
  }
  return out;
}

/** The site's language a file's `xml:lang` stands for: the same code (any case), or a region of a bare one (`de-DE` for `de`). */
export function matchLanguage(lang: string, codes: readonly string[]): string | undefined {
  const l = lang.toLowerCase();
  const exact = codes.find((c) => c.toLowerCase() === l);
  if (exact) return exact;
  const primary = l.split("-")[0];
  return codes.find((c) => c.toLowerCase() === primary);
}

/**
 * Reads a TMX file for a site (its source language and target language codes). Throws a 413
 * for an oversized file and a 422 naming the problem for anything else it cannot take.
 */
export function readTmx(xml: string, site: { sourceLanguage: string; targetLanguages: readonly string[] }): TmxRead {
  const bytes = new TextEncoder().encode(xml).length;
  if (bytes > TMX_LIMITS.bytes)
    throw new ApiError(
      413,
      `file: the TMX file has ${bytes.toLocaleString("en")} bytes; the limit is ${TMX_LIMITS.bytes.toLocaleString("en")} (5 MB). Split it and import the parts.`,
    );
  const valid = XMLValidator.validate(xml);
  if (valid !== true) throw refuse(`not well-formed XML at line ${valid.err.line}, column ${valid.err.col}: ${valid.err.msg}`);
  const parser = new XMLParser({
    preserveOrder: true,
    ignoreAttributes: false,
    attributeNamePrefix: "",
    parseTagValue: false,
    parseAttributeValue: false,
    trimValues: false,
    ignoreDeclaration: true,
    ignorePiTags: true,
    captureMetaData: true,
    // Character references (`&#33;`, `&#x1F600;`) are decoded only with this on; HTML's named entities (`&nbsp;`) come with it, which a lenient reader may take.
    htmlEntities: true,
  });
  let doc: Node[];
  try {
    doc = parser.parse(xml) as Node[];
  } catch (err) {
    // What the validator lets through and the parser still refuses: external or parameter entities, an entity past its size limit.
    throw refuse(`the XML could not be read: ${String((err as Error)?.message ?? err).slice(0, 200)}`);
  }
  const roots = doc.filter((n) => !(TEXT in n) && !nameOf(n).startsWith("?") && !nameOf(n).startsWith("!"));
  const root = roots[0];
  if (!root || nameOf(root) !== "tmx") throw refuse(`the root element is <${root ? nameOf(root) : "(none)"}>, not <tmx>: this is not a TMX file.`);
  const version = attr(root, "version");
  if (version !== "1.4" && version !== "1.4b") throw refuse(`<tmx version="${version ?? ""}"> is not supported: TMX 1.4 (1.4b) files only.`);
  const body = elements(childrenOf(root), "body")[0];
  if (!body) throw refuse("the <tmx> element has no <body>.");
  const tus = elements(childrenOf(body), "tu");
  if (tus.length > TMX_LIMITS.units)
    throw new ApiError(
      413,
      `file: the TMX file has ${tus.length.toLocaleString("en")} <tu> elements; the limit is ${TMX_LIMITS.units.toLocaleString("en")}. Split it and import the parts.`,
    );

  const translations: TmxTranslation[] = [];
  let otherLanguages = 0;
  tus.forEach((tu, i) => {
    const where = () => {
      const line = lineOf(xml, tu);
      const tuid = attr(tu, "tuid");
      return `<tu> number ${i + 1}${tuid ? ` (tuid "${tuid}")` : ""}${line ? ` at line ${line}` : ""}`;
    };
    const tuvs = elements(childrenOf(tu), "tuv").map((tuv) => {
      const lang = attr(tuv, "xml:lang") ?? attr(tuv, "lang");
      if (!lang) throw refuse(`a <tuv> of ${where()} has no xml:lang.`);
      const seg = elements(childrenOf(tuv), "seg")[0];
      if (!seg) throw refuse(`the <tuv xml:lang="${lang}"> of ${where()} has no <seg>.`);
      const text = nativeText(childrenOf(seg));
      if (characters(text) > LIMITS.segmentText) throw refuse(`the <seg> in ${lang} of ${where()} is longer than ${LIMITS.segmentText.toLocaleString("en")} characters.`);
      // fast-xml-parser drops character references to NUL and lone surrogates (tested); the API's text rule, in case a version does not.
      if (!isPlainText(text)) throw refuse(`the <seg> in ${lang} of ${where()} holds U+0000 or a lone surrogate (a character reference such as &#0; or &#xD800;).`);
      return { lang, text };
    });
    const source = tuvs.find((t) => matchLanguage(t.lang, [site.sourceLanguage]) !== undefined);
    if (!source) throw refuse(`${where()} has no <tuv> in the site's source language (${site.sourceLanguage}).`);
    const targets = tuvs.filter((t) => t !== source);
    if (targets.length === 0) throw refuse(`${where()} has no translation: a <tuv> in another language than ${site.sourceLanguage} is needed.`);
    if (source.text.trim() === "") throw refuse(`the source <seg> of ${where()} is empty.`);
    for (const t of targets) {
      const targetLanguage = matchLanguage(t.lang, site.targetLanguages);
      if (!targetLanguage || t.text.trim() === "") otherLanguages++;
      else translations.push({ source: source.text, targetLanguage, text: t.text });
    }
  });
  return { units: tus.length, translations, otherLanguages };
}

// ------------------------------------------------------------------ writing

/** Characters XML 1.0 cannot carry at all (not even escaped): most C0 controls, U+FFFE, U+FFFF. */
const NOT_XML = /[\u0001-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/;

/** Whether a text can be written into a TMX file (XML 1.0). */
export const writable = (text: string) => !NOT_XML.test(text);

const escapeXml = (s: string) => s.replace(/[&<>"]/g, (c) => (c === "&" ? "&amp;" : c === "<" ? "&lt;" : c === ">" ? "&gt;" : "&quot;"));

/** TMX dates: `YYYYMMDDThhmmssZ`. */
const tmxDate = (iso: string) => `${iso.slice(0, 19).replace(/[-:]/g, "")}Z`;

/** The document's start: the XML declaration, `<tmx version="1.4">`, its header and `<body>`. */
export function tmxStart(p: { sourceLanguage: string; createdAt: string; toolVersion: string }): string {
  return (
    `<?xml version="1.0" encoding="UTF-8"?>\n<tmx version="1.4">\n` +
    `  <header creationtool="Transync" creationtoolversion="${escapeXml(p.toolVersion)}" segtype="block" o-tmf="Transync" adminlang="en" ` +
    `srclang="${escapeXml(p.sourceLanguage)}" datatype="plaintext" creationdate="${tmxDate(p.createdAt)}"/>\n  <body>\n`
  );
}

export const TMX_END = "  </body>\n</tmx>\n";

/** One memory entry as a `<tu>`: its origin as a property, the source `<tuv>` and the target `<tuv>`. */
export function tmxUnit(e: { source_language: string; target_language: string; source_text: string; text: string; origin: string; updated_at: string }): string {
  return (
    `    <tu changedate="${tmxDate(e.updated_at)}">\n` +
    `      <prop type="x-transync-origin">${escapeXml(e.origin)}</prop>\n` +
    `      <tuv xml:lang="${escapeXml(e.source_language)}"><seg>${escapeXml(e.source_text)}</seg></tuv>\n` +
    `      <tuv xml:lang="${escapeXml(e.target_language)}"><seg>${escapeXml(e.text)}</seg></tuv>\n` +
    "    </tu>\n"
  );
}
