/**
 * Account operations (docs/accounts-and-mail.md "Accounts"; docs/decisions.md "Accounts, the dashboard and mail"): password reset, sessions and mail
 * preferences (invitation mails are in ops/people.ops.ts). Each takes what the door parsed, writes
 * D1 with its audit row, sends what has to go out (never failing on a mail) and answers what
 * the page shows.
 */
import { eq } from "drizzle-orm";
import { claimToken, closeTokensStatement, issueToken, peekToken } from "../control/account-tokens.control";
import { auditStatement } from "../control/audit.control";
import { controlDb } from "../control/db";
import { clearCodeFailuresStatement, clearPasswordFailuresStatement, clientKey } from "../control/lockout.control";
import { MAIL_LIMITS, spendMailBudget } from "../control/mail-budget.control";
import { type HashPassword, hashPassword } from "../control/passwords.control";
import { findUser, passwordProblem } from "../control/people.control";
import { sessions, users } from "../control/schema";
import { endOtherSessionsStatements, endSessionById, listSessions } from "../control/sessions.control";
import { ApiError, notFound } from "../errors";
import { OPTIONAL_KINDS, type OptionalKind } from "../mail/message";
import { noMailBase, sendMail } from "../mail/send";
import { resetMail } from "../mail/templates";
import { log } from "../obs/log";

// ------------------------------------------------------------------ password reset

/**
 * Mails a one-time reset link (1 hour) when the address has an account, at most
 * MAIL_LIMITS.reset a day to one address; does nothing visible otherwise (an unknown address,
 * or the day's budget spent). The door answers the same page in every case and runs this after
 * answering (`waitUntil`), so neither the page nor its timing tells whether the address exists.
 * The token rides in the link's fragment (`/reset#<token>`), which no request line carries.
 */
export async function requestPasswordReset(env: Env, email: string, base: string | null, now = new Date()) {
  const db = controlDb(env.DB);
  const user = await findUser(db, email);
  if (!user) return;
  if (!base) return noMailBase("reset");
  const spent = await spendMailBudget(db, [{ key: `reset:${user.email}`, max: MAIL_LIMITS.reset }], now);
  if (!spent.ok) return log("info", "mail.limited", { kind: "reset", user_id: user.id });
  const token = await issueToken(db, "reset", user.id, now);
  await sendMail(env, resetMail(user.email, { link: `${base}/reset#${token}` }), now);
}

export const LINK_WORDS = {
  used: "This link was used already. Each link works once: ask for a new one if you still need it.",
  expired: "This link has expired (links to reset a password work for 1 hour). Ask for a new one.",
  unknown: "This link is not valid. Check that you copied all of it, or ask for a new one.",
} as const;

/** Whether a reset link can still be used (for the page that asks for the new password). */
export async function resetLinkState(env: Env, token: string, now = new Date()) {
  return (await peekToken(controlDb(env.DB), "reset", token, now)).state;
}

/**
 * Sets the new password of a reset link: the link works once, within its hour; every session
 * of the person ends (a thief's too), and every other reset, verification and unlock link with
 * it. The address is verified by the way (the link came through it). The mailbox proven from
 * this client network, its password count starts again; the code count too (whoever knew the
 * old password is shut out).
 */
export async function resetPassword(env: Env, token: string, password: string, network: string, now = new Date(), hash: HashPassword = hashPassword) {
  const problem = passwordProblem(password, "new_password");
  if (problem) throw new ApiError(422, problem);
  const db = controlDb(env.DB);
  const claimed = await claimToken(db, "reset", token, now);
  if (claimed.state !== "open") throw new ApiError(410, LINK_WORDS[claimed.state]);
  const userId = claimed.userId;
  const user = await db.select().from(users).where(eq(users.id, userId)).get();
  if (!user) throw new ApiError(410, LINK_WORDS.unknown);
  await db.batch([
    db
      .update(users)
      .set({ passwordHash: await hash(password), emailVerifiedAt: user.emailVerifiedAt ?? now.toISOString() })
      .where(eq(users.id, userId)),
    db.delete(sessions).where(eq(sessions.userId, userId)),
    closeTokensStatement(db, userId, "reset", now),
    closeTokensStatement(db, userId, "verify", now),
    closeTokensStatement(db, userId, "mfa", now),
    closeTokensStatement(db, userId, "unlock", now),
    clearPasswordFailuresStatement(db, userId, await clientKey(userId, network)),
    clearCodeFailuresStatement(db, userId),
    auditStatement(db, { organizationId: null, actor: `user:${userId}`, action: "user.password_reset", target: `user:${userId}` }, now),
  ]);
  return { userId, email: user.email };
}

// ------------------------------------------------------------------ sessions

/** The person's open sessions, newest use first; `current` marks the one asking. */
export async function sessionsOf(env: Env, user: { userId: number; tokenHash: string }) {
  return listSessions(controlDb(env.DB), user.userId, user.tokenHash);
}

export async function endOneSession(env: Env, userId: number, sessionId: string) {
  const db = controlDb(env.DB);
  if (!(await endSessionById(db, userId, sessionId))) throw notFound("Session");
  await db.batch([auditStatement(db, { organizationId: null, actor: `user:${userId}`, action: "user.session_end", target: `user:${userId}` })]);
}

export async function endAllOtherSessions(env: Env, userId: number, keepTokenHash: string) {
  const db = controlDb(env.DB);
  await db.batch([
    ...endOtherSessionsStatements(db, userId, keepTokenHash),
    auditStatement(db, { organizationId: null, actor: `user:${userId}`, action: "user.sessions_end_others", target: `user:${userId}` }),
  ]);
}

// ------------------------------------------------------------------ mail preferences

export async function mailPreferences(env: Env, userId: number): Promise<Record<OptionalKind, boolean>> {
  const row = await controlDb(env.DB).select({ out: users.mailOptOut }).from(users).where(eq(users.id, userId)).get();
  const out = new Set(row?.out ?? []);
  return Object.fromEntries(OPTIONAL_KINDS.map((k) => [k, !out.has(k)])) as Record<OptionalKind, boolean>;
}

/** Saves which optional mails the person gets (`wanted`); security mails are not a choice. */
export async function setMailPreferences(env: Env, userId: number, wanted: string[]) {
  const out = OPTIONAL_KINDS.filter((k) => !wanted.includes(k));
  await controlDb(env.DB).update(users).set({ mailOptOut: out }).where(eq(users.id, userId));
}
