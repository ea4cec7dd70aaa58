// Retries for calls that are safe to repeat: 429 and 5xx answers (and network errors) are tried
// again, honouring Retry-After, else after an exponential back-off with jitter, a bounded number
// of times.
import { TransyncError } from "./errors.js";

export interface RetryOptions {
  /** Attempts in all, the first included (default 5; 1 turns retries off). */
  attempts?: number;
  /** Wait before the first retry without a Retry-After, in ms (default 1,000); each later one doubles. */
  baseDelayMs?: number;
  /** Longest back-off wait, in ms (default 30,000). A Retry-After is honoured up to `maxRetryAfterMs`. */
  maxDelayMs?: number;
  /** Longest Retry-After honoured, in ms (default 600,000); a longer one ends the retries with the error. */
  maxRetryAfterMs?: number;
  /** ± fraction applied to each back-off wait (default 0.25), so many clients spread out. */
  jitter?: number;
  /** The wait itself (default: a timer that `signal` can cut short). Tests pass one that records. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Called before each retry with the failure and the wait chosen. */
  onRetry?: (info: { attempt: number; delayMs: number; status: number | undefined; error: unknown }) => void;
}

/** What an openapi-fetch call answers. */
export interface FetchAnswer<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/** How a call may be repeated: `"all"` (429, 5xx and network errors) or `"429"` (only a 429: the service did nothing). */
export type Repeatable = "all" | "429";

const sleepFor = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(done, ms);
    function done() {
      signal?.removeEventListener("abort", abort);
      resolve();
    }
    function abort() {
      clearTimeout(timer);
      reject(signal?.reason);
    }
    signal?.addEventListener("abort", abort, { once: true });
  });

/** The wait a Retry-After asks for, in ms: delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function retryAfterMs(headers: Headers, now: number = Date.now()): number | undefined {
  const value = headers.get("retry-after")?.trim();
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Math.ceil(Number(value) * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Exponential back-off with jitter before retry number `retry` (1 = the first retry). */
export function backoffMs(retry: number, options: RetryOptions = {}, random: () => number = Math.random): number {
  const { baseDelayMs = 1_000, maxDelayMs = 30_000, jitter = 0.25 } = options;
  const raw = Math.min(maxDelayMs, baseDelayMs * 2 ** (retry - 1));
  return Math.max(0, Math.round(raw * (1 + jitter * (2 * random() - 1))));
}

/**
 * Runs an openapi-fetch call until it succeeds and answers its data; a refused or failed answer
 * becomes a TransyncError. `call` is invoked again for each attempt (a fresh request each time).
 */
export async function send<T>(call: () => Promise<FetchAnswer<T>>, repeatable: Repeatable, options: RetryOptions = {}, signal?: AbortSignal): Promise<T> {
  const { attempts = 5, maxRetryAfterMs = 600_000, sleep = sleepFor, onRetry } = options;
  for (let attempt = 1; ; attempt++) {
    signal?.throwIfAborted();
    let answer: FetchAnswer<T> | undefined;
    let thrown: unknown;
    try {
      answer = await call();
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      thrown = error;
    }
    if (answer?.response.ok) return answer.data as T;
    const status = answer?.response.status;
    const failure = answer ? TransyncError.from(answer.response, answer.error) : thrown;
    const again = status === 429 || (repeatable === "all" && (status === undefined || status >= 500));
    if (!again || attempt >= attempts) throw failure;
    const asked = answer ? retryAfterMs(answer.response.headers) : undefined;
    if (asked !== undefined && asked > maxRetryAfterMs) throw failure;
    const delayMs = asked ?? backoffMs(attempt, options);
    onRetry?.({ attempt, delayMs, status, error: failure });
    await sleep(delayMs, signal);
  }
}
