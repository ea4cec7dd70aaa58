/**
 * Delivering mail (docs/accounts-and-mail.md "Mail"; docs/decisions.md "Accounts, the dashboard and mail"). Through the Email Sending binding
 * (`env.EMAIL.send`, the builder form, sender `EMAIL_FROM`); without the binding, or with
 * `DEV_MAILBOX=true`, into the local outbox (a D1 table shown at /dashboard/dev/mail).
 *
 * Sending never fails the action that caused it: a send the binding refuses is logged and
 * kept as `retry`; the Worker's cron (every 15 minutes, `retryMails`) tries each once more,
 * then marks it `sent` or `failed` (logged again, given up).
 */
import { and, asc, eq, lt, sql } from "drizzle-orm";
import type { QueryBudget } from "../control/budget.control";
import { controlDb } from "../control/db";
import { mailOutbox } from "../control/schema";
import { devMailboxOn } from "../local-host";
import { log, redactError } from "../obs/log";
import { record } from "../obs/metrics";
import type { Mail } from "./message";

export type Delivery = "sent" | "outbox" | "retry";

/** Mail stays in the local outbox with DEV_MAILBOX=true (only where it applies: src/local-host.ts) or without the binding. */
export const devMailbox = (env: Env) => devMailboxOn(env) || !env.EMAIL;

/**
 * No default sender: an example address would be refused by the binding's allowed_sender_addresses
 * (or, worse, accepted), so without EMAIL_FROM a send fails like any refused one (logged, kept for
 * the retry) and the deployed environment's configuration says which address (wrangler.toml).
 */
async function viaBinding(env: Env, mail: Mail) {
  if (!env.EMAIL_FROM) throw new Error("EMAIL_FROM is not set: the sender address of every mail (wrangler.toml [env.<name>.vars])");
  await env.EMAIL!.send({ from: env.EMAIL_FROM, to: mail.to, subject: mail.subject, text: mail.text, html: mail.html });
}

/** `mail.failed`: the kind of mail and whether it is given up; never its address, subject or body. */
const logFailure = (env: Env, mail: Mail, err: unknown, final: boolean) => record(env, "error", "mail.failed", { code: mail.kind, final, error: redactError(err) });
const logSent = (env: Env, mail: Mail, via: "binding" | "outbox") => record(env, "info", "mail.sent", { code: mail.kind, via });

/** A mail with links that cannot go: no DASHBOARD_URL outside local development (src/links.ts `mailBase`). Logged, never sent. */
export function noMailBase(kind: Mail["kind"]) {
  log("error", "mail.no_dashboard_url", { kind, reason: "DASHBOARD_URL is not set, and mail links never follow a request's Host: set DASHBOARD_URL" });
}

/** Sends one mail; never throws (a failure of the outbox itself is logged too). */
export async function sendMail(env: Env, mail: Mail, now = new Date()): Promise<Delivery> {
  const db = controlDb(env.DB);
  const row = { kind: mail.kind, to: mail.to, subject: mail.subject, text: mail.text, html: mail.html, createdAt: now.toISOString() };
  try {
    if (devMailbox(env)) {
      await db.insert(mailOutbox).values({ ...row, status: "outbox" });
      logSent(env, mail, "outbox");
      return "outbox";
    }
    try {
      await viaBinding(env, mail);
      logSent(env, mail, "binding");
      return "sent";
    } catch (err) {
      logFailure(env, mail, err, false);
      await db.insert(mailOutbox).values({ ...row, status: "retry", attempts: 1, lastError: String(err).slice(0, 500) });
      return "retry";
    }
  } catch (err) {
    logFailure(env, mail, err, true);
    return "retry";
  }
}

/** Sends several (each on its own: one failure does not stop the others); into the outbox, all in one statement (a cron's page of mails costs one D1 query). */
export async function sendMails(env: Env, mails: Mail[], now = new Date()): Promise<Delivery[]> {
  if (mails.length > 1 && devMailbox(env)) {
    try {
      const rows = mails.map((m) => ({ kind: m.kind, to: m.to, subject: m.subject, text: m.text, html: m.html, created_at: now.toISOString() }));
      // 50 a statement: a mail is a few KB, and a bound value stays far below D1's 2 MB.
      for (let i = 0; i < rows.length; i += 50)
        await controlDb(env.DB).run(sql`
          INSERT INTO ${mailOutbox} (kind, "to", subject, text, html, created_at, status)
          SELECT json_extract(value, '$.kind'), json_extract(value, '$.to'), json_extract(value, '$.subject'), json_extract(value, '$.text'),
            json_extract(value, '$.html'), json_extract(value, '$.created_at'), 'outbox'
          FROM json_each(${JSON.stringify(rows.slice(i, i + 50))})`);
      for (const mail of mails) logSent(env, mail, "outbox");
      return mails.map(() => "outbox");
    } catch (err) {
      for (const mail of mails) logFailure(env, mail, err, true);
      return mails.map(() => "retry");
    }
  }
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
      logSent(env, mail, "binding");
      sent++;
    } catch (err) {
      logFailure(env, mail, err, true);
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
