/** An engine's output cannot be turned back into the segment's format: a protected token is missing, duplicated or unknown. */
export class MarkupError extends Error {
  override name = "MarkupError";
}
