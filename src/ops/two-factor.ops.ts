/**
 * Two-factor sign-in (docs/accounts-and-mail.md "Accounts"; docs/decisions.md "Accounts, the dashboard and mail"): set-up
 * confirmed by a first code, ten recovery codes shown once and stored hashed, the second step of
 * sign-in, setting it up again or turning it off with the password and a current code, and owners
 * requiring it for their organization. Every code checked counts towards the person's code
 * budget, every password towards the (person, client network) one (control/lockout.control.ts).
 */
import { and, eq, isNull, lt, or } from "drizzle-orm";
import { claimToken, closeTokensStatement, issueToken, peekToken } from "../control/account-tokens.control";
import { auditStatement } from "../control/audit.control";
import { controlDb } from "../control/db";
import { clearPasswordFailures, codePausedUntil, passwordStanding, recordCodeSuccess } from "../control/lockout.control";
import { passwordMatches } from "../control/people.control";
import { memberships, organizations, recoveryCodes, users } from "../control/schema";
import { endOtherSessionsStatements } from "../control/sessions.control";
import { acceptCode, looksLikeRecoveryCode, newRecoveryCodes, newTotpSecret, recoveryHash } from "../control/totp.control";
import { ApiError } from "../errors";
import { noMailBase, sendMail } from "../mail/send";
import { twoFactorChangedMail, twoFactorMail } from "../mail/templates";
import { type Counted, noteCodeFailure, notePasswordFailure, pausedError } from "./lockout.ops";

export const WRONG_CODE = "code: that code is not right. Enter the 6 digits your authenticator app shows now, or one of your recovery codes.";

/** Starts a set-up: a new secret kept with a set-up token (30 minutes) until a first code confirms it. */
export async function beginTwoFactor(env: Env, userId: number, now = new Date()) {
  const secret = newTotpSecret();
  const setup = await issueToken(controlDb(env.DB), "totp_setup", userId, now, secret);
  return { setup, secret };
}

/** The secret of a pending set-up of this person, or null (expired, used, someone else's). */
export async function pendingSecret(env: Env, userId: number, setup: string, now = new Date()) {
  const t = await peekToken(controlDb(env.DB), "totp_setup", setup, now);
  return t.state === "open" && t.userId === userId ? t.data : null;
}

/**
 * Confirms a set-up with a first code: two-factor is on and the ten recovery codes (answered
 * once) replace any earlier ones; every other session of the person ends, and they get a mail.
 * While two-factor is already on (setting it up again, for a new app or new recovery codes),
 * it also needs the password and a code of the current factor (`reauth`), counted like
 * sign-in's, so a stolen session alone cannot move the factor.
 */
export async function confirmTwoFactor(
  env: Env,
  user: { userId: number; email: string; tokenHash: string },
  setup: string,
  code: string,
  reauth: { password: string; currentCode: string; network: string },
  base: string | null,
  now = new Date(),
) {
  const db = controlDb(env.DB);
  const secret = await pendingSecret(env, user.userId, setup, now);
  if (!secret) throw new ApiError(410, "This set-up has expired (30 minutes). Start again: a new QR code is shown.");
  const step = acceptCode(secret, code, null, now.getTime());
  if (step === null) throw new ApiError(422, "code: that code is not right. Enter the 6 digits your authenticator app shows for Transync now.");
  const row = await db.select().from(users).where(eq(users.id, user.userId)).get();
  if (!row) throw new ApiError(410, "This set-up has expired (30 minutes). Start again: a new QR code is shown.");
  const again = !!row.totpSecret;
  if (again) await reauthenticate(env, row, reauth, base, now);
  const claimed = await claimToken(db, "totp_setup", setup, now);
  if (claimed.state !== "open") throw new ApiError(410, "This set-up was confirmed already.");
  const codes = newRecoveryCodes();
  const hashes = await Promise.all(codes.map(recoveryHash));
  await db.batch([
    db.update(users).set({ totpSecret: secret, totpLastStep: step, codeFailures: 0 }).where(eq(users.id, user.userId)),
    db.delete(recoveryCodes).where(eq(recoveryCodes.userId, user.userId)),
    db.insert(recoveryCodes).values(hashes.map((codeHash) => ({ userId: user.userId, codeHash }))),
    closeTokensStatement(db, user.userId, "totp_setup", now),
    ...endOtherSessionsStatements(db, user.userId, user.tokenHash, now),
    auditStatement(db, { organizationId: null, actor: `user:${user.userId}`, action: again ? "user.two_factor_reset" : "user.two_factor_on", target: `user:${user.userId}` }, now),
  ]);
  if (!base) noMailBase("two_factor");
  else await sendMail(env, again ? twoFactorChangedMail(user.email, { account: `${base}/account` }) : twoFactorMail(user.email, { on: true, account: `${base}/account` }), now);
  return codes;
}

