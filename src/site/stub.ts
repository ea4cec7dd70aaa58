/**
 * The Worker's side of a site's Durable Object: its RPC methods as plain async functions.
 * Every method returns plain data, so the stub's structured-clone answers have exactly these
 * types (and the compiler is spared the deep RPC mapping types); a domain error the object
 * answered as a tagged value is thrown again as ApiError.
 *
 * Each call goes through the object's `invoke` with the caller's log context (the request id,
 * the site): what the object logs while serving it carries the same request id.
 */
import { ApiError, unwrapRpc } from "../errors";
import { logContext } from "../obs/log";
import type { SiteObject } from "./object";

type SiteMethods = { [K in keyof SiteObject]: SiteObject[K] extends (...args: infer A) => Promise<infer R> ? (...args: A) => Promise<R> : never };
export type SiteApi = Omit<SiteMethods, "invoke" | "alarm" | "fetch" | "webSocketMessage" | "webSocketClose" | "webSocketError" | "store" | "ctx" | "env">;

export function siteStub(env: Env, siteId: number): SiteApi {
  const stub = env.SITE.getByName(String(siteId));
  return new Proxy({} as SiteApi, {
    get:
      (_target, method: string) =>
      async (...args: unknown[]) =>
        unwrapRpc(await overloadAware(() => stub.invoke(logContext(), method, args))),
  });
}

/** Seconds a caller waits after an overloaded object (REFERENCE: never retry those at once). */
export const OVERLOADED_RETRY_AFTER_SECONDS = 5;

/**
 * A site object past its throughput (the runtime's errors with `.overloaded`) is answered 503
 * with Retry-After, not 500: the connector's next attempt, a few seconds later, is served.
 */
async function overloadAware<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (typeof err === "object" && err !== null && (err as { overloaded?: unknown }).overloaded === true)
      throw new ApiError(503, `This site is receiving more requests than it can serve: retry in ${OVERLOADED_RETRY_AFTER_SECONDS} seconds.`, undefined, {
        "Retry-After": String(OVERLOADED_RETRY_AFTER_SECONDS),
      });
    throw err;
  }
}
