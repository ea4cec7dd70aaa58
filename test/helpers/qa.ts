import type { QAInput } from "../../src/qa/types";

/** A QA input with neutral defaults: plain text, English to German, no limit, no glossary. */
export function qaInput(overrides: Partial<QAInput> & Pick<QAInput, "source" | "target">): QAInput {
  return { format: "plain", maxLength: null, sourceLanguage: "en", targetLanguage: "de", glossary: [], ...overrides };
}
