import { visibleText } from "../markup/scan";
import { error, type QACheck } from "./issue";

/** `empty`: the source has visible text and the translation has none (markup alone does not count). */
export const checkEmpty: QACheck = ({ source, target, format }) => {
  const hasText = (text: string) => visibleText(text, format).trim() !== "";
  // The translation first: it nearly always has text, and then the source need not be read.
  return !hasText(target) && hasText(source) ? error("empty", "The translation is empty.") : null;
};

/**
 * `max_length`: counted the way a reader sees the text (tags stripped and entities decoded
 * for HTML), in code points, so an emoji or a CJK character counts once.
 */
export const checkMaxLength: QACheck = ({ target, format, maxLength }) => {
  if (maxLength === null) return null;
  const length = [...visibleText(target, format)].length;
  return length > maxLength ? error("max_length", `The translation is ${length} characters long; the limit is ${maxLength}.`) : null;
};
