import type { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { EXAMPLES } from "../api/examples";
import { ONCALL_EXAMPLES } from "../api/oncall.schemas";
import { BillingErrorOut, ErrorOut, StorageFullOut } from "../api/schemas";
import type { App } from "../context";
import { siteStub } from "../site/stub";

const json = <T extends z.ZodType>(schema: T, description: string, example?: unknown) => ({
  content: { "application/json": { schema, ...(example === undefined ? {} : { example }) } },
  description,
});

// ---------------------------------------------------------------- documented error answers
// Every operation lists each error it can answer. `errors` is what every authenticated
// operation with inputs can give; add `notFoundResponse`, `billingErrors` and `bodyErrors`
// where they apply. test/api/openapi.test.ts checks the document for these rules.

const retryAfter = {
  "Retry-After": { description: "Seconds to wait before the next request.", schema: { type: "integer" as const, minimum: 1 }, required: true },
};
const wwwAuthenticate = {
  "WWW-Authenticate": { description: 'The authentication scheme: `Bearer realm="transync"`.', schema: { type: "string" as const }, required: true },
};

/** 401 with `WWW-Authenticate`. */
const unauthorizedResponse = (description: string) => ({ 401: { ...json(ErrorOut, description, EXAMPLES.unauthorized), headers: wwwAuthenticate } });

/** A 429 of an operation with its own limit, described there. */
export const limitedBy = (description: string) => ({ 429: { ...json(ErrorOut, description, EXAMPLES.rateLimited), headers: retryAfter } });

export const rateLimited = {
  429: {
    ...json(
      ErrorOut,
      "Too many requests: more than 600 in 60 seconds with this key, or more than 60 failed authentications in 60 seconds from this client address. Wait `Retry-After` seconds.",
      EXAMPLES.rateLimited,
    ),
    headers: retryAfter,
  },
};
const serverError = { 500: json(ErrorOut, "Something failed on the service's side; `detail` quotes the request id under which it is logged.", EXAMPLES.serverError) };
const validationError = { 422: json(ErrorOut, "Validation failure: `detail` names the field and the rule.", EXAMPLES.validation) };

/** The operator suspended the key's site (docs/decisions.md "Operating the service"). */
const suspendedResponse = {
  403: json(ErrorOut, "The site is suspended: `detail` says why (`site suspended: <reason>; contact support`). Retrying does not help.", ONCALL_EXAMPLES.siteSuspended),
};
/** The site object is past its throughput: wait `Retry-After` seconds. */
const overloadedResponse = {
  503: { ...json(ErrorOut, "The site is receiving more requests than it can serve: retry after `Retry-After` seconds.", ONCALL_EXAMPLES.overloaded), headers: retryAfter },
};

/** An authenticated operation without inputs. */
export const authErrors = {
  ...unauthorizedResponse("Missing, malformed, unknown or revoked API key."),
  ...suspendedResponse,
  ...rateLimited,
  ...serverError,
  ...overloadedResponse,
};
/** Pushes: the site's storage is at its limit (SITE_STORAGE_LIMIT_BYTES). */
export const storageErrors = {
  409: json(
    StorageFullOut,
    "The site's storage is full (`code` `site_storage_full`): delete units it no longer needs, or contact support. Retrying does not help.",
    ONCALL_EXAMPLES.storageFull,
  ),
};
/** An authenticated operation with inputs (query, path or body). */
export const errors = { ...authErrors, ...validationError };
export const notFoundResponse = { 404: json(ErrorOut, "Unknown id or key.", EXAMPLES.notFound) };
/** Operations that read a JSON body. */
export const bodyErrors = {
  413: json(ErrorOut, "The body is 10 MB (10,485,760 bytes) or more.", EXAMPLES.tooLarge),
  415: json(ErrorOut, "The body is not sent as JSON (`Content-Type: application/json`).", EXAMPLES.unsupportedMediaType),
};
export const billingErrors = {
  402: json(BillingErrorOut, "No subscription covers the site (`code` says why; `estimate` is null).", EXAMPLES.paymentRequired),
  409: json(BillingErrorOut, "The job needs confirmation: repeat the same request with `confirm: true` (`estimate` says what it costs).", EXAMPLES.confirmationRequired),
};
/** An operation of the admin API (ADMIN_TOKEN). */
export const adminErrors = {
  ...unauthorizedResponse("Missing or wrong admin token (or the admin API is disabled)."),
  ...rateLimited,
  ...serverError,
  ...validationError,
};

export const ok = <T extends z.ZodType>(schema: T, description = "Success", example?: unknown) => json(schema, description, example);
/** A JSON body; `required: false` for an operation that also accepts none (POST /v1/jobs: every field has a default). */
export const body = <T extends z.ZodType>(schema: T, example?: unknown, required = true) => ({
  body: { content: { "application/json": { schema, ...(example === undefined ? {} : { example }) } }, required },
});
export const bearer = [{ bearer: [] as string[] }];

/** The calling site's Durable Object: addressed by the site id from the key, never from the request. */
export function siteObject(c: Context<App>) {
  const site = c.get("site");
  return { stub: siteStub(c.env, site.id), site };
}
