import { findPlaceholders } from "../markup/placeholders";
import { describeDiff, error, multisetDiff, type QACheck } from "./issue";
import { factsOf } from "./remember";

const placeholders = (text: string) => findPlaceholders(text).map((s) => text.slice(s.start, s.end));

/**
 * `placeholders`: every placeholder of the source exactly as often in the translation, and no
 * other. Order is free: languages put arguments in other places.
 */
export const checkPlaceholders: QACheck = (input) => {
  const facts = factsOf(input);
  facts.placeholders ??= placeholders(input.source);
  const differences = describeDiff(multisetDiff(facts.placeholders, placeholders(input.target)));
  return differences ? error("placeholders", `The placeholders differ from the source: ${differences}.`) : null;
};
