/**
 * Forgotten passwords: /dashboard/forgot asks for the address and answers the same page
 * whether or not it has an account (the look-up and the mail run after the answer);
 * /dashboard/reset/{token} sets the new password once, within the hour, and signs out
 * every session. Limited like sign-in: per client address and per address asked for.
 * /dashboard/unlock/{token}: the link mailed when sign-in paused after too many wrong tries.
 */
import { Hono } from "hono";
import { ApiError } from "../errors";
import { mailBase } from "../links";
import { LINK_WORDS, requestPasswordReset, resetLinkState, resetPassword } from "../ops/accounts";
import { unlockAccount, unlockLinkState } from "../ops/lockout";
import type { DashApp, DashContext } from "./auth";
import { clientIp, limited } from "./auth";
import { form, str } from "./form";
import { ForgotPage, ForgotSentPage, LinkGonePage, ResetPage, UnlockPage } from "./pages/accounts";
import { TooManyAttemptsPage } from "./pages/sign-in";
import { afterAnswer, render } from "./respond";

export const passwordReset = new Hono<DashApp>();
const again = { href: "/dashboard/forgot", label: "Ask for a new link" };

passwordReset.get("/forgot", (c) => render(c, <ForgotPage />));

function tooMany(c: DashContext, retry: number) {
  c.header("Retry-After", String(retry));
  return render(c, <TooManyAttemptsPage retryAfter={retry} />, 429);
}

passwordReset.post("/forgot", async (c) => {
  // The client's limit before the form is read; the address's once it is known.
  const ipRetry = await limited(c, [`ip:${clientIp(c)}`]);
  if (ipRetry !== null) return tooMany(c, ipRetry);
  const email = str(await form(c), "email")
    .trim()
    .slice(0, 254);
  if (!email) return render(c, <ForgotPage error="email: enter the address you sign in with." />, 422);
  const retry = await limited(c, [`reset:${email.toLowerCase()}`]);
  if (retry !== null) return tooMany(c, retry);
  await afterAnswer(c, requestPasswordReset(c.env, email, mailBase(c), c.var.clock()));
  return render(c, <ForgotSentPage />);
});

passwordReset.get("/reset/:token", async (c) => {
  const state = await resetLinkState(c.env, c.req.param("token"));
  if (state !== "open") return render(c, <LinkGonePage detail={LINK_WORDS[state]} again={again} />, 410);
  return render(c, <ResetPage token={c.req.param("token")} />);
});

passwordReset.post("/reset/:token", async (c) => {
  const token = c.req.param("token");
  const retry = await limited(c, [`ip:${clientIp(c)}`]);
  if (retry !== null) return tooMany(c, retry);
  try {
    await resetPassword(c.env, token, str(await form(c), "new_password"), new Date(), c.var.hashPassword);
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    if (err.status === 422) return render(c, <ResetPage token={token} error={err.detail} />, 422);
    return render(c, <LinkGonePage detail={err.detail} again={again} />, 410);
  }
  return c.redirect("/dashboard?done=password-reset", 303);
});

// ------------------------------------------------------------------ unlocking after too many wrong tries

const unlockAgain = { href: "/dashboard/forgot", label: "Choose a new password instead (it unlocks the account too)" };

passwordReset.get("/unlock/:token", async (c) => {
  const state = await unlockLinkState(c.env, c.req.param("token"), c.var.clock());
  if (state !== "open")
    return render(c, <LinkGonePage detail={state === "expired" ? "This link has expired (unlock links work for 24 hours)." : LINK_WORDS[state]} again={unlockAgain} />, 410);
  return render(c, <UnlockPage token={c.req.param("token")} />);
});

passwordReset.post("/unlock/:token", async (c) => {
  try {
    await unlockAccount(c.env, c.req.param("token"), c.var.clock());
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    return render(c, <LinkGonePage detail={err.detail} again={unlockAgain} />, 410);
  }
  return c.redirect("/dashboard?done=unlocked", 303);
});
