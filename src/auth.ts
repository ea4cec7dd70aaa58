/**
 * The order of work on a request (docs/decisions.md "Requests: keys, limits, hostile input, errors"): a declared
 * body of 10 MB or more is refused at once; then the caller is authenticated (API key or
 * admin token) and rate-limited; only then is a body read.
 *
 * Rate limits are Workers Rate Limiting bindings: per API key (KEY_LIMITER, 600 / 60 s) and
 * per client IP for failed authentications (AUTH_FAILURE_LIMITER, 60 / 60 s). Over a limit
 * the answer is 429 with Retry-After. There is no general per-IP limit: many sites'
 * connectors can share a host's address, and volumetric floods are the WAF's job.
 */

import { timingSafeEqual } from "node:crypto";
import type { Context, Next } from "hono";
import type { App } from "./context";
import { controlDb } from "./control/db";
import { authenticate, isWellFormedKey, KEY_PREFIX } from "./control/keys.control";
import { ApiError, tooManyRequests, unauthorized } from "./errors";
import { LIMITS } from "./limits";
import { addLogContext, log } from "./obs/log";
import { type Actor, OPERATOR } from "./ops/actor";

/** The window of both limiters (wrangler.toml `period`): the most a client waits. */
export const RATE_LIMIT_PERIOD_SECONDS = 60;
/** Shorter admin tokens disable the admin API. */
export const ADMIN_TOKEN_MIN_LENGTH = 32;

const PUBLIC_PATHS = new Set(["/v1/health", "/v1/openapi.json", "/v1/docs"]);

/** `Content-Length` of 10 MB or more: 413 before anything else is done. Bodies without one are counted as they are read (bodyLimit). */
export async function declaredBodyLimit(c: Context<App>, next: Next) {
  const declared = c.req.header("content-length");
  if (declared !== undefined && /^\d+$/.test(declared.trim()) && Number(declared) >= LIMITS.bodyBytes)
    throw new ApiError(413, `The request body is too large: the limit is ${LIMITS.bodyBytes} bytes (10 MB).`);
  await next();
}

const clientIp = (c: Context<App>) => c.req.header("cf-connecting-ip") ?? "unknown";

/**
 * Clients (IPs) told 429 for failed authentications, until when. While blocked, a key is
 * still checked (its checksum, then the cache or D1) and a live key is served: many sites'
 * connectors share one hosting address, and one misconfigured site must not lock out its
 * neighbours. Only a key that fails is refused, with 429 and without counting it again.
 * Keys guessed with valid checksums reach D1 at most once per 5 s each (the negative cache
 * in src/control/keys.control.ts); a missing, malformed or forged key never does.
 */
const blockedUntil = new Map<string, number>();

async function failedAuthentication(c: Context<App>, detail: string, now = Date.now()): Promise<never> {
  const ip = clientIp(c);
  const { success } = await c.env.AUTH_FAILURE_LIMITER.limit({ key: ip });
  if (!success) {
    if (blockedUntil.size > 10_000) blockedUntil.clear();
    blockedUntil.set(ip, now + RATE_LIMIT_PERIOD_SECONDS * 1000);
    throw tooManyRequests(`Too many failed authentications from this address: retry in ${RATE_LIMIT_PERIOD_SECONDS} seconds.`, RATE_LIMIT_PERIOD_SECONDS);
  }
  throw unauthorized(detail);
}

const bearerToken = (header: string | undefined) => (header === undefined ? undefined : /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1]);

/**
 * The public API: a site key (`tsk_…`), then the per-key limit. `now` is the clock of the
 * key cache and the address block (tests pass their own).
 */
