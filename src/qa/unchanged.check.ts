import { proseText } from "../markup/scan";
import { baseLanguage, type QACheck, warning } from "./issue";

/** Fewer letters than this and the text is a symbol, a unit or a code that stays as it is ("OK", "cm", "ID"). */
const MIN_LETTERS = 3;

const normalize = (text: string) => text.normalize("NFC").toLowerCase().replace(/\s+/g, "");

/**
 * Text that NFC leaves as it is and that lowercases one character to one (Latin-1 and Latin
 * Extended, without İ): there, two texts normalize alike exactly when their non-space
 * characters match one by one, case aside.
 */
const SIMPLE = /^[\u0000-\u012f\u0131-\u02ff]*$/;
/** What `\s` matches below U+0300. */
const isSpace = (c: number) => c === 32 || (c >= 9 && c <= 13) || c === 160;
const lowerChar = (c: number) => (c >= 65 && c <= 90 ? c + 32 : c < 128 ? c : String.fromCharCode(c).toLowerCase().charCodeAt(0));

/** normalize(a) === normalize(b), without building either when both are simple: most translations differ within a few letters. */
function sameNormalized(a: string, b: string): boolean {
  if (!SIMPLE.test(a) || !SIMPLE.test(b)) return normalize(a) === normalize(b);
  let i = 0;
  let j = 0;
  for (;;) {
    while (i < a.length && isSpace(a.charCodeAt(i))) i++;
    while (j < b.length && isSpace(b.charCodeAt(j))) j++;
    if (i === a.length || j === b.length) return i === a.length && j === b.length;
    const x = a.charCodeAt(i++);
    const y = b.charCodeAt(j++);
    if (x !== y && lowerChar(x) !== lowerChar(y)) return false;
  }
}

/**
 * `unchanged`: the translation repeats the source. Skipped when the prose has hardly any
 * letters (placeholders, numbers and URLs alone are meant to stay) and between variants of one
 * language (en → en-GB), where equal text is normal.
 */
export const checkUnchanged: QACheck = ({ source, target, format, sourceLanguage, targetLanguage }) => {
  if (baseLanguage(sourceLanguage) === baseLanguage(targetLanguage)) return null;
  if (!sameNormalized(source, target)) return null;
  const letters = proseText(source, format).match(/\p{L}/gu)?.length ?? 0;
  if (letters < MIN_LETTERS) return null;
  return warning("unchanged", "The translation is the same as the source text.");
};
