// Shared fixtures for the engine tests.
import { EngineError, type EngineRequest, type EngineSegment, type GlossaryTerm, type Sleep } from "../../src/engines/types";
import type { Formality, Format } from "../../src/limits";

/** A sleep that returns at once, for the engine or call under test (`{ sleep }`), and the waits it was asked for (ms). */
export function recordSleeps(): { sleep: Sleep; sleeps: number[] } {
  const sleeps: number[] = [];
  const sleep: Sleep = async (ms) => {
    sleeps.push(ms);
  };
  return { sleep, sleeps };
}

export function segments(texts: readonly string[], format: Format = "plain", extra: Partial<EngineSegment> = {}): EngineSegment[] {
  return texts.map((text) => ({ text, format, ...extra }));
}

export function engineRequest(options: {
  texts?: readonly string[];
  segments?: EngineSegment[];
  source?: string;
  target?: string;
  formality?: Formality;
  glossary?: GlossaryTerm[];
}): EngineRequest {
  return {
    sourceLanguage: options.source ?? "en",
    targetLanguage: options.target ?? "de",
    formality: options.formality ?? "default",
    glossary: options.glossary ?? [],
    segments: options.segments ?? segments(options.texts ?? ["Hello"]),
  };
}

/** The EngineError a promise rejects with (fails when it resolves or throws something else). */
export async function engineError(promise: Promise<unknown>): Promise<EngineError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof EngineError) return error;
    throw error;
  }
  throw new Error("expected an EngineError, but the call succeeded");
}

/** `n` distinct texts: "text 1", "text 2" … */
export function numbered(n: number, prefix = "text"): string[] {
  return Array.from({ length: n }, (_, i) => `${prefix} ${i + 1}`);
}
