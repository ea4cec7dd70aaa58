/**
 * Signing in and out, and the home page (the person's organizations and sites). Signing in is
 * the password, then (when two-factor is on) a code: between the two steps the browser holds
 * only a 10-minute step token (an HttpOnly cookie, hashed in D1) that a code completes; the
 * session is made only then. Passwords and codes are both limited by SIGNIN_LIMITER (10 a
 * minute per client network, and per person for codes), and by the failure budgets
 * (control/lockout.control.ts: 10 wrong passwords in a row pause that network's password step for the
 * account, 10 wrong codes the account's code step). No limit counts per email alone: anyone
 * could spend it and keep the owner out. An address not verified yet cannot sign in: the answer
 * is the wrong-password one.
 */
import { Hono } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { ApiError } from "../errors";
import { mailBase } from "../links";
import { completeSignIn, homeOf, signIn, signOut } from "../ops/sessions.ops";
import { secondStepOf } from "../ops/two-factor.ops";
import { clearSessionCookie, clientIp, type DashApp, type DashContext, isLocalHttp, limited, setSessionCookie } from "./auth";
import { form, str } from "./form";
import { SecondStepPage } from "./pages/accounts.page";
import { HomePage } from "./pages/home.page";
import { SignInPage, TooManyAttemptsPage } from "./pages/sign-in.page";
import { dashboardPath, dashboardTarget, withDone } from "./redirect";
import { afterAnswer, notice, render, viewer } from "./respond";

export const session = new Hono<DashApp>();

const stepCookie = (c: DashContext) => (isLocalHttp(new URL(c.req.url)) ? "transync_signin_step" : "__Host-transync_signin_step");
const cookieOptions = (c: DashContext) => ({ httpOnly: true, secure: !isLocalHttp(new URL(c.req.url)), sameSite: "Lax" as const, path: "/" });

function tooMany(c: DashContext, retry: number) {
  c.header("Retry-After", String(retry));
  return render(c, <TooManyAttemptsPage retryAfter={retry} />, 429);
}

session.get("/", async (c) => {
  const user = c.get("user");
  const signUpOpen = c.env.SIGNUP === "open";
  if (!user) return render(c, <SignInPage notice={notice(c)} next={dashboardPath(c.req.query("next") ?? "") ?? ""} signUp={signUpOpen} />);
  const { memberships, sites } = await homeOf(c.env, user.userId);
  return render(c, <HomePage viewer={viewer(c)} memberships={memberships} sites={sites} notice={notice(c)} signUpOpen={signUpOpen} />);
});

session.post("/sign-in", async (c) => {
  // The client's limit before the form is read.
  const ipRetry = await limited(c, [`ip:${clientIp(c)}`]);
  if (ipRetry !== null) return tooMany(c, ipRetry);
  const f = await form(c);
  const email = str(f, "email").slice(0, 254);
  const password = str(f, "password").slice(0, 1000);
  // Checked before anything is done (a control character is a 400; anything else not a dashboard path is ignored).
  const next = dashboardTarget(str(f, "next"), "next");
  const input = { email, password, next: next ?? "/dashboard", network: clientIp(c), userAgent: c.req.header("user-agent") };
  // A wrong password is counted after the answer (afterAnswer), so an account does not answer later than no account.
  const answer = await signIn(c.env, input, mailBase(c), c.var.clock(), (work) => void afterAnswer(c, work()));
  if (!answer)
    return render(
      c,
      <SignInPage email={email} next={next ?? ""} signUp={c.env.SIGNUP === "open"} error="That email and password do not match an account. Check both and try again." />,
      401,
    );
  if (answer.kind === "code") {
    setCookie(c, stepCookie(c), answer.step, { ...cookieOptions(c), maxAge: 600 });
    return c.redirect("/dashboard/sign-in/code", 303);
  }
  setSessionCookie(c, answer.token);
  return c.redirect(next ?? "/dashboard", 303);
});

session.get("/sign-in/code", async (c) => {
  const step = await secondStepOf(c.env, getCookie(c, stepCookie(c)) ?? "");
  if (!step) return c.redirect("/dashboard", 303);
  return render(c, <SecondStepPage />);
});

session.post("/sign-in/code", async (c) => {
  const token = getCookie(c, stepCookie(c)) ?? "";
  const step = await secondStepOf(c.env, token);
  if (!step) return c.redirect("/dashboard?done=sign-in-expired", 303);
  const retry = await limited(c, [`ip:${clientIp(c)}`, `code:user:${step.userId}`]);
  if (retry !== null) return tooMany(c, retry);
  let done: { token: string; next: string };
  try {
    done = await completeSignIn(c.env, token, str(await form(c), "code").slice(0, 40), mailBase(c), c.var.clock(), c.req.header("user-agent"));
  } catch (err) {
    if (err instanceof ApiError && err.status === 422) return render(c, <SecondStepPage error={err.detail} />, 422);
    throw err;
  }
  setSessionCookie(c, done.token);
  deleteCookie(c, stepCookie(c), cookieOptions(c));
  return c.redirect(dashboardPath(done.next) ?? "/dashboard", 303);
});

session.post("/sign-out", async (c) => {
  // `next`: an invitation for another email signs out to come back to its link.
  const next = dashboardTarget(str(await form(c), "next"), "next");
  const token = c.get("sessionToken");
  if (token) await signOut(c.env, token);
  clearSessionCookie(c);
  return c.redirect(withDone(next ?? "/dashboard", "signed-out"), 303);
});
