import type { GlossaryTerm } from "../engines/types";
import { proseText } from "../markup/scan";
import { listItems, warning, type QACheck } from "./issue";

/** Scripts written without spaces between words: a term there has no word boundaries to look for. */
const NO_SPACES = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;
const WORD_CHAR = /[\p{L}\p{N}_]/u;

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Whether `term` occurs in `text` as a whole word ("cat" is not in "category"). */
function hasWord(text: string, term: string, caseSensitive: boolean): boolean {
  const first = term[0];
  const last = term.at(-1)!;
  const before = WORD_CHAR.test(first) && !NO_SPACES.test(first) ? "(?<![\\p{L}\\p{N}_])" : "";
  const after = WORD_CHAR.test(last) && !NO_SPACES.test(last) ? "(?![\\p{L}\\p{N}_])" : "";
  return new RegExp(`${before}${escapeRegExp(term)}${after}`, caseSensitive ? "u" : "iu").test(text);
}

/**
 * Whether `term` occurs anywhere in `text`. No word boundaries on the translation side: a
 * required term often appears inside a compound (Konto in Benutzerkonto) or with an ending.
 */
function hasText(text: string, term: string, caseSensitive: boolean): boolean {
  return new RegExp(escapeRegExp(term), caseSensitive ? "u" : "iu").test(text);
}

/**
 * `glossary`: a term of the glossary occurs in the source but its required translation is
 * absent. Terms with the same source are alternatives: any one of their targets will do.
 */
export const checkGlossary: QACheck = ({ source, target, format, glossary }) => {
  if (glossary.length === 0) return null;
  const sourceProse = proseText(source, format).normalize("NFC");
  const targetProse = proseText(target, format).normalize("NFC");
  const bySource = new Map<string, GlossaryTerm[]>();
  for (const term of glossary) {
    const key = term.source.normalize("NFC").trim();
    if (key === "" || term.target.trim() === "") continue;
    const id = `${term.caseSensitive ? "=" : "~"}${term.caseSensitive ? key : key.toLowerCase()}`;
    const alternatives = bySource.get(id) ?? [];
    alternatives.push(term);
    bySource.set(id, alternatives);
  }
  const unused: string[] = [];
  for (const terms of bySource.values()) {
    const { source: term, caseSensitive } = terms[0];
    if (!hasWord(sourceProse, term.normalize("NFC").trim(), caseSensitive)) continue;
    if (terms.some((t) => hasText(targetProse, t.target.normalize("NFC").trim(), t.caseSensitive))) continue;
    unused.push(`"${term.trim()}" → ${terms.map((t) => `"${t.target.trim()}"`).join(" or ")}`);
  }
  return unused.length
    ? warning("glossary", `The translation does not use the glossary's terms: ${listItems(unused)}.`)
    : null;
};
