// The one place that turns an engine name and the Worker's env into an Engine.
//
// Missing credentials: every engine still constructs, `supports()` still answers from the
// engine's static language list, and `translate()` throws EngineError("not_configured") with a
// message naming the secret or binding to set, before any request is made. Callers that want
// to report this up front (e.g. when a site enables an engine) ask `engineConfiguration()`.
import type { EngineName } from "../limits";
import { createAzureEngine, readAzureConfig } from "./azure";
import type { Configured } from "./config";
import { createDeepLEngine, readDeepLConfig } from "./deepl";
import { createGoogleEngine, readGoogleConfig } from "./google";
import { createOpenAiEngine, readOpenAiConfig } from "./openai";
import { createPseudoEngine, pseudoLatency } from "./pseudo";
import type { Engine, EngineEnv, EngineOptions } from "./types";
import { createWorkersAiEngine, readWorkersAiConfig } from "./workers_ai";

/** `options.sleep`: the wait between an engine's retries (the site object hands down its own; tests one that returns at once). */
export function createEngine(name: EngineName, env: EngineEnv, options: EngineOptions = {}): Engine {
  switch (name) {
    case "pseudo":
      return createPseudoEngine({ latencyMs: pseudoLatency(env.PSEUDO_LATENCY_MS) });
    case "deepl":
      return createDeepLEngine(env, options);
    case "google":
      return createGoogleEngine(env, options);
    case "azure":
      return createAzureEngine(env, options);
    case "workers_ai":
      return createWorkersAiEngine(env, options);
    case "openai":
      return createOpenAiEngine(env, options);
  }
}

/**
 * Whether the engine has what it needs to run; when not, `message` is the same text
 * translate() would throw as not_configured. The pseudo engine needs nothing.
 */
export function engineConfiguration(name: EngineName, env: EngineEnv): { configured: true } | { configured: false; message: string } {
  const result = readConfiguration(name, env);
  return result.ok ? { configured: true } : { configured: false, message: result.message };
}

function readConfiguration(name: EngineName, env: EngineEnv): Configured<unknown> {
  switch (name) {
    case "pseudo":
      return { ok: true, config: null };
    case "deepl":
      return readDeepLConfig(env);
    case "google":
      return readGoogleConfig(env);
    case "azure":
      return readAzureConfig(env);
    case "workers_ai":
      return readWorkersAiConfig(env);
    case "openai":
      return readOpenAiConfig(env);
  }
}
