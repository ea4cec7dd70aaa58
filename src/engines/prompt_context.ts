// What the OpenAI-compatible engine tells the model about each text besides the text itself
// (the unit's label and path, its neighbours, fuzzy examples from the memory), bounded.
import type { SegmentContext } from "./types";

/** Characters of one item's context at most (its JSON, as sent): beyond it, parts are cut in CUT_ORDER. */
export const ITEM_CONTEXT_CHARACTERS = 4_000;
/** Characters kept of a label, a path and each neighbour (the slice already cuts them; other callers may not). */
export const CONTEXT_PART_CHARACTERS = 200;
/** Characters kept of each side of an example (a translation memory entry can be a whole paragraph). */
export const EXAMPLE_CHARACTERS = 1_000;
/** Fuzzy examples given per text at most, the most similar first. */
export const MAX_EXAMPLES = 3;

/**
 * The order in which an item's context is cut when it exceeds ITEM_CONTEXT_CHARACTERS: the
 * neighbours first, farthest from the text first (alternating before/after), then the
 * examples beyond the best (least similar first), then the best example. The label and path
 * (at most CONTEXT_PART_CHARACTERS each) are never cut further; the text and the glossary terms
 * it uses are never cut at all (a request holds fewer texts instead).
 */
export const CUT_ORDER = ["neighbours, farthest first", "examples beyond the best, least similar first", "the best example"] as const;

/** An item's context as it goes into the prompt. */
export interface PromptContext {
  label?: string;
  path?: string;
  before?: string[];
  after?: string[];
  examples?: { source: string; translation: string }[];
}

const clip = (text: string, n: number) =>
  text.length <= n
    ? text
    : `${Array.from(text)
        .slice(0, n - 1)
        .join("")}…`;

const size = (context: PromptContext) => JSON.stringify(context).length;

/** The context of one item within ITEM_CONTEXT_CHARACTERS, or undefined when there is none. */
export function promptContext(context: SegmentContext | undefined, limit = ITEM_CONTEXT_CHARACTERS): PromptContext | undefined {
  if (!context) return undefined;
  const out: PromptContext = {};
  if (context.label) out.label = clip(context.label, CONTEXT_PART_CHARACTERS);
  if (context.path) out.path = clip(context.path, CONTEXT_PART_CHARACTERS);
  const before = (context.before ?? []).filter(Boolean).map((t) => clip(t, CONTEXT_PART_CHARACTERS));
  const after = (context.after ?? []).filter(Boolean).map((t) => clip(t, CONTEXT_PART_CHARACTERS));
  const examples = [...(context.examples ?? [])]
    .sort((a, b) => b.similarity - a.similarity)
    .slice(0, MAX_EXAMPLES)
    .map((e) => ({ source: clip(e.source, EXAMPLE_CHARACTERS), translation: clip(e.target, EXAMPLE_CHARACTERS) }));
  const assemble = () => {
    const c: PromptContext = { ...out };
    if (before.length) c.before = before;
    if (after.length) c.after = after;
    if (examples.length) c.examples = examples;
    return c;
  };
  let current = assemble();
  // Neighbours first, the farthest first: before[0] is farthest before, after[last] farthest after.
  while (size(current) > limit && before.length + after.length > 0) {
    if (before.length >= after.length) before.shift();
    else after.pop();
    current = assemble();
  }
  // Then the examples, least similar first, the best last.
  while (size(current) > limit && examples.length > 0) {
    examples.pop();
    current = assemble();
  }
  return Object.keys(current).length ? current : undefined;
}
