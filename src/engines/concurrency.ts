// How many upstream requests run at once: a limit per engine (its entry's default unless
// ENGINE_CONCURRENCY_<ENGINE> says otherwise; engineConcurrency() in registry.ts), and the
// platform's ceiling of 6 simultaneous open outgoing connections per invocation.

/** The most a var may ask for: more would only queue behind the platform's connection limit. */
export const MAX_ENGINE_CONCURRENCY = 32;

/** Open outgoing connections one Worker invocation may hold at once (the platform's limit). */
export const OPEN_CONNECTIONS = 6;

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
