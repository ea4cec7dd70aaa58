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
}
