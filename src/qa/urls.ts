import { findUrls } from "../markup/urls";
import { describeDiff, multisetDiff, type QACheck, warning } from "./issue";
import { RememberedBy } from "./remember";

const sourceUrls = new RememberedBy<string[]>();

/** `urls`: the translation's URLs (in text and in attributes) are not the source's. A warning: a localized link can be intended. */
export const checkUrls: QACheck = ({ source, target, format }) => {
  const html = format === "html" || format === "rich_text";
  const urls = (text: string) => findUrls(text, html).map((s) => text.slice(s.start, s.end));
  const differences = describeDiff(
    multisetDiff(
      sourceUrls.get(html ? "html" : "text", source, () => urls(source)),
      urls(target),
    ),
  );
  return differences ? warning("urls", `The URLs differ from the source: ${differences}.`) : null;
};
