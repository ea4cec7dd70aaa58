import { proseText } from "../markup/scan";
import { baseLanguage, warning, type QACheck } from "./issue";

/** Fewer letters than this and the text is a symbol, a unit or a code that stays as it is ("OK", "cm", "ID"). */
const MIN_LETTERS = 3;

const normalize = (text: string) => text.normalize("NFC").toLowerCase().replace(/\s+/g, "");

/**
 * `unchanged`: the translation repeats the source. Skipped when the prose has hardly any
 * letters (placeholders, numbers and URLs alone are meant to stay) and between variants of one
 * language (en → en-GB), where equal text is normal.
 */
export const checkUnchanged: QACheck = ({ source, target, format, sourceLanguage, targetLanguage }) => {
  if (baseLanguage(sourceLanguage) === baseLanguage(targetLanguage)) return null;
  if (normalize(source) !== normalize(target)) return null;
  const letters = proseText(source, format).match(/\p{L}/gu)?.length ?? 0;
  if (letters < MIN_LETTERS || normalize(source) !== normalize(target)) return null;
  return warning("unchanged", "The translation is the same as the source text.");
};
