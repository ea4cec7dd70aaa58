import type { GlossaryTerm } from "../engines/types";
import type { Format } from "../limits";

export type QASeverity = "error" | "warning";

/** QAIssueOut of the interface. */
export interface QAIssue {
  code: string;
  severity: QASeverity;
  message: string;
}

export interface QAInput {
  source: string;
  target: string;
  format: Format;
  maxLength: number | null;
  sourceLanguage: string;
  targetLanguage: string;
  /** Glossary terms whose `language` is the target language. */
  glossary: GlossaryTerm[];
  /** What the checks derived from this source before (runQA looks it up once for all checks; remember.ts). */
  facts?: SourceFacts;
}

/**
 * What the checks derive from one source text in one format and source language, remembered
 * for the job's other target languages: each check fills its field the first time it asks.
 * runQA looks it up once per translation (remember.ts, sourceFacts: one Map lookup, instead of
 * one per check).
 */
export interface SourceFacts {
  /** Its numbers: their keys, and each as written (same order). */
  numbers?: { keys: string[]; written: string[] };
  placeholders?: string[];
  /** Its ending mark; "" when it has none. */
  ending?: { kind: string; mark: string } | "";
  urls?: string[];
  doubleSpaces?: number;
}
