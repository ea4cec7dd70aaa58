/**
 * Signing in to the dashboard: the session cookie, the signed-in person on every request,
 * and the sign-in rate limit. Passwords, sessions and invitations themselves live in
 * `control/` (passwords.control.ts, sessions.control.ts, people.control.ts), shared with the admin API.
 *
 * Cookie: `__Host-transync_session`, HttpOnly, Secure, SameSite=Lax, Path=/. Local http on
 * 127.0.0.1 / localhost cannot keep a Secure cookie, so there (only) the cookie drops Secure
 * and with it the `__Host-` prefix, which requires Secure.
 */
import type { Context, MiddlewareHandler } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import type { App } from "../context";
import { controlDb } from "../control/db";
import { clientNetwork } from "../control/lockout.control";
import { SESSION_DAYS, type SessionUser, sessionUser } from "../control/sessions.control";

export interface DashApp {
  Bindings: Env;
  Variables: App["Variables"] & {
    user: SessionUser | null;
    /** The cookie's session token (to end it on sign-out or keep it on a password change). */
    sessionToken: string | null;
  };
}
export type DashContext = Context<DashApp>;

export function isLocalHttp(url: URL) {
  return url.protocol === "http:" && ["127.0.0.1", "localhost", "[::1]"].includes(url.hostname);
}

export function sessionCookieName(c: Context) {
  return isLocalHttp(new URL(c.req.url)) ? "transync_session" : "__Host-transync_session";
}

export function setSessionCookie(c: Context, token: string) {
  const local = isLocalHttp(new URL(c.req.url));
  setCookie(c, sessionCookieName(c), token, {
    httpOnly: true,
    secure: !local,
    sameSite: "Lax",
    path: "/",
    maxAge: SESSION_DAYS * 86_400,
  });
}

export function clearSessionCookie(c: Context) {
  const local = isLocalHttp(new URL(c.req.url));
  deleteCookie(c, sessionCookieName(c), { path: "/", secure: !local, httpOnly: true, sameSite: "Lax" });
}

/** Sets `user` (or null) from the session cookie; a session that is used slides forward. */
export const loadUser: MiddlewareHandler<DashApp> = async (c, next) => {
  const token = getCookie(c, sessionCookieName(c)) ?? null;
  const user = token ? await sessionUser(controlDb(c.env.DB), token) : null;
  c.set("user", user);
  c.set("sessionToken", user ? token : null);
  if (token && !user) clearSessionCookie(c);
  await next();
};

/**
 * The client's network as the limits and the password budget count it: its IPv4 address, or its
 * IPv6 address's /64 (one subscriber's usual allocation, which would otherwise give one client
 * 2^64 fresh budgets). control/lockout.control.ts `clientNetwork`.
 */
export const clientIp = (c: DashContext) => clientNetwork(c.req.header("cf-connecting-ip") ?? "unknown");

/** Over SIGNIN_LIMITER (10 a minute) for any of the keys (sign-in, codes, password reset, sign-up): the seconds to wait, else null. */
export async function limited(c: DashContext, keys: string[]): Promise<number | null> {
  const results = await Promise.all(keys.map((key) => c.env.SIGNIN_LIMITER.limit({ key })));
  return results.every((r) => r.success) ? null : 60;
}
