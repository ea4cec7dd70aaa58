// Reading an engine's configuration from the Worker's vars and secrets.
import { EngineError } from "./types";

/** An engine's settings, or the plain-language reason it cannot run (shown as not_configured). */
export type Configured<T> = { ok: true; config: T } | { ok: false; message: string };

/** A secret or var that is set to something other than whitespace. */
export function present(value: string | undefined): value is string {
  return typeof value === "string" && value.trim() !== "";
}

/** The config, or throws EngineError("not_configured") with the reason. */
export function requireConfig<T>(configured: Configured<T>): T {
  if (!configured.ok) throw new EngineError("not_configured", configured.message);
  return configured.config;
}

/** EngineError("unsupported_language") for a target the engine does not translate into. */
export function unsupportedTarget(engine: string, code: string): EngineError {
  return new EngineError("unsupported_language", `${engine} does not translate into "${code}"`);
}

/** EngineError("unsupported_language") for a source language the engine does not translate from. */
export function unsupportedSource(engine: string, code: string): EngineError {
  return new EngineError("unsupported_language", `${engine} does not translate from "${code}"`);
}