/**
 * The person proving it is them before the factor moves: the password and a code of the
 * current factor (an app code never used before, or an unused recovery code). The password
 * counts towards the (person, network) budget and the code towards the person's; while either
 * is paused, it is refused unchecked (429).
 */
async function reauthenticate(env: Env, row: typeof users.$inferSelect, proof: { password: string; currentCode: string; network: string }, base: string | null, now: Date) {
  const db = controlDb(env.DB);
  const standing = await passwordStanding(db, row.id, proof.network, now);
  if (standing.pausedUntil) throw pausedError(standing.pausedUntil, now);
  if (!(await passwordMatches(row, proof.password))) {
    await notePasswordFailure(env, row, proof.network, base, now);
    throw new ApiError(422, "password: that is not your password. Enter the password you sign in with.");
  }
  if (standing.failures) await clearPasswordFailures(db, row.id, proof.network);
  await verifySecondFactor(env, row, proof.currentCode, base, now, "current_code");
}

/**
 * A second factor checked against the person's code budget: refused unchecked while it is
 * paused (429), counted when wrong (422 naming `field`), the count cleared when right.
 */
export async function verifySecondFactor(
  env: Env,
  row: Counted & { lockedUntil: string | null; codeFailures: number },
  code: string,
  base: string | null,
  now: Date,
  field = "code",
) {
  const paused = codePausedUntil(row, now);
  if (paused) throw pausedError(paused, now);
  const how = await checkSecondFactor(env, row.id, code, now);
  if (!how) {
    // This try was simply wrong (422); a pause it started refuses the next ones.
    await noteCodeFailure(env, row, base, now);
    throw new ApiError(422, WRONG_CODE.replace(/^code:/, `${field}:`));
  }
  await recordCodeSuccess(controlDb(env.DB), row);
  return how;
}

/**
 * Checks a second factor: a current TOTP code (each accepted once: the step is recorded in a
 * conditional update) or an unused recovery code (used up here). Answers how it passed, or null.
 */
export async function checkSecondFactor(env: Env, userId: number, code: string, now = new Date()): Promise<"totp" | "recovery" | null> {
  const db = controlDb(env.DB);
  const user = await db.select({ secret: users.totpSecret, last: users.totpLastStep }).from(users).where(eq(users.id, userId)).get();
  if (!user?.secret) return null;
  const step = acceptCode(user.secret, code, user.last, now.getTime());
  if (step !== null) {
    const moved = await db
      .update(users)
      .set({ totpLastStep: step })
      .where(and(eq(users.id, userId), or(isNull(users.totpLastStep), lt(users.totpLastStep, step))))
      .returning({ id: users.id });
    return moved.length ? "totp" : null;
  }
  if (!looksLikeRecoveryCode(code)) return null;
  const used = await db
    .update(recoveryCodes)
    .set({ usedAt: now.toISOString() })
    .where(and(eq(recoveryCodes.userId, userId), eq(recoveryCodes.codeHash, await recoveryHash(code)), isNull(recoveryCodes.usedAt)))
    .returning({ h: recoveryCodes.codeHash });
  if (!used.length) return null;
  await db.batch([auditStatement(db, { organizationId: null, actor: `user:${userId}`, action: "user.recovery_code_used", target: `user:${userId}` }, now)]);
  return "recovery";
}

export async function recoveryCodesLeft(env: Env, userId: number) {
  const rows = await controlDb(env.DB)
    .select({ h: recoveryCodes.codeHash })
    .from(recoveryCodes)
    .where(and(eq(recoveryCodes.userId, userId), isNull(recoveryCodes.usedAt)));
  return rows.length;
}

