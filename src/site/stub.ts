/**
 * The Worker's side of a site's Durable Object: its RPC methods as plain async functions.
 * Every method returns plain data, so the stub's structured-clone answers have exactly these
 * types (and the compiler is spared the deep RPC mapping types); a domain error the object
 * answered as a tagged value is thrown again as ApiError.
 */
import { unwrapRpc } from "../errors";
import type { SiteObject } from "./object";

type SiteMethods = { [K in keyof SiteObject]: SiteObject[K] extends (...args: infer A) => Promise<infer R> ? (...args: A) => Promise<R> : never };
export type SiteApi = Omit<SiteMethods, "alarm" | "fetch" | "webSocketMessage" | "webSocketClose" | "webSocketError" | "store" | "ctx" | "env">;

export function siteStub(env: Env, siteId: number): SiteApi {
  const stub = env.SITE.getByName(String(siteId)) as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
  return new Proxy({} as SiteApi, {
    get:
      (_target, method: string) =>
      async (...args: unknown[]) =>
        unwrapRpc(await stub[method](...args)),
  });
}
