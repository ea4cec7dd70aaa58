/**
 * Signing in and out of the dashboard (the password, then a code when two-factor is on: see
 * ops/two-factor.ops.ts), the mailed link that signs the owner in once whatever pauses run, and
 * changing one's password (which ends the person's other sessions, in the same batch as the new
 * password and the audit row). Passwords count towards the (person, client network) budget and
 * codes towards the person's (control/lockout.control.ts).
 */
import { eq } from "drizzle-orm";
import { claimToken, closeTokensStatement, peekToken } from "../control/account-tokens.control";
import { auditStatement } from "../control/audit.control";
import { controlDb } from "../control/db";
import { clearCodeFailuresStatement, clearPasswordFailures, clearPasswordFailuresStatement, clientKey, passwordStanding } from "../control/lockout.control";
import type { HashPassword } from "../control/passwords.control";
import { findUser, membershipsOf, passwordMatches, setPasswordStatement, sitesOf } from "../control/people.control";
import { users } from "../control/schema";
import { createSession, endOtherSessionsStatements, endSession } from "../control/sessions.control";
import { ApiError } from "../errors";
import { userActor } from "./actor";
import { noteCodeFailure, notePasswordFailure, pausedError, UNLOCK_WORDS } from "./lockout.ops";
import { beginSecondStep, checkSecondFactor, completeSecondStep, WRONG_CODE } from "./two-factor.ops";

/** Runs work after the answer (the door's `waitUntil`); without one, before returning. Work is handed over unstarted, so none of it runs before the answer. */
export type Defer = (work: () => Promise<unknown>) => void;
async function after(defer: Defer | undefined, work: () => Promise<unknown>) {
  if (defer) defer(work);
  else await work();
}

/**
 * The password step: null when the email and password do not match an account whose address
 * is verified, or while this client network's password step for the account is paused (the same
 * answer as a wrong password, so the page tells nothing about the account); a new session's
 * token (`session`) for a person without two-factor; else a 10-minute step token (`code`) that
 * only a code completes (`completeSignIn`), remembering where they were going (`next`).
 *
 * Until the answer, an unknown address and a wrong password run the same statements (the
 * account's look-up and the network's standing) and one hash; a wrong password is counted
 * after the answer (`defer`), so an existing account does not answer later. `base` makes the
 * mail's links.
 */
export async function signIn(
  env: Env,
  input: { email: string; password: string; next: string; network: string; userAgent?: string | null },
  base: string | null,
  now: Date,
  defer?: Defer,
): Promise<{ kind: "session"; token: string } | { kind: "code"; step: string } | null> {
  const db = controlDb(env.DB);
  if (!input.email || !input.password) return null;
  const user = await findUser(db, input.email);
  const standing = await passwordStanding(db, user?.id ?? null, input.network, now);
  const ok = await passwordMatches(user, input.password);
  // Decided after the hash, so a paused or unverified account costs the same time as any other.
  if (!user || standing.pausedUntil) return null;
  if (!ok) {
    await after(defer, () => notePasswordFailure(env, user, input.network, base, now));
    return null;
  }
  if (!user.emailVerifiedAt) return null;
  // A right password starts this network's count again; never the code count (control/lockout.control.ts).
  if (standing.failures) await clearPasswordFailures(db, user.id, input.network);
  if (user.totpSecret) return { kind: "code", step: await beginSecondStep(env, user.id, input.next, now) };
  return { kind: "session", token: await createSession(db, user.id, now, input.userAgent) };
}

/** The code step: a session for the person and where they were going, or an ApiError (422 wrong code, 410 step expired, 429 paused). */
export async function completeSignIn(env: Env, step: string, code: string, base: string | null, now: Date, userAgent?: string | null) {
  const done = await completeSecondStep(env, step, code, base, now);
  return { token: await createSession(controlDb(env.DB), done.userId, now, userAgent), next: done.next };
}

// ------------------------------------------------------------------ the mailed link that signs the owner in once

/** An unlock link, opened: the account it signs in to and whether a code is asked, or the words saying why it does not work. */
export async function unlockLinkOf(env: Env, token: string, now: Date): Promise<{ email: string; twoFactor: boolean } | { gone: string }> {
  const db = controlDb(env.DB);
  const peek = await peekToken(db, "unlock", token, now);
  if (peek.state !== "open") return { gone: UNLOCK_WORDS[peek.state] };
  const user = await db.select({ email: users.email, totp: users.totpSecret }).from(users).where(eq(users.id, peek.userId)).get();
  return user ? { email: user.email, twoFactor: !!user.totp } : { gone: UNLOCK_WORDS.unknown };
}

