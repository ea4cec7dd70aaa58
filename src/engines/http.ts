// Outbound calls to translation engines: per-attempt timeout, retries with exponential
// backoff and jitter on 429/5xx/529 (honouring Retry-After), capped attempts and total
// waiting, and upstream errors turned into EngineError messages that never carry a credential.
import { OPEN_CONNECTIONS, Semaphore } from "./concurrency";
import { EngineError, type RequestMeter, type Sleep } from "./types";

/**
 * Outgoing connections in flight from this isolate. The platform allows 6 per invocation and
 * queues the rest; waiting here instead keeps a queued request's timeout from running.
 */
const connections = new Semaphore(OPEN_CONNECTIONS);

/** The real wait: production's sleep, and the default of every engine and upstream call. */
export const realSleep: Sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export interface RetryPolicy {
  /** Attempts in all, the first included. */
  maxAttempts: number;
  /** Wait before the first retry; later ones grow by `multiplier`. */
  baseDelayMs: number;
  multiplier: number;
  /** ± fraction applied to each computed wait, so retries from many sites spread out. */
  jitter: number;
  /** Longest single wait. A Retry-After asking for more ends the retries. */
  maxDelayMs: number;
  /** Most time spent waiting over all retries of one call (an alarm has 15 minutes of wall time in all). */
  maxTotalDelayMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxAttempts: 4,
  baseDelayMs: 1_000,
  multiplier: 2,
  jitter: 0.25,
  maxDelayMs: 30_000,
  maxTotalDelayMs: 60_000,
};

/** Default time one upstream attempt may take. */
export const DEFAULT_TIMEOUT_MS = 30_000;

/** Exponential backoff with jitter for the given retry (1 = first retry). */
export function backoffDelay(retry: number, policy: RetryPolicy, random: () => number = Math.random): number {
  const raw = policy.baseDelayMs * policy.multiplier ** (retry - 1);
  const jittered = raw * (1 + policy.jitter * (2 * random() - 1));
  return Math.round(Math.min(policy.maxDelayMs, Math.max(0, jittered)));
}

/**
 * The wait an upstream asked for, in ms: `retry-after-ms` (OpenAI, Azure), else `Retry-After`
 * as delta-seconds or an HTTP date. Undefined when absent or unreadable.
 */
export function parseRetryAfter(headers: Headers, now: number = Date.now()): number | undefined {
  const ms = headers.get("retry-after-ms");
  if (ms !== null && /^\s*\d+(\.\d+)?\s*$/.test(ms)) return Math.ceil(Number(ms));
  const value = headers.get("retry-after");
  if (value === null) return undefined;
  if (/^\s*\d+(\.\d+)?\s*$/.test(value)) return Math.ceil(Number(value) * 1000);
  const date = Date.parse(value);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

/** What one attempt came to. A failure says whether trying again may help. */
export type AttemptOutcome<T> = { ok: true; value: T } | { ok: false; error: EngineError; retry: boolean; retryAfterMs?: number };

/**
 * Runs `attempt` until it succeeds, fails for good, or the policy's attempts or total wait
 * run out; then throws the last error, noting how many attempts were made.
 */
export async function withRetries<T>(
  attempt: (attemptNumber: number) => Promise<AttemptOutcome<T>>,
  policy: RetryPolicy = DEFAULT_RETRY_POLICY,
  sleep: Sleep = realSleep,
): Promise<T> {
  let waited = 0;
  for (let n = 1; ; n++) {
    const outcome = await attempt(n);
    if (outcome.ok) return outcome.value;
    if (!outcome.retry) throw outcome.error;
    const giveUp = (why: string) => new EngineError(outcome.error.kind, `${outcome.error.message}; ${why}`);
    if (n >= policy.maxAttempts) throw giveUp(`gave up after ${n} attempts`);
    const delay = outcome.retryAfterMs ?? backoffDelay(n, policy);
    if (delay > policy.maxDelayMs) {
      throw giveUp(`asked to wait ${Math.ceil(delay / 1000)} s before retrying`);
    }
    if (waited + delay > policy.maxTotalDelayMs) throw giveUp(`gave up after ${n} attempts`);
    waited += delay;
    await sleep(delay);
  }
}

/** The engine's verdict on an error answer; undefined falls back to the default rules. */
export type Verdict = EngineError | "retry" | undefined;

export interface UpstreamCall {
  /** Name used in messages, e.g. "DeepL". */
  engine: string;
  url: string;
  init: RequestInit;
  /** Values that must never appear in a message (API keys, tokens). */
  secrets: readonly (string | undefined)[];
  timeoutMs?: number;
  policy?: RetryPolicy;
  /** Engine-specific reading of a non-2xx answer (e.g. DeepL 456 → quota). */
  classify?: (status: number, body: string, headers: Headers) => Verdict;
  /** Counts every attempt (the platform's subrequest limit counts retries too). */
  meter?: RequestMeter;
  /** The wait between retries (the engine's, see EngineOptions); the real one by default. */
  sleep?: Sleep;
}

/** Sends the request with retries; resolves with the first 2xx response, else throws EngineError. */
export async function callUpstream(call: UpstreamCall): Promise<Response> {
  const timeoutMs = call.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  return withRetries<Response>(
    async () => {
      let response: Response;
      let body = "";
      const release = await connections.acquire();
      if (call.meter) call.meter.requests++;
      // A timer we clear ourselves: AbortSignal.timeout() would keep the object alive until it fires.
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(new DOMException("timed out", "TimeoutError")), timeoutMs);
      try {
        response = await fetch(call.url, { ...call.init, signal: controller.signal });
        if (response.ok) return { ok: true, value: response };
        body = await response.text().catch(() => "");
      } catch (error) {
        const timedOut = error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError");
        const message = timedOut ? `${call.engine} did not answer within ${Math.round(timeoutMs / 1000)} s` : `${call.engine} could not be reached (network error)`;
        return { ok: false, retry: true, error: new EngineError("unavailable", message) };
      } finally {
        clearTimeout(timer);
        release();
      }

      const verdict = call.classify?.(response.status, body, response.headers);
      if (verdict instanceof EngineError) {
        return { ok: false, retry: false, error: safeError(verdict, call.secrets) };
      }
      const retryable = verdict === "retry" || isRetryableStatus(response.status);
      const error = safeError(describeFailure(call.engine, response.status, body), call.secrets);
      return { ok: false, retry: retryable, error, retryAfterMs: parseRetryAfter(response.headers) };
    },
    call.policy,
    call.sleep,
  );
}

