import type { QAInput, QAIssue } from "./types";

/** One QA check: an issue with its code, or null when the translation passes. */
export type QACheck = (input: QAInput) => QAIssue | null;

export const error = (code: string, message: string): QAIssue => ({ code, severity: "error", message });
export const warning = (code: string, message: string): QAIssue => ({ code, severity: "warning", message });

function counts(items: readonly string[]): Map<string, number> {
  const map = new Map<string, number>();
  for (const item of items) map.set(item, (map.get(item) ?? 0) + 1);
  return map;
}

/** What `target` lacks of `source` and has in excess, counting repeats (multisets). */
export function multisetDiff(source: readonly string[], target: readonly string[]): { missing: string[]; added: string[] } {
  // Most translations keep their placeholders, numbers and URLs in the same order (or have none).
  if (source.length === target.length && source.every((item, i) => item === target[i])) return { missing: [], added: [] };
  const inSource = counts(source);
  const inTarget = counts(target);
  const excess = (from: Map<string, number>, other: Map<string, number>) => [...from].flatMap(([item, n]) => Array<string>(Math.max(0, n - (other.get(item) ?? 0))).fill(item));
  return { missing: excess(inSource, inTarget), added: excess(inTarget, inSource) };
}

const SHOWN = 5;

/** `a, b ×2 and 3 more`: a short list for a message, repeats folded. */
export function listItems(items: string[]): string {
  const folded = [...counts(items)].map(([item, n]) => (n > 1 ? `${item} ×${n}` : item));
  const shown = folded.slice(0, SHOWN).join(", ");
  return folded.length > SHOWN ? `${shown} and ${folded.length - SHOWN} more` : shown;
}

/** `missing a, b; unexpected c`, or "" when nothing differs. */
export function describeDiff({ missing, added }: { missing: string[]; added: string[] }): string {
  return [missing.length ? `missing ${listItems(missing)}` : "", added.length ? `unexpected ${listItems(added)}` : ""].filter(Boolean).join("; ");
}

/** `pt-BR` → `pt`, for rules that follow the language rather than the region. */
export function baseLanguage(code: string): string {
  return code.split(/[-_]/)[0].toLowerCase();
}