/**
 * Signs the owner in through the link mailed when a pause began: once, within 24 hours, with
 * the account's password (and a code when two-factor is on), whatever pauses are running, as
 * the link proves the mailbox. A wrong password or code is counted (not refused unchecked) and
 * leaves the link usable. Signed in, this network's password count and the code count start
 * again. Answers the new session's token.
 */
export async function signInWithUnlock(
  env: Env,
  token: string,
  input: { password: string; code: string; network: string; userAgent?: string | null },
  base: string | null,
  now: Date,
) {
  const db = controlDb(env.DB);
  const peek = await peekToken(db, "unlock", token, now);
  if (peek.state !== "open") throw new ApiError(410, UNLOCK_WORDS[peek.state]);
  const user = await db.select().from(users).where(eq(users.id, peek.userId)).get();
  if (!user) throw new ApiError(410, UNLOCK_WORDS.unknown);
  if (!(await passwordMatches(user, input.password))) {
    await notePasswordFailure(env, user, input.network, base, now);
    throw new ApiError(422, "password: that is not the password of this account. Forgot it? Choose a new one instead.");
  }
  if (user.totpSecret && !(await checkSecondFactor(env, user.id, input.code, now))) {
    await noteCodeFailure(env, user, base, now);
    throw new ApiError(422, WRONG_CODE);
  }
  const claimed = await claimToken(db, "unlock", token, now);
  if (claimed.state !== "open") throw new ApiError(410, UNLOCK_WORDS[claimed.state]);
  await db.batch([
    clearPasswordFailuresStatement(db, user.id, await clientKey(user.id, input.network)),
    clearCodeFailuresStatement(db, user.id),
    closeTokensStatement(db, user.id, "unlock", now),
    auditStatement(db, { organizationId: null, actor: `user:${user.id}`, action: "user.unlock", target: `user:${user.id}` }, now),
  ]);
  return createSession(db, user.id, now, input.userAgent);
}

// ------------------------------------------------------------------ sessions and the password

export async function startSession(env: Env, userId: number, userAgent?: string | null): Promise<string> {
  return createSession(controlDb(env.DB), userId, new Date(), userAgent);
}

export async function signOut(env: Env, token: string) {
  await endSession(controlDb(env.DB), token);
}

/**
 * Changes the password of the signed-in person: the current one is checked against the
 * (person, network) budget as sign-in's is (refused unchecked while paused: 429; a wrong one
 * counted: 422), so a stolen session cannot guess it without end. The other sessions end, and
 * the code budget starts again (whoever knew the old password is shut out).
 */
export async function changePassword(
  env: Env,
  user: { userId: number; tokenHash: string },
  input: { current: string; next: string; network: string },
  base: string | null,
  now = new Date(),
  hash?: HashPassword,
) {
  const db = controlDb(env.DB);
  const actor = userActor(user.userId);
  const row = await db.select().from(users).where(eq(users.id, user.userId)).get();
  if (!row) throw new ApiError(401, "Sign in again.");
  const standing = await passwordStanding(db, row.id, input.network, now);
  if (standing.pausedUntil) throw pausedError(standing.pausedUntil, now);
  if (!(await passwordMatches(row, input.current))) {
    await notePasswordFailure(env, row, input.network, base, now);
    throw new ApiError(422, "current_password: that is not your current password.");
  }
  const { update } = await setPasswordStatement(db, row.id, input.next, undefined, hash);
  await db.batch([
    update,
    ...endOtherSessionsStatements(db, user.userId, user.tokenHash),
    clearPasswordFailuresStatement(db, row.id, await clientKey(row.id, input.network)),
    clearCodeFailuresStatement(db, row.id),
    auditStatement(db, { organizationId: null, actor, action: "user.password_change", target: actor }, now),
  ]);
}

/** The home page: the person's organizations and their sites. */
export async function homeOf(env: Env, userId: number) {
  const db = controlDb(env.DB);
  const memberships = await membershipsOf(db, userId);
  const sites = await sitesOf(
    db,
    memberships.map((m) => m.organizationId),
  );
  return { memberships, sites };
}
