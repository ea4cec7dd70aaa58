/**
 * Signing in and out of the dashboard (the password, then a code when two-factor is on: see
 * ops/two-factor.ts), and changing one's password (which ends the person's other sessions, in
 * the same batch as the new password and the audit row).
 */
import { auditStatement } from "../control/audit";
import { controlDb } from "../control/db";
import { pausedUntil, recordSuccess } from "../control/lockout";
import type { HashPassword } from "../control/passwords";
import { checkCredentials, membershipsOf, passwordChangeStatement, sitesOf } from "../control/people";
import { createSession, endOtherSessionsStatements, endSession } from "../control/sessions";
import { userActor } from "./actor";
import { noteFailure } from "./lockout";
import { beginSecondStep, completeSecondStep } from "./two-factor";

/**
 * The password step: null when the email and password do not match an account whose address
 * is verified, or while its sign-in is paused (the same answer as a wrong password, so the page
 * tells nothing about the account); a new session's token (`session`) for a person without
 * two-factor; else a 10-minute step token (`code`) that only a code completes
 * (`completeSignIn`), remembering where they were going (`next`). A wrong password counts
 * towards the person's failure budget (control/lockout.ts); `base` makes the mail's links.
 */
export async function signIn(
  env: Env,
  input: { email: string; password: string; next: string; userAgent?: string | null },
  base: string | null,
  now: Date,
): Promise<{ kind: "session"; token: string } | { kind: "code"; step: string } | null> {
  const db = controlDb(env.DB);
  if (!input.email || !input.password) return null;
  const { user, ok } = await checkCredentials(db, input.email, input.password);
  // Checked after the hash, so a paused or unverified account costs the same time as any other.
  if (!user || pausedUntil(user, now)) return null;
  if (!ok) {
    await noteFailure(env, user, "password", base, now);
    return null;
  }
  if (!user.emailVerifiedAt) return null;
  await recordSuccess(db, user, "password");
  if (user.totpSecret) return { kind: "code", step: await beginSecondStep(env, user.id, input.next, now) };
  return { kind: "session", token: await createSession(db, user.id, now, input.userAgent) };
}

/** The code step: a session for the person and where they were going, or an ApiError (422 wrong code, 410 step expired, 429 paused). */
export async function completeSignIn(env: Env, step: string, code: string, base: string | null, now: Date, userAgent?: string | null) {
  const done = await completeSecondStep(env, step, code, base, now);
  return { token: await createSession(controlDb(env.DB), done.userId, now, userAgent), next: done.next };
}

export async function startSession(env: Env, userId: number, userAgent?: string | null): Promise<string> {
  return createSession(controlDb(env.DB), userId, new Date(), userAgent);
}

export async function signOut(env: Env, token: string) {
  await endSession(controlDb(env.DB), token);
}

export async function changePassword(env: Env, user: { userId: number; tokenHash: string }, current: string, next: string, hash?: HashPassword) {
  const db = controlDb(env.DB);
  const actor = userActor(user.userId);
  const { update } = await passwordChangeStatement(db, user.userId, current, next, hash);
  await db.batch([
    update,
    ...endOtherSessionsStatements(db, user.userId, user.tokenHash),
    auditStatement(db, { organizationId: null, actor, action: "user.password_change", target: actor }),
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
