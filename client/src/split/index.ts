export { type AlignOptions, alignKeys, alignSplit, blockSimilarity, COMPARE_WINDOW, COMPARED_POINTS, type PreviousSegment, SIMILARITY_THRESHOLD } from "./align.js";
export { type HtmlOptions, joinHtml, splitHtml } from "./html.js";
export { flattenJson, joinJson, splitJson, unflattenJson } from "./json.js";
export { encodeKeyPart, normalize, type Part, type Split, type SplitProblem, type SplitSegment, type Translations } from "./keys.js";
export { frontMatter, joinMarkdown, type MarkdownOptions, markDraft, splitMarkdown } from "./markdown.js";
export { extensionOf, SPLITTERS, type SplitOptions, type Splitter, splitterFor } from "./splitters.js";
