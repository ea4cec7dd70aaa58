import type { Format } from "../limits";
import { MARKUP_CHAR, proseText } from "../markup/scan";
import { trimTrailing } from "../markup/trailing";
import { baseLanguage, type QACheck, warning } from "./issue";
import { factsOf } from "./remember";

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

/** What most texts end with: an ASCII letter or digit (no mark), or a single full stop. */
const ASCII_ALNUM = /[0-9A-Za-z]/;
const FULL_STOP = { kind: "full stop", mark: "." } as const;

function endingMark(text: string, format: Format, language: string): { kind: string; mark: string } | null {
  const prose = proseText(text, format);
  // The usual endings first, as the rules below would read them: a letter or digit is no mark, nor blank, nor a
  // closer; a "." is a full stop unless it ends "...". QA checks every translation of a job, so this is its hot path.
  const last = prose.at(-1);
  if (last !== undefined && ASCII_ALNUM.test(last)) return null;
  if (last === "." && !prose.endsWith("...")) return FULL_STOP;
  const end = trimTrailing(trimTrailing(prose, BLANK), CLOSER);
  if (/(?:\.\.\.|…|⋯)$/u.test(end)) return { kind: "ellipsis", mark: end.endsWith("...") ? "..." : end.at(-1)! };
  const mark = end.at(-1);
  if (mark === undefined) return null;
  // Greek writes its question mark as ";".
  if (mark === ";" && baseLanguage(language) === "el") return { kind: "question mark", mark };
  const kind = MARKS.find(([, chars]) => chars.includes(mark))?.[0];
  return kind ? { kind, mark } : null;
}

/** Remembered for a source without an ending mark (null would not be remembered). */
const NONE = "";

/** `punctuation`: the translation ends with another kind of mark than the source (or with none, or one the source lacks). */
export const checkPunctuation: QACheck = (input) => {
  const { source, target, format, sourceLanguage, targetLanguage } = input;
  const facts = factsOf(input);
  facts.ending ??= endingMark(source, format, sourceLanguage) ?? NONE;
  const s = facts.ending || null;
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
