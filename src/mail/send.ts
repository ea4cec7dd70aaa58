/**
 * Delivering mail (DESIGN.md "Accounts and email"). Through the Email Sending binding
 * (`env.EMAIL.send`, the builder form, sender `EMAIL_FROM`); without the binding, or with
 * `DEV_MAILBOX=true`, into the local outbox (a D1 table shown at /dashboard/dev/mail).
 *
 * Sending never fails the action that caused it: a send the binding refuses is logged and
 * kept as `retry`; the Worker's cron (every 15 minutes, `retryMails`) tries each once more,
 * then marks it `sent` or `failed` (logged again, given up).
 */
import { and, asc, eq, lt } from "drizzle-orm";
import type { QueryBudget } from "../control/budget";
import { controlDb } from "../control/db";
import { mailOutbox } from "../control/schema";
import type { Mail } from "./message";

export type Delivery = "sent" | "outbox" | "retry";
const DEFAULT_FROM = "noreply@transync.example";

export const devMailbox = (env: Env) => env.DEV_MAILBOX === "true" || !env.EMAIL;

async function viaBinding(env: Env, mail: Mail) {
  await env.EMAIL!.send({ from: env.EMAIL_FROM || DEFAULT_FROM, to: mail.to, subject: mail.subject, text: mail.text, html: mail.html });
}

const logFailure = (mail: Mail, err: unknown, final: boolean) =>
  console.error(JSON.stringify({ level: "error", where: "mail", kind: mail.kind, final, error: String(err).slice(0, 300) }));

/** Sends one mail; never throws (a failure of the outbox itself is logged too). */
export async function sendMail(env: Env, mail: Mail, now = new Date()): Promise<Delivery> {
  const db = controlDb(env.DB);
  const row = { kind: mail.kind, to: mail.to, subject: mail.subject, text: mail.text, html: mail.html, createdAt: now.toISOString() };
  try {
    if (devMailbox(env)) {
      await db.insert(mailOutbox).values({ ...row, status: "outbox" });
      return "outbox";
    }
    try {
      await viaBinding(env, mail);
      return "sent";
    } catch (err) {
      logFailure(mail, err, false);
      await db.insert(mailOutbox).values({ ...row, status: "retry", attempts: 1, lastError: String(err).slice(0, 500) });
      return "retry";
    }
  } catch (err) {
    logFailure(mail, err, true);
    return "retry";
  }
}

/** Sends several (each on its own: one failure does not stop the others). */
export async function sendMails(env: Env, mails: Mail[], now = new Date()) {
  return Promise.all(mails.map((m) => sendMail(env, m, now)));
}

/** The cron's second try of each failed send (once: then `sent` or `failed`). Answers how many went out. */
export async function retryMails(env: Env, limit = 50, budget?: QueryBudget): Promise<{ sent: number; failed: number }> {
  if (devMailbox(env)) return { sent: 0, failed: 0 };
  if (budget && !budget.allows(limit + 1)) return { sent: 0, failed: 0 };
  const db = controlDb(env.DB);
  const due = await db
    .select()
    .from(mailOutbox)
    .where(and(eq(mailOutbox.status, "retry"), lt(mailOutbox.attempts, 2)))
    .orderBy(asc(mailOutbox.id))
    .limit(limit);
  let sent = 0;
  let failed = 0;
  for (const row of due) {
    const mail = { kind: row.kind, to: row.to, subject: row.subject, text: row.text, html: row.html } as Mail;
    try {
      await viaBinding(env, mail);
      // Delivered: the copy is no longer needed (only the local outbox keeps mails to read).
      await db
        .update(mailOutbox)
        .set({ status: "sent", attempts: row.attempts + 1, text: "", html: "" })
        .where(eq(mailOutbox.id, row.id));
      sent++;
    } catch (err) {
      logFailure(mail, err, true);
      await db
        .update(mailOutbox)
        .set({ status: "failed", attempts: row.attempts + 1, lastError: String(err).slice(0, 500) })
        .where(eq(mailOutbox.id, row.id));
      failed++;
    }
  }
  return { sent, failed };
}

/** The local outbox, oldest first (the dev mailbox page reverses it; tests read it in order). */
export async function outbox(env: Env, opts: { to?: string; limit?: number } = {}) {
  const db = controlDb(env.DB);
  const where = opts.to ? and(eq(mailOutbox.status, "outbox"), eq(mailOutbox.to, opts.to.toLowerCase())) : eq(mailOutbox.status, "outbox");
  return db
    .select()
    .from(mailOutbox)
    .where(where)
    .orderBy(asc(mailOutbox.id))
    .limit(opts.limit ?? 100);
}
