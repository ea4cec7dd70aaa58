// The one place that turns an engine name and the Worker's env into an Engine.
//
// Missing credentials: every engine still constructs, `supports()` still answers from the
// engine's static language list, and `translate()` throws EngineError("not_configured") with a
// message naming the secret or binding to set, before any request is made. Callers that want
// to report this up front (e.g. when a site enables an engine) ask `engineConfiguration()`.
//
// Adding an engine: its file, which exports its EngineEntry, and its line in REGISTRY below.
// The engine list the API, its document and the control plane accept (ENGINES), the names'
// type, the dashboard's labels and the concurrency defaults all derive from the entries.
import { AZURE } from "./azure";
import { MAX_ENGINE_CONCURRENCY } from "./concurrency";
import { DEEPL } from "./deepl";
import type { EngineEntry } from "./entry";
import { GOOGLE } from "./google";
import { OPENAI } from "./openai";
import { PSEUDO } from "./pseudo";
import type { Engine, EngineEnv, EngineOptions } from "./types";
import { WORKERS_AI } from "./workers_ai";

/** Every engine's entry, by its name; the order is the order the API's document lists them in. */
export const REGISTRY = {
  pseudo: PSEUDO,
  deepl: DEEPL,
  google: GOOGLE,
  azure: AZURE,
  workers_ai: WORKERS_AI,
  openai: OPENAI,
} as const satisfies { readonly [N in string]: EngineEntry<N> };

/** An engine's name: one of the registry's keys. */
export type EngineName = keyof typeof REGISTRY;

/** Every engine's name, in the registry's order (what the API and the control plane accept); the compiler checks each entry's name is its key. */
export const ENGINES = Object.keys(REGISTRY satisfies { readonly [N in EngineName]: EngineEntry<N> }) as [EngineName, ...EngineName[]];

/** Whether `name` is an engine of the registry. */
export const isEngineName = (name: string): name is EngineName => Object.hasOwn(REGISTRY, name);

/** `options.sleep`: the wait between an engine's retries (the site object hands down its own; tests one that returns at once). */
export function createEngine(name: EngineName, env: EngineEnv, options: EngineOptions = {}): Engine {
  return REGISTRY[name].create(env, options);
}

/**
 * Whether the engine has what it needs to run; when not, `message` is the same text
 * translate() would throw as not_configured. The pseudo engine needs nothing.
 */
export function engineConfiguration(name: EngineName, env: EngineEnv): { configured: true } | { configured: false; message: string } {
  const result = REGISTRY[name].configuration(env);
  return result.ok ? { configured: true } : { configured: false, message: result.message };
}

/** How the dashboard names an engine; an unknown name as it is. */
export function engineLabel(name: string): string {
  return isEngineName(name) ? REGISTRY[name].label : name;
}

/** `ENGINE_CONCURRENCY_<ENGINE>` from the env (a whole number 1–32), else the engine's default (1 for a name outside the registry). */
export function engineConcurrency(name: string, env: Record<string, unknown>): number {
  const raw = env[`ENGINE_CONCURRENCY_${name.toUpperCase()}`];
  const value = typeof raw === "number" ? raw : typeof raw === "string" && raw.trim() !== "" ? Number(raw) : NaN;
  if (!Number.isInteger(value) || value < 1) return isEngineName(name) ? REGISTRY[name].concurrency : 1;
  return Math.min(value, MAX_ENGINE_CONCURRENCY);
}
