// An engine's entry in the registry (registry.ts): what the rest of the service knows of it.
import type { Configured } from "./config";
import type { Engine, EngineEnv, EngineOptions } from "./types";

/**
 * Each engine's file exports one; `registry.ts` lists them. The engine names the API and the
 * dashboard accept (ENGINES), the labels, the concurrency defaults and the construction all
 * derive from these entries.
 */
export interface EngineEntry<N extends string = string> {
  name: N;
  /** How the dashboard names the engine (a site's settings). */
  label: string;
  /** Requests in flight at once per site object unless ENGINE_CONCURRENCY_<NAME> says otherwise (documented once: docs/decisions.md "Constants"). */
  concurrency: number;
  /**
   * The engine. Missing credentials still build one: `supports()` answers from its language
   * table and `translate()` throws EngineError("not_configured") before any request.
   */
  create(env: EngineEnv, options: EngineOptions): Engine;
  /** Whether the env has what the engine needs; when not, the message `translate()` would throw. */
  configuration(env: EngineEnv): Configured<unknown>;
}
