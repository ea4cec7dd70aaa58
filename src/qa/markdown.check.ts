import { scan } from "../markup/scan";
import { describeDiff, error, multisetDiff, type QACheck } from "./issue";

/** `](https://x.org "Title")` → `(https://x.org)`: the title is prose a translator may translate. */
function linkTarget(closer: string): string {
  if (closer.startsWith("][")) return closer.slice(1);
  const inner = closer.slice(2, -1).trim();
  const destination = inner.startsWith("<") ? inner.slice(0, inner.indexOf(">") + 1) : inner.split(/\s/)[0];
  return `(${destination})`;
}

/** The syntax a translation must keep: link and image targets, code, emphasis markers. */
function markdownSyntax(text: string): string[] {
  const items: string[] = [];
  const openers = new Map<number, string>();
  for (const span of scan(text, "markdown")) {
    const source = text.slice(span.start, span.end);
    if (span.kind === "link_open") openers.set(span.pair!, source);
    else if (span.kind === "link_close") {
      const image = openers.get(span.pair!) === "![";
      items.push(`${image ? "image" : "link"} ${image ? "!" : ""}[…]${linkTarget(source)}`);
    } else if (span.kind === "code") items.push(`code ${source}`);
    else if (span.kind === "emphasis") items.push(`emphasis marker ${source}`);
  }
  return items;
}

/** `markdown_syntax`: links, images, code spans or emphasis markers differ from the source. */
export const checkMarkdownSyntax: QACheck = ({ source, target, format }) => {
  if (format !== "markdown") return null;
  const differences = describeDiff(multisetDiff(markdownSyntax(source), markdownSyntax(target)));
  return differences ? error("markdown_syntax", `The Markdown differs from the source: ${differences}.`) : null;
};
