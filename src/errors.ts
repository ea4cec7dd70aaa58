import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { log, redactError } from "./obs/log";

/** What the error path needs of a request: its id (the rest of the app's context is not its business). */
type WithRequestId = { Variables: { requestId: string } };

/**
 * A failure with an HTTP status and a plain-language `detail` meant for users. Anything else
 * thrown is a 500 whose internals are logged, never returned.
 */
export class ApiError extends Error {
  constructor(
    readonly status: ContentfulStatusCode,
    readonly detail: string,
    /** Extra fields for the body (BillingErrorOut's `code` and `estimate`). */
    readonly extra?: Record<string, unknown>,
    /** Response headers that belong to the answer (`Retry-After` on a 429). */
    readonly headers?: Record<string, string>,
  ) {
    super(detail);
    this.name = "ApiError";
  }
}

export const notFound = (what: string) => new ApiError(404, `${what} was not found.`);
export const unauthorized = (detail: string) => new ApiError(401, detail);
export const invalid = (detail: string) => new ApiError(422, detail);
/** Over a rate limit: 429 with the seconds after which a retry can succeed. */
export const tooManyRequests = (detail: string, retryAfterSeconds: number) =>
  new ApiError(429, detail, undefined, { "Retry-After": String(Math.max(1, Math.ceil(retryAfterSeconds))) });

/**
 * Domain errors do not cross the Durable Object RPC boundary as exceptions (they would lose
 * their class and be logged as uncaught): the object answers them as a tagged value and the
 * Worker's stub wrapper throws them again as ApiError.
 */
export interface RpcFailure {
  __apiError: { status: ContentfulStatusCode; detail: string; extra?: Record<string, unknown> };
}

export function toRpcFailure(err: unknown): RpcFailure {
  if (err instanceof ApiError) return { __apiError: { status: err.status, detail: err.detail, extra: err.extra } };
  throw err;
}

export function unwrapRpc<T>(value: T | RpcFailure): T {
  if (value && typeof value === "object" && "__apiError" in value) {
    const { status, detail, extra } = (value as RpcFailure).__apiError;
    throw new ApiError(status, detail, extra);
  }
  return value as T;
}

const STATUS_TEXT: Record<number, string> = {
  400: "The request is malformed.",
  401: "A valid API key is required.",
  404: "Not found.",
  405: "This method is not allowed on this path.",
  413: "The request body is too large.",
  429: "Too many requests: retry later.",
  415: "The request body must be JSON (Content-Type: application/json).",
};

export function errorBody<E extends WithRequestId>(c: Context<E>, status: ContentfulStatusCode, detail: string, extra?: Record<string, unknown>, headers?: Record<string, string>) {
  if (status === 401) c.header("WWW-Authenticate", 'Bearer realm="transync"');
  for (const [name, value] of Object.entries(headers ?? {})) c.header(name, value);
  return c.json({ detail, ...extra }, status);
}

/** The one error path: every error becomes an `ErrorOut` (or `BillingErrorOut`). */
export function renderError<E extends WithRequestId>(err: unknown, c: Context<E>) {
  if (err instanceof ApiError) return errorBody(c, err.status, err.detail, err.extra, err.headers);
  if (err instanceof HTTPException) {
    const status = err.status as ContentfulStatusCode;
    // Hono's validators answer malformed JSON with 400; the interface calls it a validation failure.
    if (status === 400 && /json/i.test(err.message)) return errorBody(c, 422, "body is not valid JSON");
    return errorBody(c, status, STATUS_TEXT[status] ?? (err.message || "The request could not be handled."));
  }
  if (err instanceof SyntaxError) return errorBody(c, 422, "body is not valid JSON");
  // Drivers quote bound parameters in their messages (a key's hash, customer text): redactError keeps them out of logs.
  log("error", "http.error", {
    request_id: c.get("requestId"),
    error: redactError(err, 2000),
    stack: err instanceof Error && err.stack ? redactError(err.stack, 4000) : undefined,
  });
  return errorBody(c, 500, `Something went wrong on our side. Quote request id ${c.get("requestId")} if you contact support.`);
}

/** Rewrites error responses produced outside `onError` (framework 4xx such as 415) into `ErrorOut`. */
export async function ensureErrorBody<E extends WithRequestId>(c: Context<E>, next: () => Promise<void>) {
  await next();
  const res = c.res;
  const type = res.headers.get("content-type") ?? "";
  // JSON is already an ErrorOut; HTML is the dashboard's own error page.
  if (res.status < 400 || type.includes("application/json") || type.includes("text/html")) return;
  const status = res.status as ContentfulStatusCode;
  c.res = undefined as unknown as Response; // let Hono build a fresh response
  c.res = errorBody(c, status, STATUS_TEXT[status] ?? "The request could not be handled.");
}
