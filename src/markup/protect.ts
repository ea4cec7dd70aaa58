// CONTRACT STUB — owned by the markup helper, who replaces the bodies.
import type { Format } from "../limits";

/**
 * How protected tokens are presented to an engine:
 * - "html": the engine runs in its HTML mode (DeepL tag_handling=html, Google text/html,
 *   Azure textType=html). Output is valid HTML; plain/markdown text is HTML-escaped; each
 *   placeholder/URL becomes an element the engine leaves untranslated.
 * - "text": the engine has no markup mode (pseudo, workers_ai, openai). Tags, placeholders,
 *   URLs and markdown syntax become opaque tokens the engine copies through.
 */
export type ProtectMode = "html" | "text";

export interface ProtectedText {
  /** What to send to the engine. */
  text: string;
  /** Turns the engine's output back into the segment's format, restoring every token byte-identical. Throws MarkupError when a token is missing or duplicated. */
  restore(translated: string): string;
}

export class MarkupError extends Error {
  override name = "MarkupError";
}

export function protect(text: string, format: Format, mode: ProtectMode): ProtectedText {
  void format;
  void mode;
  return { text, restore: (t) => t };
}
