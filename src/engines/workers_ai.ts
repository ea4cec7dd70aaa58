// Workers AI `@cf/meta/m2m100-1.2b` through the AI binding: one text per call.
import { codePointLength } from "./batch";
import { type Configured, requireConfig, unsupportedSource, unsupportedTarget } from "./config";
import type { EngineEntry } from "./entry";
import { type AttemptOutcome, redact, withRetries } from "./http";
import { lookupLanguage } from "./languages";
import { M2M100_LANGUAGES } from "./languages/workers_ai";
import { runPipeline } from "./pipeline";
import { type Engine, type EngineEnv, EngineError, type EngineLimits, type EngineOptions, type EngineRequest } from "./types";

export const WORKERS_AI_MODEL = "@cf/meta/m2m100-1.2b";

/** Calls in flight at once: the model allows about 720 requests a minute per account. */
export const WORKERS_AI_CONCURRENCY = 4;

/**
 * One text per call, bounded by the model's context: m2m100-1.2b reads about 1,024 tokens,
 * and a token is 1–4 characters depending on the script, so a text is sent in pieces of at
 * most 1,000 characters (split at paragraphs, then sentences; see split.ts).
 */
export const WORKERS_AI_LIMITS: EngineLimits = { maxSegments: 1, maxCharacters: 1_000 };

/** The M2M-100 code for a site language, or undefined. */
export function m2m100Language(code: string): string | undefined {
  return lookupLanguage(M2M100_LANGUAGES, code);
}

export function readWorkersAiConfig(env: EngineEnv): Configured<Ai> {
  if (!env.AI || typeof env.AI.run !== "function") {
    return {
      ok: false,
      message: "Workers AI is not configured: the AI binding is missing (it is unavailable under `wrangler dev --local`).",
    };
  }
  return { ok: true, config: env.AI };
}

/**
 * Workers AI errors carry an internal code in their message (see its error table):
 * 3036 daily allocation used up → quota; 3040 out of capacity, 3007/3008 timeouts and
 * unrecognised failures → retry; 3006 too large and 400-class input errors → rejected.
 */
export function classifyAiError(error: unknown): AttemptOutcome<never> {
  const raw = error instanceof Error ? error.message : String(error);
  const message = redact(raw.replace(/\s+/g, " ").slice(0, 200), []);
  if (/\b3036\b|daily free allocation|neurons/i.test(raw)) {
    return { ok: false, retry: false, error: new EngineError("quota", "Workers AI quota exceeded: the account's daily allocation is used up") };
  }
  if (/\b(3006|5007|3042|3003|5004|3041|5018|3023)\b|too large|no such model|invalid/i.test(raw)) {
    return { ok: false, retry: false, error: new EngineError("rejected", `Workers AI rejected the request (${message})`) };
  }
  return { ok: false, retry: true, error: new EngineError("unavailable", `Workers AI is unavailable (${message})`) };
}

export function createWorkersAiEngine(env: EngineEnv, options: EngineOptions = {}): Engine {
  const configured = readWorkersAiConfig(env);
  return {
    name: "workers_ai",
    origin: "mt",
    limits: WORKERS_AI_LIMITS,
    supports: (targetLanguage) => m2m100Language(targetLanguage) !== undefined,
    async translate(request: EngineRequest): Promise<string[]> {
      const ai = requireConfig(configured);
      const target_lang = m2m100Language(request.targetLanguage);
      if (!target_lang) throw unsupportedTarget("Workers AI", request.targetLanguage);
      const source_lang = m2m100Language(request.sourceLanguage);
      if (!source_lang) throw unsupportedSource("Workers AI", request.sourceLanguage);

      return runPipeline(request, {
        engine: "Workers AI",
        // The model knows no markup: tags and placeholders travel as opaque tokens.
        mode: "text",
        limits: WORKERS_AI_LIMITS,
        measure: codePointLength,
        concurrency: WORKERS_AI_CONCURRENCY,
        send: async (batch) =>
          Promise.all(
            batch.map((item) =>
              withRetries<string>(
                async () => {
                  let answer: unknown;
                  if (request.meter) request.meter.requests++;
                  try {
                    answer = await ai.run(WORKERS_AI_MODEL, { text: item.text, source_lang, target_lang });
                  } catch (error) {
                    return classifyAiError(error);
                  }
                  const text = (answer as { translated_text?: unknown } | null)?.translated_text;
                  if (typeof text !== "string") {
                    return { ok: false, retry: false, error: new EngineError("bad_response", "Workers AI answered without translated_text") };
                  }
                  return { ok: true, value: text };
                },
                undefined,
                options.sleep,
              ),
            ),
          ),
      });
    },
  };
}

declare module "./types" {
  /** What Workers AI reads from the Worker's vars and secrets. */
  interface EngineEnv {
    AI?: Ai;
  }
}

/** The engine's entry in the registry (registry.ts). */
export const WORKERS_AI: EngineEntry<"workers_ai"> = {
  name: "workers_ai",
  label: "Workers AI (m2m100)",
  concurrency: WORKERS_AI_CONCURRENCY,
  create: createWorkersAiEngine,
  configuration: readWorkersAiConfig,
};
