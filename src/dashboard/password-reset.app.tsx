/**
 * Forgotten passwords: /dashboard/forgot asks for the address and answers the same page
 * whether or not it has an account, or its day's mails are spent (the look-up and the mail run
 * after the answer); the mailed link (/dashboard/reset#<token>) sets the new password once,
 * within the hour, and signs out every session. /dashboard/unlock#<token>: the link mailed when
 * a pause of sign-in began, which signs the owner in once. Links work as one-time-links.tsx
 * says (the token never in a URL). Limited like sign-in: per client network and per address.
 */
import { Hono } from "hono";
import { ApiError } from "../errors";
import { mailBase } from "../links";
import { LINK_WORDS, requestPasswordReset, resetLinkState, resetPassword } from "../ops/accounts.ops";
import { signInWithUnlock, unlockLinkOf } from "../ops/sessions.ops";
import type { DashApp, DashContext } from "./auth";
import { clientIp, limited, setSessionCookie } from "./auth";
import { form, str } from "./form";
import { linkCodePage, oldLink, tokenOf } from "./one-time-links";
import { ForgotPage, ForgotSentPage, LinkGonePage, ResetPage, UnlockPage } from "./pages/accounts.page";
import { TooManyAttemptsPage } from "./pages/sign-in.page";
import { afterAnswer, render } from "./respond";

export const passwordReset = new Hono<DashApp>();
const again = { href: "/dashboard/forgot", label: "Ask for a new link" };

passwordReset.get("/forgot", (c) => render(c, <ForgotPage />));

function tooMany(c: DashContext, retry: number) {
  c.header("Retry-After", String(retry));
  return render(c, <TooManyAttemptsPage retryAfter={retry} />, 429);
}

/** The client's limit, before a signed-out form is read. */
async function clientLimit(c: DashContext) {
  const retry = await limited(c, [`ip:${clientIp(c)}`]);
  return retry === null ? null : tooMany(c, retry);
}

passwordReset.post("/forgot", async (c) => {
  // The client's limit before the form is read; the address's once it is known.
  const refused = await clientLimit(c);
  if (refused) return refused;
  const email = str(await form(c), "email")
    .trim()
    .slice(0, 254);
  if (!email) return render(c, <ForgotPage error="email: enter the address you sign in with." />, 422);
  const retry = await limited(c, [`reset:${email.toLowerCase()}`]);
  if (retry !== null) return tooMany(c, retry);
  await afterAnswer(c, requestPasswordReset(c.env, email, mailBase(c), c.var.clock()));
  return render(c, <ForgotSentPage />);
});

// ------------------------------------------------------------------ the reset link

passwordReset.get("/reset", (c) => linkCodePage(c, { title: "Choose a new password", action: "/dashboard/reset/open" }));
passwordReset.get("/reset/:token", (c) => oldLink(c, "/dashboard/reset"));

passwordReset.post("/reset/open", async (c) => {
  const refused = await clientLimit(c);
  if (refused) return refused;
  const token = tokenOf(await form(c));
  const state = await resetLinkState(c.env, token, c.var.clock());
  if (state !== "open") return render(c, <LinkGonePage detail={LINK_WORDS[state]} again={again} />, 410);
  return render(c, <ResetPage token={token} />);
});

passwordReset.post("/reset", async (c) => {
  const refused = await clientLimit(c);
  if (refused) return refused;
  const f = await form(c);
  const token = tokenOf(f);
  try {
    await resetPassword(c.env, token, str(f, "new_password"), clientIp(c), c.var.clock(), c.var.hashPassword);
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    if (err.status === 422) return render(c, <ResetPage token={token} error={err.detail} />, 422);
    return render(c, <LinkGonePage detail={err.detail} again={again} />, 410);
  }
  return c.redirect("/dashboard?done=password-reset", 303);
});

// ------------------------------------------------------------------ the link that signs the owner in once after a pause

const unlockAgain = { href: "/dashboard/forgot", label: "Choose a new password instead (it ends the pause too)" };

passwordReset.get("/unlock", (c) => linkCodePage(c, { title: "Sign in with your link", action: "/dashboard/unlock/open" }));
passwordReset.get("/unlock/:token", (c) => oldLink(c, "/dashboard/unlock"));

passwordReset.post("/unlock/open", async (c) => {
  const refused = await clientLimit(c);
  if (refused) return refused;
  const token = tokenOf(await form(c));
  const link = await unlockLinkOf(c.env, token, c.var.clock());
  if ("gone" in link) return render(c, <LinkGonePage detail={link.gone} again={unlockAgain} />, 410);
  return render(c, <UnlockPage token={token} email={link.email} twoFactor={link.twoFactor} />);
});

passwordReset.post("/unlock", async (c) => {
  const refused = await clientLimit(c);
  if (refused) return refused;
  const f = await form(c);
  const token = tokenOf(f);
  const input = { password: str(f, "password").slice(0, 1000), code: str(f, "code").slice(0, 40), network: clientIp(c), userAgent: c.req.header("user-agent") };
  let session: string;
  try {
    session = await signInWithUnlock(c.env, token, input, mailBase(c), c.var.clock());
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    const link = err.status === 422 ? await unlockLinkOf(c.env, token, c.var.clock()) : null;
    if (link && !("gone" in link)) return render(c, <UnlockPage token={token} email={link.email} twoFactor={link.twoFactor} error={err.detail} />, 422);
    return render(c, <LinkGonePage detail={err.detail} again={unlockAgain} />, 410);
  }
  setSessionCookie(c, session);
  return c.redirect("/dashboard", 303);
});
