/**
 * The daily clean-up (docs/decisions.md "Going live"): expired sessions, account tokens and
 * invitations, sign-in failure counts and mails older than 30 days, Stripe events older than 90 days (a replay that old is
 * refused by Stripe's signature tolerance anyway) and the cursors of finished cron days. Each
 * statement deletes at most CLEANUP_PAGE rows, repeated while rows remain and the invocation's
 * D1 budget lasts; what is left waits for the next day's run (or the next invocation).
 */
import { type SQL, sql } from "drizzle-orm";
import type { QueryBudget } from "../control/budget.control";
import { forgetCursors } from "../control/cron-cursors.control";
import type { ControlDb } from "../control/db";
import { accountTokens, invitations, mailOutbox, sessions, signInFailures, stripeEvents } from "../control/schema";

export const CLEANUP_PAGE = 500;
const DAY = 86_400_000;
export const MAIL_KEEP_DAYS = 30;
export const STRIPE_EVENT_KEEP_DAYS = 90;
/** A network's wrong passwords for an account are forgotten a month after the last one (control/lockout.control.ts): the pause never exceeds a day. */
export const SIGN_IN_FAILURE_KEEP_DAYS = 30;

export async function cleanUp(db: ControlDb, now: Date, budget: QueryBudget) {
  const iso = now.toISOString();
  const before = (days: number) => new Date(now.getTime() - days * DAY).toISOString();
  const tasks: [string, SQL][] = [
    ["sessions", sql`DELETE FROM ${sessions} WHERE rowid IN (SELECT rowid FROM ${sessions} WHERE ${sessions.expiresAt} < ${iso} LIMIT ${CLEANUP_PAGE})`],
    ["account_tokens", sql`DELETE FROM ${accountTokens} WHERE rowid IN (SELECT rowid FROM ${accountTokens} WHERE ${accountTokens.expiresAt} < ${iso} LIMIT ${CLEANUP_PAGE})`],
    [
      "invitations",
      sql`DELETE FROM ${invitations} WHERE rowid IN (SELECT rowid FROM ${invitations} WHERE ${invitations.expiresAt} < ${iso} AND ${invitations.acceptedAt} IS NULL LIMIT ${CLEANUP_PAGE})`,
    ],
    [
      "sign_in_failures",
      sql`DELETE FROM ${signInFailures} WHERE rowid IN (SELECT rowid FROM ${signInFailures} WHERE ${signInFailures.lastAt} < ${before(SIGN_IN_FAILURE_KEEP_DAYS)} LIMIT ${CLEANUP_PAGE})`,
    ],
    ["mails", sql`DELETE FROM ${mailOutbox} WHERE rowid IN (SELECT rowid FROM ${mailOutbox} WHERE ${mailOutbox.createdAt} < ${before(MAIL_KEEP_DAYS)} LIMIT ${CLEANUP_PAGE})`],
    [
      "stripe_events",
      sql`DELETE FROM ${stripeEvents} WHERE rowid IN (SELECT rowid FROM ${stripeEvents} WHERE ${stripeEvents.receivedAt} < ${before(STRIPE_EVENT_KEEP_DAYS)} LIMIT ${CLEANUP_PAGE})`,
    ],
  ];
  const removed: Record<string, number> = {};
  let unfinished = false;
  for (const [name, statement] of tasks) {
    removed[name] = 0;
    while (true) {
      if (!budget.allows(2)) {
        unfinished = true;
        break;
      }
      const n = (await db.run(statement)).meta.changes ?? 0;
      removed[name] += n;
      if (n < CLEANUP_PAGE) break;
    }
  }
  if (budget.allows(2)) {
    removed.cursors = (await forgetCursors(db, "digest:", before(7).slice(0, 10))) + (await forgetCursors(db, "month_close:", before(400).slice(0, 7)));
  }
  return { removed, unfinished };
}
