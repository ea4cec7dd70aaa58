// One in-process engine for the tests that inject it through `RunnerDeps.engineFor`, so the
// runner, billing and site tests share one fixture instead of each building its own. Tests of
// the real engines' wire shapes mock HTTP instead (test/helpers/http.ts) and do not use it.
//
// It is built on the pipeline every real engine's translate() runs (src/engines/pipeline.ts):
// each segment is protected (markup, placeholders and URLs become tokens; leading and trailing
// whitespace stays behind), split into upstream requests at `limits`, and each answer restored,
// so what the fake sees and answers is what a real engine's HTTP body carries, and a change to
// protection or restoration is exercised by every job-level test that uses it. An answer that
// loses, repeats or invents a token fails its batch as a real engine's would (bad_response).
import { codePointLength } from "../../src/engines/batch";
import { runPipeline } from "../../src/engines/pipeline";
import type { EngineName } from "../../src/engines/registry";
import type { Engine, EngineLimits, EngineRequest } from "../../src/engines/types";
import type { ProtectMode } from "../../src/markup/protect";

/** An engine that answers at once and keeps what it was sent. */
export interface FakeEngine extends Engine {
  /**
   * Every upstream request it got, in the order they arrived (recorded before `during` runs):
   * the request the runner made, with each segment's text as sent (protected) and only the
   * segments that were sent (empty or whitespace-only ones never are).
   */
  readonly requests: EngineRequest[];
  /** The texts of those requests as sent (protected), in the same order. */
  readonly texts: string[];
}

export interface FakeEngineOptions {
  /** Default "pseudo". */
  name?: EngineName;
  /** Default 50 texts and 50,000 characters a request; a test may raise either to make slices larger. */
  limits?: Partial<EngineLimits>;
  /**
   * How markup reaches the engine: "text" (default: tags, placeholders and URLs as `⟦n⟧` tokens,
   * as openai and workers_ai get them) or "html" (DeepL, Google and Azure's HTML mode: elements
   * carry `id="m3"`, atoms are `<span translate="no">`).
   */
  mode?: ProtectMode;
  /**
   * One text's translation; by default `${targetLanguage}: ${text}`. `text` is the protected
   * text the engine was sent; the answer is restored before the runner sees it.
   */
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
  const { name = "pseudo", mode = "text", translation = (text, request) => `${request.targetLanguage}: ${text}`, during } = options;
  const limits: EngineLimits = { maxSegments: 50, maxCharacters: 50_000, ...options.limits };
  const requests: EngineRequest[] = [];
  const texts: string[] = [];
  return {
    name,
    origin: "mt",
    limits,
    supports: () => true,
    requests,
    texts,
    translate: (request) =>
      runPipeline(request, {
        engine: "The fake engine",
        mode,
        limits,
        measure: codePointLength,
        send: async (batch) => {
          // What goes over the wire: the runner's request with the segments of this batch, as protected.
          const sent: EngineRequest = { ...request, segments: batch.map((item) => ({ ...item.segment, text: item.text })) };
          requests.push(sent);
          texts.push(...sent.segments.map((s) => s.text));
          // No await without a hook: a zero-latency engine answers without yielding to anything else.
          if (during) await during(sent, requests.length);
          return sent.segments.map((s) => translation(s.text, sent));
        },
      }),
  };
}
