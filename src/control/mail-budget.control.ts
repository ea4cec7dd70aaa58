/**
 * How many mails a person or an outsider can make the service send (docs/decisions.md
 * "Accounts, the dashboard and mail"): each mail counts against a few budgets, each
 * a sliding 24-hour window in D1 (`mail_budget`). A mail is sent only when every budget it
 * counts against has room; the answer otherwise says when the first of them has room again.
 */
import { and, count, gt, inArray, lte, min } from "drizzle-orm";
import type { ControlDb } from "./db";
import { mailBudget } from "./schema";

const DAY_MS = 86_400_000;

/** The budgets, a day each. */
export const MAIL_LIMITS = {
  /** Invitations and resends of one organization: a team invites a handful a day; a relay would need hundreds. */
  organization: 50,
  /** Invitations and resends by one person (or one operator token). */
  inviter: 20,
  /** Invitations and resends to one address from one organization: the first, a resend, one more. */
  invitee: 3,
  /** Invitations and resends to one address from every organization together (sign-up makes organizations cheap). */
  address: 10,
  /** Sign-up's "you already have an account" mails to one address. */
  alreadyRegistered: 3,
  /** Password reset links to one address: asking a few times is normal; 20 in a minute is a mailbox flooded. */
  reset: 5,
  /** Verification links to one address (sign-up's first mail, second sign-ups and "send it again" together). */
  verify: 5,
  /** Unlock mails to one person: one per network that reaches 10 wrong passwords, so many networks cannot flood the mailbox. */
  lockout: 3,
} as const;

export interface Budget {
  key: string;
  max: number;
}

export type Spent = { ok: true } | { ok: false; budget: string; retryAfterSeconds: number };

/**
 * Counts one mail against each budget when all have room; else counts nothing and says which
 * budget is spent and in how many seconds its oldest mail leaves the window. Two requests at the
 * same instant may both pass the check (D1 runs them one after the other, but check and insert
 * are two statements): a budget can be exceeded by the requests in flight, never more.
 */
export async function spendMailBudget(db: ControlDb, budgets: Budget[], now: Date): Promise<Spent> {
  const since = new Date(now.getTime() - DAY_MS).toISOString();
  const keys = budgets.map((b) => b.key);
  const rows = await db
    .select({ key: mailBudget.key, n: count(), oldest: min(mailBudget.at) })
    .from(mailBudget)
    .where(and(inArray(mailBudget.key, keys), gt(mailBudget.at, since)))
    .groupBy(mailBudget.key);
  for (const b of budgets) {
    const row = rows.find((r) => r.key === b.key);
    if (row && row.n >= b.max) {
      const retryAfterSeconds = Math.max(1, Math.ceil((Date.parse(row.oldest ?? now.toISOString()) + DAY_MS - now.getTime()) / 1000));
      return { ok: false, budget: b.key, retryAfterSeconds };
    }
  }
  const at = now.toISOString();
  await db.batch([
    db.insert(mailBudget).values(budgets.map((b) => ({ key: b.key, at }))),
    // What left the window is forgotten (keys hold addresses); the table holds a day of these mails at most.
    db.delete(mailBudget).where(lte(mailBudget.at, since)),
  ]);
  return { ok: true };
}
