import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { BillingErrorOut, ErrorOut } from "../api/schemas";
import type { App } from "../context";
import { unwrapRpc } from "../errors";
import type { SiteObject } from "../site/object";

const json = <T extends z.ZodType>(schema: T, description: string) => ({ content: { "application/json": { schema } }, description });

/** 429: over the per-key limit (600 requests a minute) or too many failed authentications from the address (60 a minute). */
export const rateLimited = {
  429: {
    ...json(ErrorOut, "Rate limited: over 600 requests a minute with this key, or over 60 failed authentications a minute from this address"),
    headers: { "Retry-After": { description: "Seconds to wait before retrying", schema: { type: "integer" as const, example: 60 } } },
  },
};

export const errors = {
  401: json(ErrorOut, "Missing, malformed, unknown or revoked API key"),
  422: json(ErrorOut, "Validation failure; `detail` names the field and the rule"),
  ...rateLimited,
};
export const notFoundResponse = { 404: json(ErrorOut, "Unknown id or key") };
export const billingErrors = {
  402: json(BillingErrorOut, "No subscription covers the site"),
  409: json(BillingErrorOut, "The job needs confirmation: repeat with confirm true"),
};

export const ok = <T extends z.ZodType>(schema: T, description = "Success") => json(schema, description);
export const body = <T extends z.ZodType>(schema: T) => ({ body: { content: { "application/json": { schema } }, required: true } });
export const bearer = [{ bearer: [] as string[] }];

/**
 * The site object's RPC methods as plain async functions. Every method returns plain data, so
 * the stub's structured-clone answers have exactly these types (and the compiler is spared the
 * deep RPC mapping types).
 */
type SiteMethods = { [K in keyof SiteObject]: SiteObject[K] extends (...args: infer A) => Promise<infer R> ? (...args: A) => Promise<R> : never };
export type SiteApi = Omit<SiteMethods, "alarm" | "fetch" | "webSocketMessage" | "webSocketClose" | "webSocketError" | "store" | "ctx" | "env">;

export function siteStub(env: Env, siteId: number): SiteApi {
  const stub = env.SITE.getByName(String(siteId)) as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
  return new Proxy({} as SiteApi, {
    get: (_target, method: string) => async (...args: unknown[]) => unwrapRpc(await stub[method](...args)),
  });
}

/** The calling site's Durable Object: addressed by the site id from the key, never from the request. */
export function siteObject(c: Context<App>) {
  const site = c.get("site");
  return { stub: siteStub(c.env, site.id), site };
}
