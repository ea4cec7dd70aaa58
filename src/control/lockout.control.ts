/**
 * The sign-in failure budgets (docs/decisions.md "Accounts, the dashboard and mail", a lockout
 * that never locks the owner out). Two budgets, counted apart:
 *
 * - Passwords: per person AND client network (`sign_in_failures`). From the 10th wrong password
 *   in a row from one network, that network's password step for that person pauses; every other
 *   network (the owner's) signs in as before, so knowing an address is not enough to keep its
 *   owner out. A right password from the network, a reset or the unlock link from it, starts it
 *   again.
 * - Codes (the second step, after a right password): per person, whoever sends them (on the
 *   person's row). Only someone who knows the password reaches it, and a per-network count
 *   would let them guess codes from many networks. A right code, a new password (which shuts
 *   out whoever knew the old one) or the unlock link starts it again; a right password never
 *   does, or knowing the password would mean guessing codes without end.
 *
 * Neither refills with time: from the 10th failure in a row, a pause of 1 minute, doubling with
 * each further failure up to a day. Attempts during a pause are refused without being checked
 * or counted.
 */
import { and, eq, sql } from "drizzle-orm";
import { sha256Hex } from "../digest";
import type { ControlDb } from "./db";
import { signInFailures, users } from "./schema";

export const LOCKOUT_AFTER = 10;
export const FIRST_PAUSE_MS = 60_000;
export const MAX_PAUSE_MS = 86_400_000;

export type FailureKind = "password" | "code";

/** The pause after the `failures`-th failure in a row (0 below 10): 1 minute, doubling, at most a day. */
export function pauseAfter(failures: number): number {
  if (failures < LOCKOUT_AFTER) return 0;
  return Math.min(MAX_PAUSE_MS, FIRST_PAUSE_MS * 2 ** Math.min(failures - LOCKOUT_AFTER, 20));
}

const running = (until: string | null, now: Date) => (until && until > now.toISOString() ? new Date(until) : null);

// ------------------------------------------------------------------ the client

/**
 * The network a client address stands for: an IPv4 address itself; an IPv6 address's /64 (one
 * subscriber's usual allocation: counting single IPv6 addresses would give one client 2^64
 * fresh budgets). Anything else (no address: local development) is kept as given.
 */
export function clientNetwork(address: string): string {
  const ip = address.trim().toLowerCase();
  if (!ip.includes(":")) return ip;
  const [head, tail = ""] = ip.replace(/%.*$/, "").split("::");
  const left = head ? head.split(":") : [];
  const right = ip.includes("::") && tail ? tail.split(":") : [];
  // An embedded IPv4 tail (::ffff:192.0.2.1) counts as two groups; only the first four groups matter here.
  const groups = [...left, ...Array(Math.max(0, 8 - left.length - right.length)).fill("0"), ...right];
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, "") || "0")
    .join(":")}::/64`;
}

/** The stored name of a (person, network) pair: no address in clear, and pairs of different people never share a value. */
export const clientKey = (userId: number, network: string) => sha256Hex(`${userId} ${network}`);

// ------------------------------------------------------------------ passwords, per (person, network)

/**
 * Where the password step of a person from a network stands: its failures in a row and the end
 * of its pause when one is running. One read, made for an unknown address too (`userId` null),
 * so the statements before the answer do not tell an account from no account.
 */
export async function passwordStanding(db: ControlDb, userId: number | null, network: string, now: Date) {
  const row = await db
    .select({ failures: signInFailures.failures, lockedUntil: signInFailures.lockedUntil })
    .from(signInFailures)
    .where(and(eq(signInFailures.userId, userId ?? 0), eq(signInFailures.client, await clientKey(userId ?? 0, network))))
    .get();
  return { failures: row?.failures ?? 0, pausedUntil: running(row?.lockedUntil ?? null, now) };
}

/**
 * Counts one wrong password from the network (one upsert, so two at once both count). Answers
 * the count and the pause it set; `justLocked` is true exactly once per streak (the 10th), when
 * the one mail to the owner goes out.
 */
export async function recordPasswordFailure(db: ControlDb, userId: number, network: string, now: Date) {
  const client = await clientKey(userId, network);
  const at = now.toISOString();
  const [row] = await db
    .insert(signInFailures)
    .values({ userId, client, failures: 1, lastAt: at })
    .onConflictDoUpdate({ target: [signInFailures.userId, signInFailures.client], set: { failures: sql`${signInFailures.failures} + 1`, lastAt: at } })
    .returning({ failures: signInFailures.failures });
  const failures = row?.failures ?? 0;
  const pause = pauseAfter(failures);
  const until = pause ? new Date(now.getTime() + pause) : null;
  if (until)
    await db
      .update(signInFailures)
      .set({ lockedUntil: until.toISOString() })
      .where(and(eq(signInFailures.userId, userId), eq(signInFailures.client, client)));
  return { failures, until, justLocked: failures === LOCKOUT_AFTER };
}

/**
 * A right password from the network, or the mailbox proven from it (a reset, the unlock link):
 * its count and pause go. `client` is the pair's `clientKey` (computed first: a drizzle query is
 * a thenable, which an async function would run instead of answering).
 */
export const clearPasswordFailuresStatement = (db: ControlDb, userId: number, client: string) =>
  db.delete(signInFailures).where(and(eq(signInFailures.userId, userId), eq(signInFailures.client, client)));

/** The same, run on its own. */
export async function clearPasswordFailures(db: ControlDb, userId: number, network: string) {
  await clearPasswordFailuresStatement(db, userId, await clientKey(userId, network));
}

// ------------------------------------------------------------------ codes, per person

/** The end of the person's code pause when it is still running at `now`, else null. */
export const codePausedUntil = (user: { lockedUntil: string | null }, now: Date) => running(user.lockedUntil, now);

/** Counts one wrong code of the person, whoever sent it (one conditional update, so two at once both count). */
export async function recordCodeFailure(db: ControlDb, userId: number, now: Date) {
  const [row] = await db
    .update(users)
    .set({ codeFailures: sql`${users.codeFailures} + 1` })
    .where(eq(users.id, userId))
    .returning({ failures: users.codeFailures });
  const failures = row?.failures ?? 0;
  const pause = pauseAfter(failures);
  const until = pause ? new Date(now.getTime() + pause) : null;
  if (until) await db.update(users).set({ lockedUntil: until.toISOString() }).where(eq(users.id, userId));
  return { failures, until, justLocked: failures === LOCKOUT_AFTER };
}

/** The code budget starts again (a right code, a new password, the unlock link): count 0, no pause. */
export const clearCodeFailuresStatement = (db: ControlDb, userId: number) => db.update(users).set({ codeFailures: 0, lockedUntil: null }).where(eq(users.id, userId));

/** A right code: the count starts again (written only when there was one, or a pause). */
export async function recordCodeSuccess(db: ControlDb, user: { id: number; codeFailures: number; lockedUntil: string | null }) {
  if (user.codeFailures === 0 && !user.lockedUntil) return;
  await clearCodeFailuresStatement(db, user.id);
}
