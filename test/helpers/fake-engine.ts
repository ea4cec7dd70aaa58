// One in-process engine for the tests that inject it through `RunnerDeps.engineFor`, so the
// runner, billing and site tests share one fixture instead of each building its own. Tests of
// the real engines' wire shapes mock HTTP instead (test/helpers/http.ts) and do not use it.
import type { Engine, EngineLimits, EngineRequest } from "../../src/engines/types";
import type { EngineName } from "../../src/limits";

/** An engine that answers at once and keeps what it was sent. */
export interface FakeEngine extends Engine {
  /** Every request it got, in the order they arrived (recorded before `during` runs). */
  readonly requests: EngineRequest[];
  /** The texts of those requests, in the same order. */
  readonly texts: string[];
}

export interface FakeEngineOptions {
  /** Default "pseudo". */
  name?: EngineName;
  /** Default 50 texts and 50,000 characters a request; a test may raise either to make slices larger. */
  limits?: Partial<EngineLimits>;
  /** One text's translation; by default `${targetLanguage}: ${text}`. */
  translation?: (text: string, request: EngineRequest) => string;
  /**
   * Awaited while a request is at the engine, after it was recorded and before it is answered;
   * `n` counts the requests from 1. The seam for what happens mid-request: a push or a settings
   * change arriving, a wait, a failure (throw).
   */
  during?: (request: EngineRequest, n: number) => Promise<void> | void;
}

/** An `Engine` of origin "mt" that supports every language and translates each text predictably. */
export function fakeEngine(options: FakeEngineOptions = {}): FakeEngine {
  const { name = "pseudo", translation = (text, request) => `${request.targetLanguage}: ${text}`, during } = options;
  const requests: EngineRequest[] = [];
  const texts: string[] = [];
  return {
    name,
    origin: "mt",
    limits: { maxSegments: 50, maxCharacters: 50_000, ...options.limits },
    supports: () => true,
    requests,
    texts,
    translate: async (request) => {
      requests.push(request);
      texts.push(...request.segments.map((s) => s.text));
      // No await without a hook: a zero-latency engine answers without yielding to anything else.
      if (during) await during(request, requests.length);
      return request.segments.map((s) => translation(s.text, request));
    },
  };
}
