/** Signing in and out, and the home page (the person's organizations and sites). */
import { Hono } from "hono";
import { homeOf, signIn, signOut } from "../ops/sessions";
import { clearSessionCookie, type DashApp, setSessionCookie, signInThrottle } from "./auth";
import { form, str } from "./form";
import { HomePage } from "./pages/home";
import { SignInPage, TooManyAttemptsPage } from "./pages/sign-in";
import { dashboardPath, dashboardTarget, withDone } from "./redirect";
import { notice, render, viewer } from "./respond";

export const session = new Hono<DashApp>();

session.get("/", async (c) => {
  const user = c.get("user");
  if (!user) return render(c, <SignInPage notice={notice(c)} next={dashboardPath(c.req.query("next") ?? "") ?? ""} />);
  const { memberships, sites } = await homeOf(c.env, user.userId);
  return render(c, <HomePage viewer={viewer(c)} memberships={memberships} sites={sites} notice={notice(c)} />);
});

session.post("/sign-in", async (c) => {
  const f = await form(c);
  const email = str(f, "email").slice(0, 254);
  const password = str(f, "password").slice(0, 1000);
  const next = dashboardTarget(str(f, "next"), "next");
  const retry = await signInThrottle(c, email);
  if (retry !== null) {
    c.header("Retry-After", String(retry));
    return render(c, <TooManyAttemptsPage retryAfter={retry} />, 429);
  }
  const token = await signIn(c.env, email, password);
  if (!token) return render(c, <SignInPage email={email} next={next ?? ""} error="That email and password do not match an account. Check both and try again." />, 401);
  setSessionCookie(c, token);
  return c.redirect(next ?? "/dashboard", 303);
});

session.post("/sign-out", async (c) => {
  // `next`: an invitation for another email signs out to come back to its link.
  const next = dashboardTarget(str(await form(c), "next"), "next");
  const token = c.get("sessionToken");
  if (token) await signOut(c.env, token);
  clearSessionCookie(c);
  return c.redirect(withDone(next ?? "/dashboard", "signed-out"), 303);
});
