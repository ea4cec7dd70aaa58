import type { Format } from "../limits";
import { MARKUP_CHAR, proseText } from "../markup/scan";
import { trimTrailing } from "../markup/trailing";
import { baseLanguage, type QACheck, warning } from "./issue";
import { RememberedBy } from "./remember";

/**
 * Ending marks by what they mean, so each script's own form counts as the same mark
 * (`.` = `。` = `।`, `?` = `？` = `؟`). The opening `¿` and `¡` of Spanish are never ending marks.
 */
const MARKS: [kind: string, chars: string][] = [
  ["full stop", ".。．｡।॥۔።။។܂"],
  ["question mark", "?？؟፧\u037e՞"],
  ["exclamation mark", "!！՜߹"],
  ["colon", ":：፥"],
  ["semicolon", ";；؛"],
  ["ellipsis", "…⋯"],
];

/** Closing quotes and brackets after the mark: `He said "Hi."` ends with a full stop. */
const CLOSER = /["'“”‘’»«›‹」』】〉》)\]）]/u;
const BLANK = new RegExp(`[\\s${MARKUP_CHAR}]`, "u");

/** Languages that end sentences without a mark: a missing full stop there is correct. */
const NO_FULL_STOP = new Set(["th", "lo"]);

function endingMark(text: string, format: Format, language: string): { kind: string; mark: string } | null {
  const end = trimTrailing(trimTrailing(proseText(text, format), BLANK), CLOSER);
  if (/(?:\.\.\.|…|⋯)$/u.test(end)) return { kind: "ellipsis", mark: end.endsWith("...") ? "..." : end.at(-1)! };
  const mark = end.at(-1);
  if (mark === undefined) return null;
  // Greek writes its question mark as ";".
  if (mark === ";" && baseLanguage(language) === "el") return { kind: "question mark", mark };
  const kind = MARKS.find(([, chars]) => chars.includes(mark))?.[0];
  return kind ? { kind, mark } : null;
}

const sourceMarks = new RememberedBy<{ kind: string; mark: string } | "">();
/** Remembered for a source without an ending mark (null would not be remembered). */
const NONE = "";

/** `punctuation`: the translation ends with another kind of mark than the source (or with none, or one the source lacks). */
export const checkPunctuation: QACheck = ({ source, target, format, sourceLanguage, targetLanguage }) => {
  const s = sourceMarks.get(`${format} ${sourceLanguage}`, source, () => endingMark(source, format, sourceLanguage) ?? NONE) || null;
  const t = endingMark(target, format, targetLanguage);
  if (s?.kind === t?.kind) return null;
  if (s?.kind === "full stop" && !t && NO_FULL_STOP.has(baseLanguage(targetLanguage))) return null;
  const message = !t
    ? `The source ends with "${s!.mark}" but the translation has no ending punctuation.`
    : !s
      ? `The translation ends with "${t.mark}" but the source has no ending punctuation.`
      : `The source ends with "${s.mark}" but the translation ends with "${t.mark}".`;
  return warning("punctuation", message);
};