/** Sends the request (see callUpstream) and parses the JSON answer; a body that is not JSON is bad_response. */
export async function callJson(call: UpstreamCall): Promise<unknown> {
  const response = await callUpstream(call);
  const text = await response.text();
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new EngineError("bad_response", `${call.engine} answered with a body that is not JSON`);
  }
}

/** 408, 425, 429 and every 5xx (DeepL's 529 included) may succeed later. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 425 || status === 429 || status >= 500;
}

/** The default plain-language error for a non-2xx answer. */
export function describeFailure(engine: string, status: number, body: string): EngineError {
  if (status === 429) return new EngineError("unavailable", `${engine} is rate-limiting requests (HTTP 429)`);
  if (isRetryableStatus(status)) {
    return new EngineError("unavailable", `${engine} is unavailable (HTTP ${status}${reasonSuffix(body)})`);
  }
  // Authentication failures never quote the upstream text: some services echo part of the key.
  if (status === 401 || status === 403) {
    return new EngineError("rejected", `${engine} refused the credentials (HTTP ${status})`);
  }
  if (status === 413) {
    return new EngineError("rejected", `${engine} refused the request as too large (HTTP 413)`);
  }
  return new EngineError("rejected", `${engine} rejected the request (HTTP ${status}${reasonSuffix(body)})`);
}

function reasonSuffix(body: string): string {
  const reason = upstreamReason(body);
  return reason ? `: ${reason}` : "";
}

/** A short reason from an error body (`message`, `error.message`, `error`, `detail` …), at most 200 characters. */
export function upstreamReason(body: string): string {
  let reason = "";
  try {
    const data = JSON.parse(body) as unknown;
    reason = findMessage(Array.isArray(data) ? data[0] : data) ?? "";
  } catch {
    // Not JSON: HTML error pages and the like carry nothing worth showing.
    reason = /^[^<{]{1,200}$/.test(body.trim()) ? body.trim() : "";
  }
  reason = reason.replace(/\s+/g, " ").trim();
  return reason.length > 200 ? `${reason.slice(0, 199)}…` : reason;
}

function findMessage(data: unknown): string | undefined {
  if (typeof data === "string") return data;
  if (!data || typeof data !== "object") return undefined;
  const record = data as Record<string, unknown>;
  for (const key of ["message", "error_description", "detail", "error", "errors"]) {
    const value = record[key];
    if (typeof value === "string" && value) return value;
    if (value && typeof value === "object") {
      const nested = findMessage(Array.isArray(value) ? value[0] : value);
      if (nested) return nested;
    }
  }
  return undefined;
}

/** Removes every secret (and any long token-like run) from an error message. */
export function redact(message: string, secrets: readonly (string | undefined)[]): string {
  let out = message;
  for (const secret of secrets) {
    if (secret && secret.length >= 4) out = out.split(secret).join("[redacted]");
  }
  // Keys, tokens and JWTs are long runs without spaces; prose is not.
  return out.replace(/[A-Za-z0-9_\-.:+/=*]{32,}/g, "[redacted]");
}

function safeError(error: EngineError, secrets: readonly (string | undefined)[]): EngineError {
  const message = redact(error.message, secrets);
  return message === error.message ? error : new EngineError(error.kind, message);
}

/** Parses a JSON error body, or undefined. */
export function parseJsonBody(body: string): unknown {
  try {
    return JSON.parse(body) as unknown;
  } catch {
    return undefined;
  }
}
