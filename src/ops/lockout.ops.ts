/**
 * The sign-in failure budgets as the operations use them (control/lockout.control.ts holds the rules):
 * a failure is counted, and the 10th in a row (of one network's passwords, or of the person's
 * codes) mails the owner once, within a daily budget, a link that signs them in once whatever
 * pauses are running (ops/sessions.ops.ts `signInWithUnlock`).
 */
import { issueToken } from "../control/account-tokens.control";
import { auditStatement } from "../control/audit.control";
import { controlDb } from "../control/db";
import { type FailureKind, recordCodeFailure, recordPasswordFailure } from "../control/lockout.control";
import { MAIL_LIMITS, spendMailBudget } from "../control/mail-budget.control";
import { ApiError } from "../errors";
import { noMailBase, sendMail } from "../mail/send";
import { lockoutMail } from "../mail/templates";
import { log } from "../obs/log";
import { LINK_WORDS } from "./accounts.ops";

export interface Counted {
  id: number;
  email: string;
  /** Unverified accounts are counted like any other, but get no mail: they have no password to sign in with. */
  emailVerifiedAt: string | null;
}

/** Counts a wrong password of the person from the network; at the 10th in a row from it, mails them the link. Answers the pause set, if any. */
export async function notePasswordFailure(env: Env, user: Counted, network: string, base: string | null, now: Date) {
  const { until, justLocked } = await recordPasswordFailure(controlDb(env.DB), user.id, network, now);
  if (justLocked && until) await paused(env, user, "password", until, base, now);
  return until;
}

/** Counts a wrong code of the person (from anywhere); at the 10th in a row, mails them the link. Answers the pause set, if any. */
export async function noteCodeFailure(env: Env, user: Counted, base: string | null, now: Date) {
  const { until, justLocked } = await recordCodeFailure(controlDb(env.DB), user.id, now);
  if (justLocked && until) await paused(env, user, "code", until, base, now);
  return until;
}

/** A pause began: audited; the owner mailed the link that signs them in once (at most MAIL_LIMITS.lockout a day, so many networks cannot flood the mailbox). */
async function paused(env: Env, user: Counted, kind: FailureKind, until: Date, base: string | null, now: Date) {
  const db = controlDb(env.DB);
  await db.batch([auditStatement(db, { organizationId: null, actor: `user:${user.id}`, action: "user.sign_in_paused", target: `user:${user.id}`, detail: { kind } }, now)]);
  if (!user.emailVerifiedAt) return;
  if (!base) return noMailBase("lockout");
  const spent = await spendMailBudget(db, [{ key: `lockout:user:${user.id}`, max: MAIL_LIMITS.lockout }], now);
  if (!spent.ok) return log("info", "mail.limited", { kind: "lockout", user_id: user.id });
  const token = await issueToken(db, "unlock", user.id, now);
  const when = until.toISOString().slice(0, 16).replace("T", " ");
  await sendMail(env, lockoutMail(user.email, { what: kind, until: when, link: `${base}/unlock#${token}`, forgot: `${base}/forgot` }), now);
}

/** The refusal while a pause is running (the code step, and the account's forms that check the password or a code), with `Retry-After` in seconds. */
export const pausedError = (until: Date, now: Date) =>
  new ApiError(
    429,
    `Too many wrong tries in a row: this is paused until ${until.toISOString().slice(0, 16).replace("T", " ")} UTC. We mailed the account's address a link that signs you in once now.`,
    undefined,
    { "Retry-After": String(Math.max(1, Math.ceil((until.getTime() - now.getTime()) / 1000))) },
  );

export const UNLOCK_WORDS = { ...LINK_WORDS, expired: "This link has expired (these links work for 24 hours)." } as const;
