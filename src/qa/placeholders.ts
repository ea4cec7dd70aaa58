import { findPlaceholders } from "../markup/placeholders";
import { describeDiff, error, multisetDiff, type QACheck } from "./issue";
import { Remembered } from "./remember";

const placeholders = (text: string) => findPlaceholders(text).map((s) => text.slice(s.start, s.end));
const sourcePlaceholders = new Remembered<string[]>();

/**
 * `placeholders`: every placeholder of the source exactly as often in the translation, and no
 * other. Order is free: languages put arguments in other places.
 */
export const checkPlaceholders: QACheck = ({ source, target }) => {
  const differences = describeDiff(
    multisetDiff(
      sourcePlaceholders.get(source, () => placeholders(source)),
      placeholders(target),
    ),
  );
  return differences ? error("placeholders", `The placeholders differ from the source: ${differences}.`) : null;
};
