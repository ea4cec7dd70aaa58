import type { GlossaryTerm } from "../engines/types";
import { proseText } from "../markup/scan";
import { listItems, type QACheck, warning } from "./issue";

/** Scripts written without spaces between words: a term there has no word boundaries to look for. */
const NO_SPACES = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;
const WORD_CHAR = /[\p{L}\p{N}_]/u;

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** A regular expression finding `term` as a whole word ("cat" is not in "category"). */
function wordPattern(term: string, caseSensitive: boolean): RegExp {
  const first = term[0];
  const last = term.at(-1)!;
  const before = WORD_CHAR.test(first) && !NO_SPACES.test(first) ? "(?<![\\p{L}\\p{N}_])" : "";
  const after = WORD_CHAR.test(last) && !NO_SPACES.test(last) ? "(?![\\p{L}\\p{N}_])" : "";
  return new RegExp(`${before}${escapeRegExp(term)}${after}`, caseSensitive ? "u" : "iu");
}

/**
 * A regular expression finding `term` anywhere. No word boundaries on the translation side: a
 * required term often appears inside a compound (Konto in Benutzerkonto) or with an ending.
 */
function textPattern(term: string, caseSensitive: boolean): RegExp {
  return new RegExp(escapeRegExp(term), caseSensitive ? "u" : "iu");
}

/** One source term with its alternative targets, as patterns compiled once. */
interface CompiledTerm {
  label: string;
  source: RegExp;
  targets: RegExp[];
}

/**
 * A glossary's terms compiled to patterns once, for checking many translations (a job's
 * slice) without building the same regular expressions for every segment.
 * Terms with the same source are alternatives: any one of their targets will do.
 */
export class GlossaryMatcher {
  private readonly terms: CompiledTerm[] = [];

  constructor(readonly glossary: readonly GlossaryTerm[]) {
    const bySource = new Map<string, GlossaryTerm[]>();
    for (const term of glossary) {
      const key = term.source.normalize("NFC").trim();
      if (key === "" || term.target.trim() === "") continue;
      const id = `${term.caseSensitive ? "=" : "~"}${term.caseSensitive ? key : key.toLowerCase()}`;
      const alternatives = bySource.get(id) ?? [];
      alternatives.push(term);
      bySource.set(id, alternatives);
    }
    for (const terms of bySource.values()) {
      const { source, caseSensitive } = terms[0];
      this.terms.push({
        label: `"${source.trim()}" → ${terms.map((t) => `"${t.target.trim()}"`).join(" or ")}`,
        source: wordPattern(source.normalize("NFC").trim(), caseSensitive),
        targets: terms.map((t) => textPattern(t.target.normalize("NFC").trim(), t.caseSensitive)),
      });
    }
  }

  get empty(): boolean {
    return this.terms.length === 0;
  }

  /** Labels of the terms that occur in the source prose but none of whose targets is in the translation. */
  unused(sourceProse: string, targetProse: string): string[] {
    const out: string[] = [];
    for (const term of this.terms) {
      if (!term.source.test(sourceProse)) continue;
      if (term.targets.some((t) => t.test(targetProse))) continue;
      out.push(term.label);
    }
    return out;
  }
}

/** Matchers by glossary array: a caller that passes the same array again reuses the compiled patterns. */
const compiled = new WeakMap<readonly GlossaryTerm[], GlossaryMatcher>();

export function glossaryMatcher(glossary: readonly GlossaryTerm[]): GlossaryMatcher {
  let matcher = compiled.get(glossary);
  if (!matcher) {
    matcher = new GlossaryMatcher(glossary);
    compiled.set(glossary, matcher);
  }
  return matcher;
}

/**
 * `glossary`: a term of the glossary occurs in the source but its required translation is
 * absent. Terms with the same source are alternatives: any one of their targets will do.
 */
export const checkGlossary: QACheck = ({ source, target, format, glossary }) => {
  if (glossary.length === 0) return null;
  const matcher = glossaryMatcher(glossary);
  if (matcher.empty) return null;
  const unused = matcher.unused(proseText(source, format).normalize("NFC"), proseText(target, format).normalize("NFC"));
  return unused.length ? warning("glossary", `The translation does not use the glossary's terms: ${listItems(unused)}.`) : null;
};
