/** Mail: the Email Sending binding in the Workers pool, the local outbox, failed sends retried once, both parts in every mail, the dev mailbox page. */

import { createExecutionContext, createScheduledController, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { describe, expect, it, vi } from "vitest";
import { createApp } from "../../src/app";
import { controlDb } from "../../src/control/db";
import { mailOutbox } from "../../src/control/schema";
import worker from "../../src/index";
import { withRequestHost } from "../../src/local-host";
import type { Mail } from "../../src/mail/message";
import { outbox, retryMails, sendMail } from "../../src/mail/send";
import * as templates from "../../src/mail/templates";
import { dash } from "../helpers/dashboard";
import { sendingEnv } from "../helpers/mail";

const mail = (to: string): Mail => templates.resetMail(to, { link: "https://dash.test/reset/abc" });
const unique = (what: string) => `${what}-${Date.now()}-${Math.floor(Math.random() * 1e6)}@example.com`;
const rows = (to: string) => controlDb(env.DB).select().from(mailOutbox).where(eq(mailOutbox.to, to));

describe("sending", () => {
  it("goes through the EMAIL binding (the builder form, sender EMAIL_FROM) when DEV_MAILBOX is off, keeping nothing", async () => {
    expect(env.EMAIL).toBeDefined();
    const to = unique("binding");
    // The real binding of the pool, watched: it answers a messageId.
    const send = vi.fn((message: Parameters<SendEmail["send"]>[0]) => env.EMAIL!.send(message as never));
    const answers: unknown[] = [];
    const watched = sendingEnv(
      async (m: never) => {
        answers.push(await send(m));
        return answers.at(-1);
      },
      { EMAIL_FROM: "mail@transync.test" },
    );
    expect(await sendMail(watched, mail(to))).toBe("sent");
    expect(send).toHaveBeenCalledWith({
      from: "mail@transync.test",
      to,
      subject: "Choose a new Transync password",
      text: expect.stringContaining("https://dash.test/reset/abc"),
      html: expect.stringContaining('<a href="https://dash.test/reset/abc"'),
    });
    expect(answers[0]).toMatchObject({ messageId: expect.any(String) });
    expect(await rows(to)).toEqual([]);
  });

  it("without the binding, or with DEV_MAILBOX=true, keeps mails in the local outbox", async () => {
    const a = unique("nobinding");
    const b = unique("devmailbox");
    // (wrangler.toml declares the binding in every environment; the code still copes without it.)
    expect(await sendMail({ ...env, DEV_MAILBOX: undefined, EMAIL: undefined } as unknown as Env, mail(a))).toBe("outbox");
    expect(await sendMail({ ...env, DEV_MAILBOX: "true" }, mail(b))).toBe("outbox");
    expect((await outbox(env, { to: a }))[0]).toMatchObject({ kind: "reset", status: "outbox", subject: "Choose a new Transync password" });
    expect(await outbox(env, { to: b })).toHaveLength(1);
  });

  it("never fails the action: a refused send is logged and kept, the cron retries it once", async () => {
    const to = unique("flaky");
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    const failing = sendingEnv(async () => {
      throw new Error("sender domain not onboarded");
    });
    expect(await sendMail(failing, mail(to))).toBe("retry");
    expect(errors.mock.calls.some(([line]) => String(line).includes('"event":"mail.failed"'))).toBe(true);
    expect((await rows(to))[0]).toMatchObject({ status: "retry", attempts: 1, lastError: expect.stringContaining("not onboarded") });

    // The retry that fails too gives up (logged), and is never tried a third time.
    await retryMails(failing);
    expect((await rows(to))[0]).toMatchObject({ status: "failed", attempts: 2 });
    const send = vi.fn(async () => ({ messageId: "x" }));
    await retryMails(sendingEnv(send));
    expect(send.mock.calls.filter((c) => JSON.stringify(c).includes(to))).toEqual([]);

    // One that works on the retry is sent.
    const later = unique("later");
    await sendMail(failing, mail(later));
    await retryMails(sendingEnv(send));
    expect(send).toHaveBeenCalledWith(expect.objectContaining({ to: later }));
    expect((await rows(later))[0]).toMatchObject({ status: "sent", attempts: 2 });
    errors.mockRestore();
  });
});

describe("every mail", () => {
  it("has a text and an HTML part saying the same, with links under the dashboard's address", () => {
    const base = "https://dash.test";
    const all: Mail[] = [
      templates.invitationMail("a@example.com", { organization: "Acme <b>", role: "admin", link: `${base}/invitations/t`, expiresAt: "2026-12-01T10:00:00.000Z" }),
      templates.verifyMail("a@example.com", { link: `${base}/verify/t` }),
      templates.alreadyRegisteredMail("a@example.com", { signIn: base, forgot: `${base}/forgot` }),
      templates.resetMail("a@example.com", { link: `${base}/reset/t` }),
      templates.twoFactorMail("a@example.com", { on: true, account: `${base}/account` }),
      templates.jobFinishedMail("a@example.com", { site: "Blog", jobId: 3, status: "succeeded", done: 5, total: 5, held: 1, link: `${base}/sites/1` }),
      templates.digestMail("a@example.com", { sites: [{ name: "Blog", count: 2, link: `${base}/sites/1/attention` }], account: `${base}/account` }),
      templates.usageMail("a@example.com", { organization: "Acme", percent: 80, used: 800, included: 1000, month: "2026-11", link: `${base}/organizations/1/usage` }),
    ];
    for (const m of all) {
      expect(m.text.length, m.kind).toBeGreaterThan(50);
      expect(m.html, m.kind).toMatch(/^<!DOCTYPE html>.*<\/html>$/s);
      const links = [...m.text.matchAll(/https?:\/\/\S+/g)].map((x) => x[0]);
      expect(links.length, m.kind).toBeGreaterThan(0);
      for (const link of links) {
        expect(link.startsWith(base), link).toBe(true);
        expect(m.html, m.kind).toContain(link);
      }
      expect(m.html).not.toContain("<b>"); // text is escaped in the HTML part
    }
  });
});

describe("/dashboard/dev/mail", () => {
  it("shows the outbox when DEV_MAILBOX is true, with each mail's HTML part under its own policy", async () => {
    const to = unique("viewer");
    await sendMail(env, mail(to));
    const page = await dash("GET", "/dashboard/dev/mail");
    expect(page.status).toBe(200);
    expect(page.html).toContain(to);
    const id = new RegExp(`${to.replace(/[.]/g, "\\.")}[\\s\\S]*?dev/mail/(\\d+)/html`).exec(page.html)![1];
    const html = await dash("GET", `/dashboard/dev/mail/${id}/html`);
    expect(html.html).toContain("Choose a new password");
    expect(html.headers.get("content-security-policy")).toContain("sandbox");
  });

  it("is 404 unless DEV_MAILBOX is true", async () => {
    const app = createApp();
    for (const value of [undefined, "false", "1"]) {
      const res = await app.fetch(new Request("https://api.test/dashboard/dev/mail"), { ...env, DEV_MAILBOX: value }, createExecutionContext());
      expect(res.status, String(value)).toBe(404);
      expect((await app.fetch(new Request("https://api.test/dashboard/dev/mail/1/html"), { ...env, DEV_MAILBOX: value }, createExecutionContext())).status).toBe(404);
    }
  });

  it("answers 404 to a host that is not local, even with DEV_MAILBOX=true, and logs the ignored flag once", async () => {
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    const app = createApp();
    const on = { ...env, DEV_MAILBOX: "true" };
    for (const host of ["api.transync.example", "transync.example.com", "192.0.2.10", "localhost.example.com"]) {
      expect((await app.fetch(new Request(`https://${host}/dashboard/dev/mail`), on, createExecutionContext())).status, host).toBe(404);
      expect((await app.fetch(new Request(`https://${host}/dashboard/dev/mail/1/html`), on, createExecutionContext())).status, host).toBe(404);
    }
    for (const host of ["127.0.0.1:8787", "localhost:8787", "[::1]:8787", "api.test"])
      expect((await app.fetch(new Request(`http://${host}/dashboard/dev/mail`), on, createExecutionContext())).status, host).toBe(200);
    const ignored = errors.mock.calls.map(([line]) => JSON.parse(String(line))).filter((l) => l.event === "config.dev_flag_ignored");
    expect(ignored.length).toBeLessThanOrEqual(1); // once per isolate (another test may have logged it first)
    errors.mockRestore();
  });

  it("DEV_MAILBOX is honoured only for a local host: a request to a public host sends through the binding", async () => {
    const send = vi.fn(async () => ({ messageId: "x" }));
    const to = unique("public-host");
    const configured = sendingEnv(send, { DEV_MAILBOX: "true", EMAIL_FROM: "mail@transync.test" });
    // No request (a cron): the host is DASHBOARD_URL's.
    expect(await sendMail({ ...configured, DASHBOARD_URL: "https://api.transync.example/dashboard" }, mail(to))).toBe("sent");
    expect(await sendMail({ ...configured, DASHBOARD_URL: "https://dash.test" }, mail(to))).toBe("outbox");
    expect(await sendMail({ ...configured, DASHBOARD_URL: undefined }, mail(to))).toBe("outbox");
    // Within a request: the request's host decides.
    expect(await withRequestHost("api.transync.example", () => sendMail({ ...configured, DASHBOARD_URL: undefined }, mail(to)))).toBe("sent");
    expect(await withRequestHost("127.0.0.1", () => sendMail(configured, mail(to)))).toBe("outbox");
    expect(send).toHaveBeenCalledTimes(2);
  });

  it("without EMAIL_FROM nothing is sent from a made-up address: the send fails, is logged and kept for the retry", async () => {
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    const send = vi.fn(async () => ({ messageId: "x" }));
    const to = unique("nofrom");
    expect(await sendMail(sendingEnv(send, { EMAIL_FROM: undefined }), mail(to))).toBe("retry");
    expect(send).not.toHaveBeenCalled();
    expect((await rows(to))[0]).toMatchObject({ status: "retry", lastError: expect.stringContaining("EMAIL_FROM is not set") });
    errors.mockRestore();
  });

  it("the 15-minute cron runs the retries (not month close); the daily one does not touch mail", async () => {
    const logs = vi.spyOn(console, "log").mockImplementation(() => {});
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    const failing = sendingEnv(async () => {
      throw new Error("down");
    });
    const to = unique("cron");
    await sendMail(failing, mail(to));
    const send = vi.fn(async () => ({ messageId: "x" }));
    const working = sendingEnv(send, { EMAIL_FROM: "mail@transync.test" });
    const run = async (cron: string) => {
      const ctx = createExecutionContext();
      await worker.scheduled!(createScheduledController({ scheduledTime: new Date(), cron }), working, ctx);
      await waitOnExecutionContext(ctx);
    };

    // Month close's cron (nothing to close in this month) leaves the mail waiting.
    await run("20 0 * * *");
    expect((await rows(to))[0]).toMatchObject({ status: "retry", attempts: 1 });
    const mailRun = () => logs.mock.calls.some(([line]) => String(line).includes('"event":"cron.run"') && String(line).includes('"mail":'));
    expect(mailRun()).toBe(false);

    await run("*/15 * * * *");
    expect((await rows(to))[0]).toMatchObject({ status: "sent", attempts: 2 });
    expect(send).toHaveBeenCalledWith(expect.objectContaining({ to }));
    expect(mailRun()).toBe(true);
    logs.mockRestore();
    errors.mockRestore();
  });
});