export const apiKeyAuth = (now: () => number = Date.now) =>
  async function apiKeyAuth(c: Context<App>, next: Next) {
    if (PUBLIC_PATHS.has(c.req.path)) return next();
    const at = now();
    const header = c.req.header("authorization");
    if (!header) return failedAuthentication(c, "Missing API key: send Authorization: Bearer <key>.", at);
    const key = bearerToken(header);
    if (!key) return failedAuthentication(c, "Malformed Authorization header: expected Bearer <key>.", at);
    // A well-formed key's prefix is logged whatever the answer: a revoked or leaked key's refused
    // requests say it is still being tried (the runbook's "Leaked key"). Nothing of another string.
    if (isWellFormedKey(key)) c.set("keyPrefix", key.slice(0, KEY_PREFIX.length + 6));
    const auth = await authenticate(controlDb(c.env.DB), key, at);
    if (!auth) {
      if ((blockedUntil.get(clientIp(c)) ?? 0) > at)
        throw tooManyRequests(`Too many failed authentications from this address: retry in ${RATE_LIMIT_PERIOD_SECONDS} seconds.`, RATE_LIMIT_PERIOD_SECONDS);
      return failedAuthentication(c, "The API key is not valid (unknown, malformed or revoked).", at);
    }
    const { success } = await c.env.KEY_LIMITER.limit({ key: auth.limitKey });
    if (!success)
      throw tooManyRequests(
        `Too many requests with this API key: the limit is 600 a minute. Retry in ${RATE_LIMIT_PERIOD_SECONDS} seconds, and send batches one after another.`,
        RATE_LIMIT_PERIOD_SECONDS,
      );
    if (auth.touch) c.executionCtx.waitUntil(auth.touch);
    c.set("site", auth.site);
    c.set("keyId", auth.keyId);
    addLogContext({ site_id: auth.site.id, org_id: auth.site.organizationId });
    if (auth.site.suspended) throw new ApiError(403, `site suspended: ${auth.site.suspended}; contact support`);
    await next();
  };

const digest = async (text: string) => new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
let warnedDisabled = false;

/** ADMIN_TOKENS parsed: JSON `{name: sha256 hex of that operator's token}`; names of letters, digits, `.`, `_`, `-`. Entries of another shape are ignored (and logged once). */
let parsedTokens: { raw: string; tokens: [string, Uint8Array][] } | null = null;
function namedTokens(raw: string | undefined): [string, Uint8Array][] {
  if (!raw) return [];
  if (parsedTokens?.raw === raw) return parsedTokens.tokens;
  const tokens: [string, Uint8Array][] = [];
  let bad = 0;
  try {
    for (const [name, hex] of Object.entries(JSON.parse(raw) as Record<string, unknown>)) {
      if (/^[\w.-]{1,64}$/.test(name) && typeof hex === "string" && /^[0-9a-f]{64}$/i.test(hex))
        tokens.push([name, Uint8Array.from(hex.match(/../g)!.map((h) => parseInt(h, 16)))]);
      else bad++;
    }
  } catch {
    bad++;
  }
  if (bad) log("error", "config.admin_tokens_invalid", { ignored: bad });
  parsedTokens = { raw, tokens };
  return tokens;
}

/**
 * The admin API: a named operator's token (ADMIN_TOKENS, JSON `{name: sha256 hex}`; the audit
 * names them `admin:<name>`) or the single ADMIN_TOKEN secret (`admin`), compared as SHA-256
 * digests (equal length, constant time, whatever was sent). Without a named token, an ADMIN_TOKEN
 * unset or shorter than 32 characters disables the admin API.
 */
export async function adminAuth(c: Context<App>, next: Next) {
  const expected = c.env.ADMIN_TOKEN ?? "";
  const named = namedTokens(c.env.ADMIN_TOKENS);
  if (expected.length < ADMIN_TOKEN_MIN_LENGTH && !named.length) {
    if (!warnedDisabled) {
      warnedDisabled = true;
      log("warn", "admin.disabled", {
        detail: `The admin API is disabled: ADMIN_TOKEN is ${expected ? `only ${expected.length} characters` : "not set"}; it needs at least ${ADMIN_TOKEN_MIN_LENGTH}. Set it with \`wrangler secret put ADMIN_TOKEN\` (for example the output of \`openssl rand -base64 32\`).`,
      });
    }
    return failedAuthentication(c, "A valid admin token is required.");
  }
  const token = bearerToken(c.req.header("authorization")) ?? "";
  const sent = await digest(token);
  // Every named token is compared (no early exit), then the single one.
  let actor: Actor | null = null;
  for (const [name, hash] of named) if (timingSafeEqual(sent, hash) && !actor) actor = `admin:${name}`;
  if (expected.length >= ADMIN_TOKEN_MIN_LENGTH && timingSafeEqual(sent, await digest(expected)) && !actor) actor = OPERATOR;
  if (!actor) return failedAuthentication(c, "A valid admin token is required.");
  c.set("adminActor", actor);
  await next();
}
