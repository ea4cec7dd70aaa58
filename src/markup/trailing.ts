/**
 * Length of the run of characters at the end of `text` that match `char` (a one-character
 * pattern). A loop rather than a `…+$` pattern: the regex engine retries such a pattern from
 * every position of a long run that is not at the end, which is quadratic on long segments.
 */
export function trailingRun(text: string, char: RegExp): number {
  let start = text.length;
  while (start > 0 && char.test(text[start - 1])) start--;
  return text.length - start;
}

/** `text` without the trailing run of characters matching `char`. */
export function trimTrailing(text: string, char: RegExp): string {
  return text.slice(0, text.length - trailingRun(text, char));
}
