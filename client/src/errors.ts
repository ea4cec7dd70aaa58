// TransyncError: what the helpers throw instead of answering `{error}`.
import type { components } from "./schema.js";

type EstimateOut = components["schemas"]["EstimateOut"];

/** The codes a 402 or 409 `BillingErrorOut` carries. */
export type TransyncErrorCode = components["schemas"]["BillingErrorOut"]["code"];

/**
 * An answer the service refused (4xx) or failed (5xx), after any retries: `status` is the HTTP
 * status, `detail` the service's plain-language explanation (fit to show to a user), `code` the
 * billing code of a 402 or 409 (`confirmation_required`, `subscription_inactive`, …) and
 * `estimate` the job's cost when a 409 asks for confirmation.
 */
export class TransyncError extends Error {
  override readonly name = "TransyncError";
  readonly status: number;
  readonly detail: string;
  readonly code: TransyncErrorCode | undefined;
  readonly estimate: EstimateOut | undefined;
  /** The error body as answered (`ErrorOut`, `BillingErrorOut`), or undefined when it was not JSON. */
  readonly body: unknown;

  constructor(status: number, detail: string, options: { code?: TransyncErrorCode; estimate?: EstimateOut | null; body?: unknown; cause?: unknown } = {}) {
    super(`${status}: ${detail}`, options.cause === undefined ? undefined : { cause: options.cause });
    this.status = status;
    this.detail = detail;
    this.code = options.code;
    this.estimate = options.estimate ?? undefined;
    this.body = options.body;
  }

  /** The error an answer carries: its `detail`, `code` and `estimate` when the body has them. */
  static from(response: Response, body: unknown): TransyncError {
    const fields = typeof body === "object" && body !== null ? (body as { detail?: unknown; code?: unknown; estimate?: unknown }) : {};
    const detail = typeof fields.detail === "string" && fields.detail ? fields.detail : `${response.statusText || "request failed"} (${response.url || "no URL"})`;
    return new TransyncError(response.status, detail, {
      code: typeof fields.code === "string" ? (fields.code as TransyncErrorCode) : undefined,
      estimate: typeof fields.estimate === "object" && fields.estimate !== null ? (fields.estimate as EstimateOut) : undefined,
      body,
    });
  }
}
