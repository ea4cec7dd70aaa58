// The kinds of document the kit splits, in one table keyed by file extension: what the CLI splits a
// file with and writes its translation with. A new kind is its file in split/ (a `split` giving a
// Split and a `join` putting one back) and its line in SPLITTERS; the CLI and the README's list follow.
import type { PreviousSegment } from "./align.js";
import { joinHtml, splitHtml } from "./html.js";
import { joinJson, splitJson } from "./json.js";
import { joinParts, type Split, type Translations } from "./keys.js";
import { joinMarkdown, markDraft, splitMarkdown } from "./markdown.js";

export interface SplitOptions {
  /** Front matter fields sent as segments, for the kinds that have front matter (Markdown); default `title` and `description`. */
  fields?: string[];
  /** The unit's current segments in the service: an edited block keeps its key (see MarkdownOptions). */
  previous?: readonly PreviousSegment[];
}

/** One kind of document: how it is cut into segments and put back together. */
export interface Splitter {
  /** The segments to push, the template a join fills, and what keeps the document from being pushed (`problems`). */
  split(doc: string, options?: SplitOptions): Split;
  /** The document with each segment's translation (its source text where none is given). */
  join(split: Split, translations: Translations): string;
  /** Marks a translated document as a draft, for the kinds that can say so (Markdown's front matter `draft: true`). */
  draft?(doc: string): string;
}

const markdown: Splitter = { split: (doc, options) => splitMarkdown(doc, options), join: joinMarkdown, draft: markDraft };
const html: Splitter = { split: (doc, options) => splitHtml(doc, { previous: options?.previous }), join: joinHtml };
// A JSON document's template is the document itself: its values are put back by path, not by position.
const json: Splitter = { split: (doc) => splitJson(doc), join: (split, translations) => joinJson(joinParts(split, {}), translations) };

/** Every kind the kit splits, by lowercase file extension. */
export const SPLITTERS: Readonly<Record<string, Splitter>> = {
  ".md": markdown,
  ".markdown": markdown,
  ".html": html,
  ".htm": html,
  ".json": json,
};

/** A path's extension as SPLITTERS keys it (`.md`), or "" when it has none. */
export const extensionOf = (path: string) => /\.[^./\\]*$/.exec(path)?.[0].toLowerCase() ?? "";

/** The splitter of a file by its extension; an extension without one is an error that names those there are. */
export function splitterFor(path: string): Splitter {
  const extension = extensionOf(path);
  const splitter = Object.hasOwn(SPLITTERS, extension) ? SPLITTERS[extension] : undefined;
  if (!splitter)
    throw new Error(`${path}: no splitter for ${extension ? `${extension} files` : "files without an extension"}: the kit splits ${Object.keys(SPLITTERS).join(", ")}`);
  return splitter;
}
