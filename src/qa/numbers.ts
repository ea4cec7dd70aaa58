import type { Format } from "../limits";
import { proseText } from "../markup/scan";
import { listItems, multisetDiff, type QACheck, warning } from "./issue";
import { RememberedBy } from "./remember";

/**
 * A number with thousands groups (`1,000`, `1.000`, `1 000`, `10'000`) or a plain run of
 * digits. A group needs a 1–3 digit head and 3-digit groups, so "in 2020 100 people" is two
 * numbers. Decimal parts are numbers of their own: `1,000.5` and `1.000,5` both read 1000 and 5,
 * whichever separator convention the language uses.
 */
const NUMBER_RE = /(?<!\p{Nd})\p{Nd}{1,3}(?:[ \u00a0\u202f\u2009'’.,]\p{Nd}{3}(?!\p{Nd}))+|\p{Nd}+/gu;
/** The same for texts whose digits are all ASCII (most): several times faster than the Unicode classes. */
const ASCII_NUMBER_RE = /(?<![0-9])[0-9]{1,3}(?:[ \u00a0\u202f\u2009'’.,][0-9]{3}(?![0-9]))+|[0-9]+/g;
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

/** Numbers of the prose (not inside placeholders, URLs or tags), keyed by their digits. */
function numbers(text: string, format: Format): { key: string; written: string }[] {
  const prose = proseText(text, format);
  const unicode = BEYOND_ASCII_DIGITS.test(prose) && NON_ASCII_DIGIT.test(prose);
  return Array.from(prose.matchAll(unicode ? NUMBER_RE : ASCII_NUMBER_RE), (m) => ({
    key: /^[0-9]+$/.test(m[0]) ? m[0] : m[0].replace(NOT_DIGIT, "").replace(/\p{Nd}/gu, asciiDigit),
    written: m[0],
  }));
}

/** `numbers`: a number of the source does not occur in the translation (as often). */
const ANY_DIGIT = /\p{Nd}/u;

const sourceNumbers = new RememberedBy<{ key: string; written: string }[]>();

export const checkNumbers: QACheck = ({ source, target, format }) => {
  const inSource = sourceNumbers.get(format, source, () => (ANY_DIGIT.test(source) ? numbers(source, format) : []));
  if (inSource.length === 0) return null;
  const { missing } = multisetDiff(
    inSource.map((n) => n.key),
    numbers(target, format).map((n) => n.key),
  );
  if (missing.length === 0) return null;
  const written = missing.map((key) => inSource.find((n) => n.key === key)!.written);
  return warning("numbers", `Numbers from the source are missing in the translation: ${listItems(written)}.`);
};
