/**
 * The per-person budget of sign-in failures (docs/decisions.md "Accounts, the dashboard and mail",
 * a failure budget). Wrong passwords and wrong second-factor codes are counted apart, in a
 * row, on the person's row; a success of the kind (or the mailed unlock link) sets the count
 * back to 0. It does not refill with time: from the 10th failure in a row, sign-in pauses for
 * 1 minute, and each further failure doubles the pause (2, 4, 8 … minutes) up to a day.
 * Attempts during a pause are refused without being checked or counted.
 */
import { eq, sql } from "drizzle-orm";
import type { ControlDb } from "./db";
import { users } from "./schema";

export const LOCKOUT_AFTER = 10;
export const FIRST_PAUSE_MS = 60_000;
export const MAX_PAUSE_MS = 86_400_000;

export type FailureKind = "password" | "code";

/** The pause after the `failures`-th failure in a row (0 below 10): 1 minute, doubling, at most a day. */
export function pauseAfter(failures: number): number {
  if (failures < LOCKOUT_AFTER) return 0;
  return Math.min(MAX_PAUSE_MS, FIRST_PAUSE_MS * 2 ** Math.min(failures - LOCKOUT_AFTER, 20));
}

/** The end of the person's pause when it is still running at `now`, else null. */
export function pausedUntil(user: { lockedUntil: string | null }, now: Date): Date | null {
  return user.lockedUntil && user.lockedUntil > now.toISOString() ? new Date(user.lockedUntil) : null;
}

const column = (kind: FailureKind) => (kind === "password" ? users.passwordFailures : users.codeFailures);

/**
 * Counts one failure (one conditional update, so two at once both count). Answers the count
 * and the pause it set; `justLocked` is true exactly once per streak (the 10th), when the one
 * mail to the owner goes out.
 */
export async function recordFailure(db: ControlDb, userId: number, kind: FailureKind, now: Date) {
  const col = column(kind);
  const [row] = await db
    .update(users)
    .set(kind === "password" ? { passwordFailures: sql`${col} + 1` } : { codeFailures: sql`${col} + 1` })
    .where(eq(users.id, userId))
    .returning({ failures: col });
  const failures = row?.failures ?? 0;
  const pause = pauseAfter(failures);
  const until = pause ? new Date(now.getTime() + pause) : null;
  if (until) await db.update(users).set({ lockedUntil: until.toISOString() }).where(eq(users.id, userId));
  return { failures, until, justLocked: failures === LOCKOUT_AFTER };
}

/** A success of the kind: its count starts again (written only when there was one). */
export async function recordSuccess(db: ControlDb, user: { id: number; passwordFailures: number; codeFailures: number }, kind: FailureKind) {
  if ((kind === "password" ? user.passwordFailures : user.codeFailures) === 0) return;
  await db
    .update(users)
    .set(kind === "password" ? { passwordFailures: 0 } : { codeFailures: 0 })
    .where(eq(users.id, user.id));
}

/** The unlock link (or a password reset, which proves the mailbox the same way): both counts to 0, no pause. */
export const unlockStatement = (db: ControlDb, userId: number) => db.update(users).set({ passwordFailures: 0, codeFailures: 0, lockedUntil: null }).where(eq(users.id, userId));
