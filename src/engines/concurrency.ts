// How many upstream requests run at once: a limit per engine (ENGINE_CONCURRENCY_<ENGINE>),
// and the platform's ceiling of 6 simultaneous open outgoing connections per invocation.
import type { EngineName } from "../limits";

/** docs/decisions.md "Constants" (engine concurrency): requests in flight per engine unless a var says otherwise. */
export const DEFAULT_ENGINE_CONCURRENCY: Record<EngineName, number> = {
  deepl: 4,
  google: 8,
  azure: 4,
  openai: 4,
  workers_ai: 4,
  pseudo: 8,
};

/** The most a var may ask for: more would only queue behind the platform's connection limit. */
export const MAX_ENGINE_CONCURRENCY = 32;

/** Open outgoing connections one Worker invocation may hold at once (the platform's limit). */
export const OPEN_CONNECTIONS = 6;

/** `ENGINE_CONCURRENCY_<ENGINE>` from the env (a whole number 1–32), else the default. */
export function engineConcurrency(name: EngineName, env: Record<string, unknown>): number {
  const raw = env[`ENGINE_CONCURRENCY_${name.toUpperCase()}`];
  const value = typeof raw === "number" ? raw : typeof raw === "string" && raw.trim() !== "" ? Number(raw) : NaN;
  if (!Number.isInteger(value) || value < 1) return DEFAULT_ENGINE_CONCURRENCY[name];
  return Math.min(value, MAX_ENGINE_CONCURRENCY);
}

/** A counting semaphore: at most `limit` holders at once, the others wait in arrival order. */
export class Semaphore {
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(readonly limit: number) {}

  get inUse(): number {
    return this.active;
  }

  async acquire(): Promise<() => void> {
    if (this.active >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.active++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      // The slot passes straight to the next waiter; `active` stays the same.
      if (next) next();
      else this.active--;
    };
  }

  async run<T>(fn: () => Promise<T>): Promise<T> {
    const release = await this.acquire();
    try {
      return await fn();
    } finally {
      release();
    }
  }
}
