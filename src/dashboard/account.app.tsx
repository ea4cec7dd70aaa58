/**
 * /dashboard/account: the person's password (changing it signs them out everywhere else), their
 * sessions (end one, or all others), two-factor sign-in (set up with a QR code made here,
 * confirmed by a first code; set up again or turned off only with the password and a current
 * code, limited and counted like sign-in's codes), which mails they get, and deleting the account
 * (src/ops/erasure.ops.ts erasePerson; refused for an organization's only owner).
 */
import { Hono } from "hono";
import { groupedKey, totpQrSvg, totpUri } from "../control/totp.control";
import { ApiError } from "../errors";
import { mailBase } from "../links";
import { endAllOtherSessions, endOneSession, mailPreferences, sessionsOf, setMailPreferences } from "../ops/accounts.ops";
import { userActor } from "../ops/actor";
import { erasePerson } from "../ops/erasure.ops";
import { changePassword } from "../ops/sessions.ops";
import { beginTwoFactor, confirmTwoFactor, disableTwoFactor, pendingSecret, recoveryCodesLeft } from "../ops/two-factor.ops";
import { requireUser } from "./access";
import { clearSessionCookie, clientIp, type DashApp, type DashContext, limited } from "./auth";
import { form, str, strs } from "./form";
import { AccountPage } from "./pages/account.page";
import { RecoveryCodesPage, TwoFactorSetupPage } from "./pages/accounts.page";
import { TooManyAttemptsPage } from "./pages/sign-in.page";
import { notice, render, viewer } from "./respond";

export const account = new Hono<DashApp>();

async function accountPage(c: DashContext, extra: { error?: string | null; notice?: string | null } = {}) {
  const user = requireUser(c);
  const [sessions, recoveryLeft, mail] = await Promise.all([sessionsOf(c.env, user), recoveryCodesLeft(c.env, user.userId), mailPreferences(c.env, user.userId)]);
  return <AccountPage viewer={viewer(c)} sessions={sessions} twoFactor={{ on: user.twoFactor, recoveryLeft }} mail={mail} notice={extra.notice ?? notice(c)} error={extra.error} />;
}

account.get("/account", async (c) => render(c, await accountPage(c)));

account.post("/account/password", async (c) => {
  const user = requireUser(c);
  // Sign-in's limits before the form is read (a stolen session must not guess the current password quickly), then its budget (ops/sessions.ops.ts).
  const retry = await limited(c, [`ip:${clientIp(c)}`, `password:user:${user.userId}`]);
  if (retry !== null) {
    c.header("Retry-After", String(retry));
    return render(c, <TooManyAttemptsPage retryAfter={retry} />, 429);
  }
  const f = await form(c);
  const input = { current: str(f, "current_password").slice(0, 1000), next: str(f, "new_password"), network: clientIp(c) };
  try {
    await changePassword(c.env, user, input, mailBase(c), c.var.clock(), c.var.hashPassword);
  } catch (err) {
    if (!(err instanceof ApiError) || (err.status !== 422 && err.status !== 429)) throw err;
    for (const [name, value] of Object.entries(err.headers ?? {})) c.header(name, value);
    return render(c, await accountPage(c, { error: err.detail }), err.status);
  }
  return c.redirect("/dashboard/account?done=password-changed", 303);
});

account.post("/account/sessions/end-others", async (c) => {
  const user = requireUser(c);
  await endAllOtherSessions(c.env, user.userId, user.tokenHash);
  return c.redirect("/dashboard/account?done=others-ended", 303);
});

account.post("/account/sessions/:id/end", async (c) => {
  const user = requireUser(c);
  await endOneSession(c.env, user.userId, c.req.param("id"));
  return c.redirect("/dashboard/account?done=session-ended", 303);
});

account.post("/account/mail", async (c) => {
  const user = requireUser(c);
  await setMailPreferences(c.env, user.userId, strs(await form(c), "mail"));
  return c.redirect("/dashboard/account?done=mail-saved", 303);
});

account.post("/account/delete", async (c) => {
  const user = requireUser(c);
  if (
    str(await form(c), "confirm_email")
      .trim()
      .toLowerCase() !== user.email.toLowerCase()
  )
    return render(c, await accountPage(c, { error: "confirm_email: type your own address to delete your account." }), 422);
  try {
    await erasePerson(c.env, userActor(user.userId), user.userId);
  } catch (err) {
    if (err instanceof ApiError && err.status === 409) return render(c, await accountPage(c, { error: err.detail }), 409);
    throw err;
  }
  clearSessionCookie(c);
  return c.redirect("/dashboard?done=account-deleted", 303);
});

// ------------------------------------------------------------------ two-factor set-up

async function setupPage(c: DashContext, setup: string, secret: string, error?: string) {
  const user = requireUser(c);
  return render(
    c,
    <TwoFactorSetupPage
      viewer={viewer(c)}
      setup={setup}
      secretGrouped={groupedKey(secret)}
      qrSvg={totpQrSvg(totpUri(secret, user.email))}
      required={user.twoFactorRequired}
      again={user.twoFactor}
      error={error}
    />,
    error ? 422 : 200,
  );
}

account.get("/account/two-factor", async (c) => {
  const user = requireUser(c);
  const { setup, secret } = await beginTwoFactor(c.env, user.userId);
  return setupPage(c, setup, secret);
});

/** The codes' per-person limit (sign-in's), before the form is read: the factor's forms share it. */
async function codeLimit(c: DashContext, userId: number) {
  const retry = await limited(c, [`code:user:${userId}`]);
  if (retry === null) return null;
  c.header("Retry-After", String(retry));
  return render(c, <TooManyAttemptsPage retryAfter={retry} />, 429);
}

account.post("/account/two-factor", async (c) => {
  const user = requireUser(c);
  // Setting it up again checks a code of the current factor: limited as sign-in's codes are.
  const refused = user.twoFactor ? await codeLimit(c, user.userId) : null;
  if (refused) return refused;
  const f = await form(c);
  const setup = str(f, "setup");
  try {
    const codes = await confirmTwoFactor(
      c.env,
      user,
      setup,
      str(f, "code"),
      { password: str(f, "password").slice(0, 1000), currentCode: str(f, "current_code").slice(0, 40), network: clientIp(c) },
      mailBase(c),
      c.var.clock(),
    );
    return render(c, <RecoveryCodesPage viewer={viewer(c)} codes={codes} />);
  } catch (err) {
    if (!(err instanceof ApiError) || err.status !== 422) throw err;
    const secret = await pendingSecret(c.env, user.userId, setup);
    if (!secret) throw err;
    return setupPage(c, setup, secret, err.detail);
  }
});

account.post("/account/two-factor/off", async (c) => {
  const user = requireUser(c);
  const refused = await codeLimit(c, user.userId);
  if (refused) return refused;
  const f = await form(c);
  try {
    await disableTwoFactor(c.env, user, { password: str(f, "password").slice(0, 1000), code: str(f, "code").slice(0, 40), network: clientIp(c) }, mailBase(c), c.var.clock());
  } catch (err) {
    if (err instanceof ApiError && (err.status === 422 || err.status === 409)) return render(c, await accountPage(c, { error: err.detail }), err.status);
    throw err;
  }
  return c.redirect("/dashboard/account?done=two-factor-off", 303);
});
