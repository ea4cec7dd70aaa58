import { findUrls } from "../markup/urls";
import { describeDiff, multisetDiff, type QACheck, warning } from "./issue";
import { factsOf } from "./remember";

/** `urls`: the translation's URLs (in text and in attributes) are not the source's. A warning: a localized link can be intended. */
export const checkUrls: QACheck = (input) => {
  const html = input.format === "html" || input.format === "rich_text";
  const urls = (text: string) => findUrls(text, html).map((s) => text.slice(s.start, s.end));
  const facts = factsOf(input);
  facts.urls ??= urls(input.source);
  const differences = describeDiff(multisetDiff(facts.urls, urls(input.target)));
  return differences ? warning("urls", `The URLs differ from the source: ${differences}.`) : null;
};
