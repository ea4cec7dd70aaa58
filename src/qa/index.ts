/**
 * Quality checks of one translation against its source (docs/decisions.md "Engines and quality checks"). Errors hold
 * a translation back according to the site's qa_mode; warnings travel with it.
 */
import { checkGlossary } from "./glossary.check";
import { checkHtmlTags } from "./html-tags.check";
import type { QACheck } from "./issue";
import { checkEmpty, checkMaxLength } from "./length.check";
import { checkMarkdownSyntax } from "./markdown.check";
import { checkNumbers } from "./numbers.check";
import { checkPlaceholders } from "./placeholders.check";
import { checkPunctuation } from "./punctuation.check";
import { factsOf } from "./remember";
import type { QAInput, QAIssue } from "./types";
import { checkUnchanged } from "./unchanged.check";
import { checkUrls } from "./urls.check";
import { checkDoubleSpace, checkWhitespace } from "./whitespace.check";

export type { QAInput, QAIssue, QASeverity } from "./types";

/** In the order they are reported: errors first, then warnings. */
const CHECKS: QACheck[] = [
  checkMaxLength,
  checkHtmlTags,
  checkPlaceholders,
  checkMarkdownSyntax,
  checkUnchanged,
  checkNumbers,
  checkUrls,
  checkWhitespace,
  checkPunctuation,
  checkDoubleSpace,
  checkGlossary,
];

/**
 * Every issue of a translation. An empty translation is reported alone: listing each
 * placeholder and number it lacks would only bury the one thing to fix.
 */
export function runQA(input: QAInput): QAIssue[] {
  const empty = checkEmpty(input);
  if (empty) return [empty];
  const checked = input.facts ? input : { ...input, facts: factsOf(input) };
  return CHECKS.map((check) => check(checked)).filter((issue): issue is QAIssue => issue !== null);
}
