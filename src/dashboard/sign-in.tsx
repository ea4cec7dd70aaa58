/**
 * Signing in: the password, then (when two-factor is on) a code. Between the two steps the
 * browser holds only a 10-minute step token (an HttpOnly cookie, hashed in D1) that a code
 * completes; the session is made only then. Passwords and codes are both limited by
 * SIGNIN_LIMITER (10 a minute per client address, per email, and per person for codes).
 */
import { Hono } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { controlDb } from "../control/db";
import { checkCredentials } from "../control/people";
import { createSession } from "../control/sessions";
import { ApiError } from "../errors";
import { beginSecondStep, completeSecondStep, secondStepOf } from "../ops/two-factor";
import { isLocalHttp, setSessionCookie, signInThrottle, type DashApp, type DashContext } from "./auth";
import { clientIp, form, limited, render, str } from "./kit";
import { dashboardPath, dashboardTarget } from "./redirect";
import { SecondStepPage } from "./pages/accounts";
import { SignInPage, TooManyAttemptsPage } from "./pages/sign-in";

export const signIn = new Hono<DashApp>();

const stepCookie = (c: DashContext) => (isLocalHttp(new URL(c.req.url)) ? "transync_signin_step" : "__Host-transync_signin_step");
const cookieOptions = (c: DashContext) => ({ httpOnly: true, secure: !isLocalHttp(new URL(c.req.url)), sameSite: "Lax" as const, path: "/" });

function tooMany(c: DashContext, retry: number) {
  c.header("Retry-After", String(retry));
  return render(c, <TooManyAttemptsPage retryAfter={retry} />, 429);
}

signIn.post("/sign-in", async (c) => {
  const f = await form(c);
  const email = str(f, "email").slice(0, 254);
  const password = str(f, "password").slice(0, 1000);
  // Checked before anything is done (a control character is a 400; anything else not a dashboard path is ignored).
  const next = dashboardTarget(str(f, "next"), "next");
  const retry = await signInThrottle(c, email);
  if (retry !== null) return tooMany(c, retry);
  const db = controlDb(c.env.DB);
  const user = email && password ? await checkCredentials(db, email, password) : null;
  if (!user) return render(c, <SignInPage email={email} next={next ?? ""} signUp={c.env.SIGNUP === "open"} error="That email and password do not match an account. Check both and try again." />, 401);
  if (user.totpSecret) {
    const step = await beginSecondStep(c.env, user.id, next ?? "/dashboard");
    setCookie(c, stepCookie(c), step, { ...cookieOptions(c), maxAge: 600 });
    return c.redirect("/dashboard/sign-in/code", 303);
  }
  setSessionCookie(c, await createSession(db, user.id, new Date(), c.req.header("user-agent")));
  return c.redirect(next ?? "/dashboard", 303);
});

signIn.get("/sign-in/code", async (c) => {
  const step = await secondStepOf(c.env, getCookie(c, stepCookie(c)) ?? "");
  if (!step) return c.redirect("/dashboard", 303);
  return render(c, <SecondStepPage />);
});

signIn.post("/sign-in/code", async (c) => {
  const token = getCookie(c, stepCookie(c)) ?? "";
  const step = await secondStepOf(c.env, token);
  if (!step) return c.redirect("/dashboard?done=sign-in-expired", 303);
  const retry = await limited(c, [`ip:${clientIp(c)}`, `code:user:${step.userId}`]);
  if (retry !== null) return tooMany(c, retry);
  let done;
  try {
    done = await completeSecondStep(c.env, token, str(await form(c), "code").slice(0, 40));
  } catch (err) {
    if (err instanceof ApiError && err.status === 422) return render(c, <SecondStepPage error={err.detail} />, 422);
    throw err;
  }
  setSessionCookie(c, await createSession(controlDb(c.env.DB), done.userId, new Date(), c.req.header("user-agent")));
  deleteCookie(c, stepCookie(c), cookieOptions(c));
  return c.redirect(dashboardPath(done.next) ?? "/dashboard", 303);
});
