import type { Formality, Format } from "../limits";

/** A term of the organization's glossary (D1). `language` is the target language code. */
export interface GlossaryTerm {
  source: string;
  language: string;
  target: string;
  caseSensitive: boolean;
}

export interface SegmentContext {
  label?: string | null;
  path?: string | null;
  before?: string[];
  after?: string[];
  examples?: { source: string; target: string; similarity: number }[];
}

/** One text to translate, with the context the connector gave for it. */
export interface EngineSegment {
  text: string;
  format: Format;
  kind?: string | null;
  field?: string | null;
  maxLength?: number | null;
  /**
   * What a translator would want to see besides the text: the unit's label and path, its
   * neighbouring segments' source texts (bounded) and fuzzy matches from the memory. Only
   * engines with a context notion read it (openai, deepl); it is never translated.
   */
  context?: SegmentContext;
}

/** Counts upstream requests, every attempt and retry included (the platform's subrequest limit counts each). */
export interface RequestMeter {
  requests: number;
}

export interface EngineRequest {
  sourceLanguage: string;
  targetLanguage: string;
  formality: Formality;
  /** Terms for this target language only. */
  glossary: GlossaryTerm[];
  segments: EngineSegment[];
  /** Incremented once per upstream request made for this call (retries included). */
  meter?: RequestMeter;
  /**
   * Who owns the glossary (the organization id): engines that keep glossaries on the
   * provider's side (DeepL) name them per owner, so one owner's change never deletes another's.
   */
  glossaryOwner?: string;
}

export interface EngineLimits {
  /** Most texts in one upstream request. */
  maxSegments: number;
  /** Most characters (as the engine counts them) in one upstream request. */
  maxCharacters: number;
}

export interface Engine {
  /** Its name in the registry (registry.ts, EngineName). */
  readonly name: string;
  /** Origin recorded on results: `llm` for the openai engine, `mt` for every other. */
  readonly origin: "mt" | "llm";
  readonly limits: EngineLimits;
  /** Whether this engine translates into the given target language (site language code). */
  supports(targetLanguage: string): boolean;
  /**
   * Translates every segment; the answer has one text per segment, in order.
   * Splits the work into upstream requests that fit `limits`. Throws EngineError.
   */
  translate(request: EngineRequest): Promise<string[]>;
}

export type EngineErrorKind =
  /** credentials or binding missing: fails the language, no retry */
  | "not_configured"
  /** target language not supported by the engine */
  | "unsupported_language"
  /** quota used up (DeepL 456, OpenAI insufficient_quota): fails the language at once */
  | "quota"
  /** still failing after retries (429/5xx/529/timeouts) */
  | "unavailable"
  /** the engine answered something we cannot use (malformed body, wrong item count) */
  | "bad_response"
  /** the engine refused the request (4xx other than the above) */
  | "rejected";

/** An engine failure with a plain-language message safe to show to users (never a credential). */
export class EngineError extends Error {
  constructor(
    readonly kind: EngineErrorKind,
    message: string,
  ) {
    super(message);
    this.name = "EngineError";
  }
}

/** Waits `ms` (the backoff between retries, a glossary's readiness poll). */
export type Sleep = (ms: number) => Promise<void>;

/** What an engine is built with besides the env: the sleep its retries wait through (tests pass one that returns at once). */
export interface EngineOptions {
  sleep?: Sleep;
}

/**
 * What engines read from the Worker's vars and secrets. All optional: a missing one makes that
 * engine `not_configured`. Each engine declares its own in its file (`declare module "./types"`),
 * so a new engine's vars stand beside the code that reads them.
 */
// biome-ignore lint/suspicious/noEmptyInterface: the engines' files add their vars to it
export interface EngineEnv {}
