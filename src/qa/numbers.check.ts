import type { Format } from "../limits";
import { proseText } from "../markup/scan";
import { listItems, multisetDiff, type QACheck, warning } from "./issue";
import { factsOf } from "./remember";

/**
 * A number with thousands groups (`1,000`, `1.000`, `1 000`, `10'000`) or a plain run of
 * digits. A group needs a 1–3 digit head and 3-digit groups, so "in 2020 100 people" is two
 * numbers. Decimal parts are numbers of their own: `1,000.5` and `1.000,5` both read 1000 and 5,
 * whichever separator convention the language uses.
 */
const NUMBER_RE = /(?<!\p{Nd})\p{Nd}{1,3}(?:[ \u00a0\u202f\u2009'’.,]\p{Nd}{3}(?!\p{Nd}))+|\p{Nd}+/gu;
/**
 * The same for texts whose digits are all ASCII (most): several times faster than the Unicode
 * classes. A number with groups is captured (group 1), so a plain run of digits is its own key.
 */
const ASCII_NUMBER_RE = /(?<![0-9])([0-9]{1,3}(?:[ \u00a0\u202f\u2009'’.,][0-9]{3}(?![0-9]))+)|[0-9]+/g;
const NOT_ASCII_DIGIT = /[^0-9]/g;
const NON_ASCII_DIGIT = /(?![0-9])\p{Nd}/u;
/** Below U+0660 (Arabic-Indic zero) the only decimal digits are ASCII: Latin, Greek and Cyrillic text needs no Unicode digit search. */
const BEYOND_ASCII_DIGITS = /[^\u0000-\u065f]/;
const NOT_DIGIT = /[^\p{Nd}]/gu;

/** Any script's digit as its ASCII digit: Unicode lays out every decimal digit set as a run from 0 to 9. */
function asciiDigit(digit: string): string {
  if (digit >= "0" && digit <= "9") return digit;
  const cp = digit.codePointAt(0)!;
  let zero = cp;
  while (/\p{Nd}/u.test(String.fromCodePoint(zero - 1))) zero--;
  return String((cp - zero) % 10);
}

/**
 * The numbers of the prose (not inside placeholders, URLs or tags), in order, keyed by their
 * digits; `written` (when given) gets each as it is written. QA runs this on every translation
 * of a job, so the usual case (ASCII digits) is a plain `exec` loop that makes only the keys.
 */
function numberKeys(text: string, format: Format, written?: string[]): string[] {
  const prose = proseText(text, format);
  const keys: string[] = [];
  if (BEYOND_ASCII_DIGITS.test(prose) && NON_ASCII_DIGIT.test(prose)) {
    for (const m of prose.matchAll(NUMBER_RE)) {
      keys.push(/^[0-9]+$/.test(m[0]) ? m[0] : m[0].replace(NOT_DIGIT, "").replace(/\p{Nd}/gu, asciiDigit));
      written?.push(m[0]);
    }
    return keys;
  }
  ASCII_NUMBER_RE.lastIndex = 0;
  for (let m = ASCII_NUMBER_RE.exec(prose); m !== null; m = ASCII_NUMBER_RE.exec(prose)) {
    keys.push(m[1] === undefined ? m[0] : m[0].replace(NOT_ASCII_DIGIT, ""));
    written?.push(m[0]);
  }
  return keys;
}

/** `numbers`: a number of the source does not occur in the translation (as often). */
const ANY_DIGIT = /\p{Nd}/u;

const NO_NUMBERS: { keys: string[]; written: string[] } = { keys: [], written: [] };

/** A source's numbers: their keys, and each as written (same order). */
function sourceNumbers(source: string, format: Format) {
  const written: string[] = [];
  return { keys: numberKeys(source, format, written), written };
}

export const checkNumbers: QACheck = (input) => {
  const { source, target, format } = input;
  const facts = factsOf(input);
  facts.numbers ??= ANY_DIGIT.test(source) ? sourceNumbers(source, format) : NO_NUMBERS;
  const inSource = facts.numbers;
  if (inSource.keys.length === 0) return null;
  const { missing } = multisetDiff(inSource.keys, numberKeys(target, format));
  if (missing.length === 0) return null;
  const written = missing.map((key) => inSource.written[inSource.keys.indexOf(key)]);
  return warning("numbers", `Numbers from the source are missing in the translation: ${listItems(written)}.`);
};
