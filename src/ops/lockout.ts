/**
 * The sign-in failure budget as the operations use it (control/lockout.ts holds the rule): a
 * failure is counted, and the 10th in a row mails the owner once, with a link that unlocks
 * the account at once; following it (a POST from its page) ends the pause.
 */
import { claimToken, closeTokensStatement, issueToken, peekToken } from "../control/account-tokens";
import { auditStatement } from "../control/audit";
import { controlDb } from "../control/db";
import { type FailureKind, recordFailure, unlockStatement } from "../control/lockout";
import { ApiError } from "../errors";
import { noMailBase, sendMail } from "../mail/send";
import { lockoutMail } from "../mail/templates";
import { LINK_WORDS } from "./accounts";

/** Counts a failure of the person; at the 10th in a row, mails them (once) the unlock link. Answers the pause set, if any. */
export async function noteFailure(env: Env, user: { id: number; email: string }, kind: FailureKind, base: string | null, now: Date) {
  const db = controlDb(env.DB);
  const { until, justLocked } = await recordFailure(db, user.id, kind, now);
  if (justLocked && until) {
    await db.batch([auditStatement(db, { organizationId: null, actor: `user:${user.id}`, action: "user.sign_in_paused", target: `user:${user.id}`, detail: { kind } }, now)]);
    if (!base) noMailBase("lockout");
    else {
      const token = await issueToken(db, "unlock", user.id, now);
      const when = until.toISOString().slice(0, 16).replace("T", " ");
      await sendMail(env, lockoutMail(user.email, { what: kind, until: when, link: `${base}/unlock/${token}`, forgot: `${base}/forgot` }), now);
    }
  }
  return until;
}

/** The refusal while a person's sign-in is paused (the second step and the account's two-factor forms), with `Retry-After` in seconds. */
export const pausedError = (until: Date, now: Date) =>
  new ApiError(
    429,
    `Too many wrong tries in a row: signing in to this account is paused until ${until.toISOString().slice(0, 16).replace("T", " ")} UTC. We mailed the account's address a link that unlocks it now.`,
    undefined,
    { "Retry-After": String(Math.max(1, Math.ceil((until.getTime() - now.getTime()) / 1000))) },
  );

export async function unlockLinkState(env: Env, token: string, now: Date) {
  return (await peekToken(controlDb(env.DB), "unlock", token, now)).state;
}

/** Follows an unlock link (once, within 24 hours): both failure counts to 0 and the pause ends. */
export async function unlockAccount(env: Env, token: string, now: Date) {
  const db = controlDb(env.DB);
  const claimed = await claimToken(db, "unlock", token, now);
  if (claimed.state !== "open") throw new ApiError(410, claimed.state === "expired" ? "This link has expired (unlock links work for 24 hours)." : LINK_WORDS[claimed.state]);
  await db.batch([
    unlockStatement(db, claimed.userId),
    closeTokensStatement(db, claimed.userId, "unlock", now),
    auditStatement(db, { organizationId: null, actor: `user:${claimed.userId}`, action: "user.unlock", target: `user:${claimed.userId}` }, now),
  ]);
}
