import type { GlossaryTerm } from "../engines/types";
import type { Format } from "../limits";
import type { SourceFacts } from "./remember";

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