/** Organizations of the person that require two-factor (names), to refuse turning it off while any does. */
async function requiringOrganizations(env: Env, userId: number) {
  const rows = await controlDb(env.DB)
    .select({ name: organizations.name })
    .from(memberships)
    .innerJoin(organizations, eq(organizations.id, memberships.organizationId))
    .where(and(eq(memberships.userId, userId), eq(organizations.requireTwoFactor, true)));
  return rows.map((r) => r.name);
}

/**
 * Turns two-factor off: needs the password and a current code (an app code never used before,
 * or a recovery code), and no organization of theirs requiring it. Every other session ends.
 */
export async function disableTwoFactor(
  env: Env,
  user: { userId: number; email: string; tokenHash: string },
  proof: { password: string; code: string; network: string },
  base: string | null,
  now = new Date(),
) {
  const db = controlDb(env.DB);
  const row = await db.select().from(users).where(eq(users.id, user.userId)).get();
  if (!row?.totpSecret) throw new ApiError(409, "Two-factor sign-in is not on.");
  const requiring = await requiringOrganizations(env, user.userId);
  if (requiring.length) throw new ApiError(409, `${requiring.join(", ")} requires two-factor sign-in of its members, so it cannot be turned off.`);
  await reauthenticate(env, row, { password: proof.password, currentCode: proof.code, network: proof.network }, base, now);
  await db.batch([
    db.update(users).set({ totpSecret: null, totpLastStep: null }).where(eq(users.id, user.userId)),
    db.delete(recoveryCodes).where(eq(recoveryCodes.userId, user.userId)),
    ...endOtherSessionsStatements(db, user.userId, user.tokenHash, now),
    auditStatement(db, { organizationId: null, actor: `user:${user.userId}`, action: "user.two_factor_off", target: `user:${user.userId}` }, now),
  ]);
  if (!base) noMailBase("two_factor");
  else await sendMail(env, twoFactorMail(user.email, { on: false, account: `${base}/account` }), now);
}

/** Owners require (or stop requiring) two-factor of every member; members without it are led to set it up first. */
export async function setTwoFactorRequirement(env: Env, organizationId: number, required: boolean, actor: string) {
  const db = controlDb(env.DB);
  await db.batch([
    db.update(organizations).set({ requireTwoFactor: required }).where(eq(organizations.id, organizationId)),
    auditStatement(db, {
      organizationId,
      actor,
      action: required ? "organization.require_two_factor" : "organization.allow_without_two_factor",
      target: `organization:${organizationId}`,
    }),
  ]);
}

export async function organizationRequiresTwoFactor(env: Env, organizationId: number) {
  const row = await controlDb(env.DB).select({ r: organizations.requireTwoFactor }).from(organizations).where(eq(organizations.id, organizationId)).get();
  return !!row?.r;
}

// ------------------------------------------------------------------ the sign-in step

/** After a correct password of a person with two-factor: a 10-minute step token (a cookie) that only a code completes. */
export async function beginSecondStep(env: Env, userId: number, next: string, now = new Date()) {
  return issueToken(controlDb(env.DB), "mfa", userId, now, next);
}

export async function secondStepOf(env: Env, token: string, now = new Date()) {
  const t = await peekToken(controlDb(env.DB), "mfa", token, now);
  return t.state === "open" ? { userId: t.userId, next: t.data ?? "" } : null;
}

/** Completes the step with a code; answers the person and where they were going, or throws (422 wrong code, 410 expired, 429 paused). */
export async function completeSecondStep(env: Env, token: string, code: string, base: string | null, now = new Date()) {
  const step = await secondStepOf(env, token, now);
  if (!step) throw new ApiError(410, "The sign-in took too long (10 minutes). Sign in again.");
  const row = await controlDb(env.DB).select().from(users).where(eq(users.id, step.userId)).get();
  if (!row) throw new ApiError(410, "The sign-in took too long (10 minutes). Sign in again.");
  const how = await verifySecondFactor(env, row, code, base, now);
  const claimed = await claimToken(controlDb(env.DB), "mfa", token, now);
  if (claimed.state !== "open") throw new ApiError(410, "The sign-in took too long (10 minutes). Sign in again.");
  return { userId: step.userId, next: step.next, how };
}
