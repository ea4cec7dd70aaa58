/** The local outbox (DEV_MAILBOX=true in the test pool): mails as the tests read them. */
import { env } from "cloudflare:workers";
import { outbox } from "../../src/mail/send";

/**
 * Mails to an address, oldest first. Some are sent after the answer (waitUntil), so this waits
 * for at least `atLeast` of them (a bounded poll, not a timing assertion).
 */
export async function mailsTo(to: string, atLeast = 1, kind?: string) {
  const read = async () => (await outbox(env, { to })).filter((m) => !kind || m.kind === kind);
  for (let i = 0; i < 100; i++) {
    const mails = await read();
    if (mails.length >= atLeast) return mails;
    await new Promise((r) => setTimeout(r, 20));
  }
  return read();
}

/** The pool's bindings with DEV_MAILBOX off (unless `extra` says otherwise) and an EMAIL binding that sends through `send`. */
export const sendingEnv = (send: (message: never) => unknown, extra: Partial<Env> = {}) => ({ ...env, DEV_MAILBOX: "false", ...extra, EMAIL: { send } as unknown as SendEmail });

/** A one-time link in a mail's text (DASHBOARD_URL is https://dash.test in tests): `https://dash.test/<path>#<token>`. */
export function linkIn(text: string, path: string): string {
  const m = new RegExp(`https://dash\\.test/${path}(\\?[^#\\s]*)?#[A-Za-z0-9_-]+`).exec(text);
  if (!m) throw new Error(`no /${path}#… link in: ${text}`);
  return m[0];
}

/** The token of a one-time link in a mail's text. */
export const tokenIn = (text: string, path: string) => new URL(linkIn(text, path)).hash.slice(1);
