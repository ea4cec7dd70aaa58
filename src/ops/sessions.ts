/**
 * Signing in and out of the dashboard, and changing one's password (which ends the person's
 * other sessions, in the same batch as the new password and the audit row).
 */
import { auditStatement } from "../control/audit";
import { controlDb } from "../control/db";
import { checkCredentials, membershipsOf, passwordChangeStatement, sitesOf } from "../control/people";
import { createSession, endOtherSessionsStatements, endSession } from "../control/sessions";
import { userActor } from "./actor";

/** A new session's token for the matching email and password, or null. */
export async function signIn(env: Env, email: string, password: string): Promise<string | null> {
  const db = controlDb(env.DB);
  const user = email && password ? await checkCredentials(db, email, password) : null;
  return user ? createSession(db, user.id) : null;
}

export async function startSession(env: Env, userId: number): Promise<string> {
  return createSession(controlDb(env.DB), userId);
}

export async function signOut(env: Env, token: string) {
  await endSession(controlDb(env.DB), token);
}

export async function changePassword(env: Env, user: { userId: number; tokenHash: string }, current: string, next: string) {
  const db = controlDb(env.DB);
  const actor = userActor(user.userId);
  const { update } = await passwordChangeStatement(db, user.userId, current, next);
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
