/**
 * Issue 47's findings (the third review), each reproduced first and failing on the code before
 * the fix: a first sign-up's password that outlived the owner's confirmation (medium), a lockout
 * that locked the owner out (medium), the password form without limit, reset and verification
 * mails without a daily budget and an existing account answering later (low), and one-time
 * tokens in request lines (low). The operator's name on every admin row is in
 * test/lifecycle/audit-actions.test.ts.
 */
import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import linkScript from "../../public/dashboard-link.js?raw";
import { controlDb } from "../../src/control/db";
import { clientNetwork, LOCKOUT_AFTER } from "../../src/control/lockout.control";
import { MAIL_LIMITS } from "../../src/control/mail-budget.control";
import { hashPassword } from "../../src/control/passwords.control";
import { NO_PASSWORD } from "../../src/control/people.control";
import { sessions, signInFailures, users } from "../../src/control/schema";
import { createSession } from "../../src/control/sessions.control";
import { newTotpSecret, totpCode } from "../../src/control/totp.control";
import { requestPasswordReset } from "../../src/ops/accounts.ops";
import { changePassword, type Defer, signIn } from "../../src/ops/sessions.ops";
import { beginSecondStep, completeSecondStep } from "../../src/ops/two-factor.ops";
import { DASHBOARD_CSP } from "../../src/page-headers";
import { admin, createSite } from "../helpers/api";
import { dash, openLink, person } from "../helpers/dashboard";
import { linkIn, mailsTo, tokenIn } from "../helpers/mail";

let n = 0;
const unique = (what = "owner") => `${what}-${++n}-${Date.now()}-${Math.floor(Math.random() * 1e6)}@third.example`;
const BASE = "https://dash.test";
const db = () => controlDb(env.DB);
const userOf = async (email: string) => (await db().select().from(users).where(eq(users.email, email)).get())!;
const from = (ip: string) => ({ "cf-connecting-ip": ip });
const signInFrom = (ip: string, email: string, password: string) => dash("POST", "/dashboard/sign-in", { form: { email, password }, headers: from(ip) });
let net = 0;
/** A fresh IPv4 network per call, so tests never share a budget by accident. */
const network = () => `198.18.${Math.floor(++net / 250) % 250}.${net % 250}`;

async function verifiedPerson(opts: { totp?: boolean } = {}) {
  const email = unique("budget");
  const secret = newTotpSecret();
  const [user] = await db()
    .insert(users)
    .values({ email, passwordHash: await hashPassword("the right password"), emailVerifiedAt: new Date().toISOString(), totpSecret: opts.totp ? secret : null })
    .returning();
  return { user, email, secret, password: "the right password" };
}

// ------------------------------------------------------------------ medium 1

describe("medium 1: the first sign-up's password cannot outlive the owner's confirmation", () => {
  it("sign-up stores no password (one posted is ignored); the owner chooses the only password when confirming, and the first signer's never opens the account", async () => {
    const email = unique();
    // Someone else signs up with the owner's address, posting a password of their own (the form has none any more).
    expect((await dash("POST", "/dashboard/sign-up", { form: { name: "Mallory", email, password: "the first signer's password" } })).status).toBe(200);
    const [mail] = await mailsTo(email, 1, "verify");
    expect((await userOf(email)).passwordHash).toBe(NO_PASSWORD);
    // The mail tells the owner what happened if it was not them.
    expect(mail.text).toContain("Someone signed up for Transync with this address");
    expect(mail.text).toContain("If it was not you, ignore this mail");

    // The owner confirms the unexpected mail: confirming is choosing the password.
    const { opened, token } = await openLink(linkIn(mail.text, "verify"));
    expect(opened.html).toContain("Choose a password");
    const confirmed = await dash("POST", "/dashboard/verify", { form: { token, name: "The owner", password: "the owner's own password" } });
    expect(confirmed.status).toBe(303);
    expect((await signInFrom(network(), email, "the first signer's password")).status).toBe(401);
    expect((await signInFrom(network(), email, "the owner's own password")).status).toBe(303);
  });

  it("confirming without choosing a password does nothing: the address stays unconfirmed and the link open", async () => {
    const email = unique();
    await dash("POST", "/dashboard/sign-up", { form: { name: "Owner", email } });
    const token = tokenIn((await mailsTo(email, 1, "verify"))[0].text, "verify");
    const bare = await dash("POST", "/dashboard/verify", { form: { token, name: "Owner" } });
    expect(bare.status).toBe(422);
    expect(bare.html).toContain("password: use at least 10 characters");
    expect((await userOf(email)).emailVerifiedAt).toBeNull();
    expect((await dash("POST", "/dashboard/verify", { form: { token, name: "Owner", password: "now with a password" } })).status).toBe(303);
  });

  it("a second sign-up for an unconfirmed address clears a stored password (an account signed up before this rule) and ends its sessions", async () => {
    const email = unique();
    // As the code before this rule left it: the first signer's password stored, a session of theirs.
    const [legacy] = await db()
      .insert(users)
      .values({ email, name: "Mallory", passwordHash: await hashPassword("the first signer's password") })
      .returning();
    const early = await createSession(db(), legacy.id);
    await dash("POST", "/dashboard/sign-up", { form: { name: "Owner", email } });
    await mailsTo(email, 1, "verify");
    expect((await userOf(email)).passwordHash).toBe(NO_PASSWORD);
    expect(await db().select().from(sessions).where(eq(sessions.userId, legacy.id))).toEqual([]);
    expect((await dash("GET", "/dashboard/account", { cookie: `__Host-transync_session=${early}` })).status).toBe(303);
  });

  it("a verification link of an account confirmed since (by a reset) changes nothing: no password, no second factor touched", async () => {
    const email = unique();
    await dash("POST", "/dashboard/sign-up", { form: { name: "Owner", email } });
    const verifyToken = tokenIn((await mailsTo(email, 1, "verify"))[0].text, "verify");
    await dash("POST", "/dashboard/forgot", { form: { email } });
    const resetToken = tokenIn((await mailsTo(email, 1, "reset"))[0].text, "reset");
    expect((await dash("POST", "/dashboard/reset", { form: { token: resetToken, new_password: "the owner's reset password" } })).status).toBe(303);
    await db().update(users).set({ totpSecret: newTotpSecret() }).where(eq(users.email, email));
    const late = await dash("POST", "/dashboard/verify", { form: { token: verifyToken, name: "Someone", password: "a password from the old link" } });
    expect(late.status).toBe(410);
    const row = await userOf(email);
    expect(row.totpSecret).not.toBeNull();
    expect((await signInFrom(network(), email, "a password from the old link")).status).toBe(401);
  });
});

// ------------------------------------------------------------------ medium 2

describe("medium 2: a lockout that does not lock out the owner", () => {
  it("ten wrong passwords from one network pause that network only: the owner's right password from elsewhere signs in", async () => {
    const p = await verifiedPerson();
    const attacker = network();
    for (let i = 0; i < LOCKOUT_AFTER; i++) expect((await signInFrom(attacker, p.email, `a wrong guess ${i}`)).status).toBe(401);
    await mailsTo(p.email, 1, "lockout"); // counted after the answers: the mail is the sign the 10th is written
    // The attacker's network is paused, even with the right password (answered as a wrong one; asked past the per-minute limit) …
    const later = (ms: number) => new Date(Date.now() + ms);
    const fromAttacker = (password: string, at: Date) => signIn(env, { email: p.email, password, next: "/dashboard", network: attacker }, BASE, at);
    expect(await fromAttacker(p.password, later(30_000))).toBeNull();
    // … while the owner signs in from their own network, as before.
    const owner = await signInFrom(network(), p.email, p.password);
    expect(owner.status).toBe(303);
    expect(owner.cookie).toMatch(/transync_session=/);
    // One wrong try each time the pause ends keeps only the attacker's network shut (1, 2, 4 … minutes).
    expect(await fromAttacker("wrong again", later(61_000))).toBeNull();
    expect(await fromAttacker(p.password, later(61_000 + 119_000))).toBeNull();
    expect((await signInFrom(network(), p.email, p.password)).status).toBe(303);
  });

  it("an IPv6 client's /64 is one network (rotating addresses inside it gives no fresh budget)", async () => {
    expect(clientNetwork("2001:DB8:0:1::a")).toBe("2001:db8:0:1::/64");
    expect(clientNetwork("2001:db8:0:1:ffff:1:2:3")).toBe("2001:db8:0:1::/64");
    expect(clientNetwork("2001:db8::1")).toBe("2001:db8:0:0::/64");
    expect(clientNetwork("::1")).toBe("0:0:0:0::/64");
    expect(clientNetwork("192.0.2.7")).toBe("192.0.2.7");
    const p = await verifiedPerson();
    const prefix = `2001:db8:${(++net).toString(16)}:1`;
    for (let i = 0; i < LOCKOUT_AFTER; i++) expect((await signInFrom(`${prefix}::${(i + 1).toString(16)}`, p.email, `wrong ${i}`)).status).toBe(401);
    // Counted after the answers: the pause's mail is the sign that the 10th is written.
    expect(await mailsTo(p.email, 1, "lockout")).toHaveLength(1);
    const rows = await db().select().from(signInFailures).where(eq(signInFailures.userId, p.user.id));
    expect(rows.map((r) => r.failures)).toEqual([LOCKOUT_AFTER]);
    expect(rows[0].lockedUntil).not.toBeNull();
    expect(rows[0].client).toMatch(/^[0-9a-f]{64}$/); // no address in clear
    expect(await signIn(env, { email: p.email, password: p.password, next: "/dashboard", network: clientNetwork(`${prefix}:ffff:ffff:ffff:ffff`) }, BASE, new Date())).toBeNull();
    expect((await signInFrom(`2001:db8:${net.toString(16)}:2::1`, p.email, p.password)).status).toBe(303);
  });

  it("codes keep an account-wide budget: ten wrong codes from ten networks pause the code step for everyone (only someone with the password reaches it)", async () => {
    const p = await verifiedPerson({ totp: true });
    const t0 = Date.now();
    const wrong = totpCode(p.secret, t0 - 3_600_000);
    for (let i = 0; i < LOCKOUT_AFTER; i++) {
      const step = await signIn(env, { email: p.email, password: p.password, next: "/dashboard", network: network() }, BASE, new Date(t0));
      expect(step?.kind).toBe("code");
      await expect(completeSecondStep(env, (step as { step: string }).step, wrong, BASE, new Date(t0))).rejects.toMatchObject({ status: 422 });
    }
    const step = await signIn(env, { email: p.email, password: p.password, next: "/dashboard", network: network() }, BASE, new Date(t0));
    await expect(completeSecondStep(env, (step as { step: string }).step, totpCode(p.secret, t0), BASE, new Date(t0))).rejects.toMatchObject({ status: 429 });
  });

  it("a right password never resets the code count: wrong codes, a right password, wrong codes again reach the pause at the 10th", async () => {
    const p = await verifiedPerson({ totp: true });
    const t0 = Date.now();
    const wrong = totpCode(p.secret, t0 - 3_600_000);
    const wrongCode = async () => {
      const step = await beginSecondStep(env, p.user.id, "/dashboard", new Date(t0));
      await expect(completeSecondStep(env, step, wrong, BASE, new Date(t0))).rejects.toMatchObject({ status: 422 });
    };
    for (let i = 0; i < 5; i++) await wrongCode();
    expect((await userOf(p.email)).codeFailures).toBe(5);
    // The password succeeds (sign-in, and the same check behind changing the password) while 5 code failures are pending.
    expect((await signIn(env, { email: p.email, password: p.password, next: "/dashboard", network: network() }, BASE, new Date(t0)))?.kind).toBe("code");
    expect((await userOf(p.email)).codeFailures).toBe(5);
    for (let i = 0; i < 5; i++) await wrongCode();
    expect((await userOf(p.email)).codeFailures).toBe(10);
    // The 10th in a row paused the code step: even the right code is refused unchecked now.
    const step = await beginSecondStep(env, p.user.id, "/dashboard", new Date(t0));
    await expect(completeSecondStep(env, step, totpCode(p.secret, t0), BASE, new Date(t0))).rejects.toMatchObject({ status: 429 });
  });

  it("the mailed link signs the owner in once, pause or not: with the password and, when two-factor is on, a code; a wrong one is counted and leaves it usable", async () => {
    const p = await verifiedPerson({ totp: true });
    const t0 = Date.now();
    for (let i = 0; i < LOCKOUT_AFTER; i++) {
      const step = await beginSecondStep(env, p.user.id, "/dashboard", new Date(t0));
      await completeSecondStep(env, step, totpCode(p.secret, t0 - 3_600_000), BASE, new Date(t0)).catch(() => {});
    }
    const [mail] = await mailsTo(p.email, 1, "lockout");
    expect(mail.text).toContain("someone knows your password");
    const { opened, token } = await openLink(linkIn(mail.text, "unlock"));
    expect(opened.status).toBe(200);
    expect(opened.html).toContain(p.email);
    expect(opened.html).toContain('name="code"');
    const unlock = (form: Record<string, string>) => dash("POST", "/dashboard/unlock", { form: { token, ...form } });
    expect((await unlock({ password: "not the password", code: totpCode(p.secret, t0) })).status).toBe(422);
    expect((await unlock({ password: p.password, code: "000000" })).status).toBe(422);
    const done = await unlock({ password: p.password, code: totpCode(p.secret, Date.now()) });
    expect(done.status).toBe(303);
    expect(done.location).toBe("/dashboard");
    expect((await dash("GET", "/dashboard/account", { cookie: done.cookie })).status).toBe(200);
    expect((await unlock({ password: p.password, code: totpCode(p.secret, Date.now() + 30_000) })).status).toBe(410); // once
  });

  it("unlock mails are budgeted: many networks each reaching 10 wrong passwords mail the owner at most 3 a day", async () => {
    const p = await verifiedPerson();
    for (let k = 0; k < MAIL_LIMITS.lockout + 2; k++) {
      const attacker = network();
      for (let i = 0; i < LOCKOUT_AFTER; i++) await signIn(env, { email: p.email, password: `wrong ${i}`, next: "/dashboard", network: attacker }, BASE, new Date());
    }
    expect(await mailsTo(p.email, MAIL_LIMITS.lockout + 1, "lockout")).toHaveLength(MAIL_LIMITS.lockout);
    expect(await db().select().from(signInFailures).where(eq(signInFailures.userId, p.user.id))).toHaveLength(MAIL_LIMITS.lockout + 2);
  });
});

// ------------------------------------------------------------------ low

describe("low: the password form, mail budgets and the failure count's timing", () => {
  it("POST /dashboard/account/password is behind the sign-in limiter: the 11th try in a minute is 429 with Retry-After, from whichever networks", async () => {
    const { orgId } = await createSite();
    const p = await person(orgId, "editor");
    const answers = [];
    // A stolen session, from a new network each time (so no network's own limit or pause is reached).
    for (let i = 0; i < 11; i++)
      answers.push(
        await dash("POST", "/dashboard/account/password", {
          cookie: p.cookie,
          headers: from(network()),
          form: { current_password: `guess ${i}`, new_password: "a brand new password" },
        }),
      );
    expect(answers.slice(0, 10).map((a) => a.status)).toEqual(Array(10).fill(422));
    expect(answers[10].status).toBe(429);
    expect(answers[10].headers.get("retry-after")).toBe("60");
  });

  it("… and the failure budget: 10 wrong current passwords pause that network's password checks; the right one is then refused unchecked", async () => {
    const p = await verifiedPerson();
    const me = { userId: p.user.id, tokenHash: "" };
    const ip = network();
    for (let i = 0; i < LOCKOUT_AFTER; i++)
      await expect(changePassword(env, me, { current: `guess ${i}`, next: "a brand new password", network: ip }, BASE)).rejects.toMatchObject({ status: 422 });
    await expect(changePassword(env, me, { current: p.password, next: "a brand new password", network: ip }, BASE)).rejects.toMatchObject({ status: 429 });
    expect((await signInFrom(ip, p.email, p.password)).status).toBe(401); // the same budget as sign-in's
    await changePassword(env, me, { current: p.password, next: "a brand new password", network: network() }, BASE);
  });

  it("reset mails have a daily budget per address: past it the same page is answered and nothing is sent, until the day has passed", async () => {
    const { orgId } = await createSite();
    const p = await person(orgId, "editor");
    const pages = [];
    for (let i = 0; i < MAIL_LIMITS.reset + 2; i++) pages.push((await dash("POST", "/dashboard/forgot", { form: { email: p.email } })).html.replace(/request_id[^"]*/g, ""));
    expect(new Set(pages).size).toBe(1);
    expect(await mailsTo(p.email, MAIL_LIMITS.reset + 1, "reset")).toHaveLength(MAIL_LIMITS.reset);
    await requestPasswordReset(env, p.email, BASE, new Date(Date.now() + 24 * 3_600_000 + 60_000));
    expect(await mailsTo(p.email, MAIL_LIMITS.reset + 1, "reset")).toHaveLength(MAIL_LIMITS.reset + 1);
  });

  it("verification mails have a daily budget per address (sign-up's first one, second sign-ups and resends together)", async () => {
    const email = unique();
    await dash("POST", "/dashboard/sign-up", { form: { name: "Owner", email } });
    const pages = [];
    for (let i = 0; i < MAIL_LIMITS.verify + 1; i++) pages.push((await dash("POST", "/dashboard/verify/resend", { form: { email } })).status);
    await dash("POST", "/dashboard/sign-up", { form: { name: "Owner", email } });
    expect(pages.every((s) => s === 200)).toBe(true);
    expect(await mailsTo(email, MAIL_LIMITS.verify + 2, "verify")).toHaveLength(MAIL_LIMITS.verify);
  });

  it("until the answer, a wrong password of an account runs exactly the statements an unknown address runs; the failure is written after", async () => {
    const p = await verifiedPerson();
    const run = async (email: string) => {
      const seen: string[] = [];
      const DB = new Proxy(env.DB, {
        get(target, prop) {
          if (prop === "prepare")
            return (sql: string) => {
              seen.push(sql);
              return target.prepare(sql);
            };
          const value = Reflect.get(target, prop);
          return typeof value === "function" ? value.bind(target) : value;
        },
      });
      const later: (() => Promise<unknown>)[] = [];
      const defer: Defer = (work) => later.push(work);
      const answer = await signIn({ ...env, DB }, { email, password: "a wrong password", next: "/dashboard", network: "192.0.2.99" }, BASE, new Date(), defer);
      const beforeAnswer = [...seen];
      for (const work of later) await work();
      return { answer, beforeAnswer, after: seen.slice(beforeAnswer.length) };
    };
    const unknown = await run(unique("nobody"));
    const known = await run(p.email);
    expect(known.answer).toBeNull();
    expect(unknown.answer).toBeNull();
    expect(known.beforeAnswer).toEqual(unknown.beforeAnswer);
    expect(known.beforeAnswer.some((sql) => /^(insert|update|delete)/i.test(sql))).toBe(false);
    expect(unknown.after).toEqual([]);
    expect(known.after.some((sql) => sql.startsWith('insert into "sign_in_failures"'))).toBe(true);
    expect((await db().select().from(signInFailures).where(eq(signInFailures.userId, p.user.id)))[0]?.failures).toBe(1);
  });
});

// ------------------------------------------------------------------ low: tokens out of request lines

describe("low: one-time tokens never in a request line", () => {
  /** Every link kind's mail, with the page's last step as a browser posts it. */
  async function mailedLinks(): Promise<{ kind: string; text: string; finish: { action: string; form: Record<string, string> } }[]> {
    const { orgId } = await createSite();
    const p = await person(orgId, "editor");
    await dash("POST", "/dashboard/forgot", { form: { email: p.email } });
    const signUpEmail = unique();
    await dash("POST", "/dashboard/sign-up", { form: { name: "Owner", email: signUpEmail } });
    const invitee = unique("invitee");
    await admin("POST", `/admin/v1/organizations/${orgId}/invitations`, { email: invitee, role: "editor" });
    const locked = await verifiedPerson();
    for (let i = 0; i < LOCKOUT_AFTER; i++) await signIn(env, { email: locked.email, password: `wrong ${i}`, next: "/dashboard", network: "192.0.2.200" }, BASE, new Date());
    return [
      { kind: "reset", text: (await mailsTo(p.email, 1, "reset"))[0].text, finish: { action: "/dashboard/reset", form: { new_password: "a brand new password" } } },
      {
        kind: "verify",
        text: (await mailsTo(signUpEmail, 1, "verify"))[0].text,
        finish: { action: "/dashboard/verify", form: { name: "Owner", password: "the owner's password" } },
      },
      { kind: "invitations", text: (await mailsTo(invitee, 1, "invitation"))[0].text, finish: { action: "/dashboard/invitations", form: { password: "the invitee's password" } } },
      { kind: "unlock", text: (await mailsTo(locked.email, 1, "lockout"))[0].text, finish: { action: "/dashboard/unlock", form: { password: locked.password } } },
    ];
  }

  it("each mailed link carries its token only in the fragment; following it to the end, no request line, Location, link or form action holds the token", async () => {
    for (const link of await mailedLinks()) {
      const url = new URL(linkIn(link.text, link.kind));
      const token = url.hash.slice(1);
      expect(token, link.kind).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(url.pathname + url.search, link.kind).not.toContain(token);
      // The code printed for a browser without JavaScript.
      expect(link.text, link.kind).toContain(`If the page asks for the code from this mail, copy this one:\n\n${token}`);

      const { landing, opened, lines } = await openLink(url.href);
      const done = await dash("POST", link.finish.action, { form: { token, ...link.finish.form } });
      expect(done.status, link.kind).toBe(303);
      lines.push(`POST ${link.finish.action}`);
      for (const line of lines) expect(line, link.kind).not.toContain(token);
      for (const page of [landing, opened, done]) {
        expect(page.location ?? "", link.kind).not.toContain(token);
        for (const m of page.html.matchAll(/(?:href|action)="([^"]*)"/g)) expect(m[1], link.kind).not.toContain(token);
      }
      // The token travels only as the hidden field of the opened page's form.
      expect(opened.html, link.kind).toContain(`<input type="hidden" name="token" value="${token}"/>`);
    }
  });

  it("the link's page works without JavaScript (a visible, labelled field for the code; a whole link pasted works too) and allows only its own script", async () => {
    const { orgId } = await createSite();
    const p = await person(orgId, "editor");
    await dash("POST", "/dashboard/forgot", { form: { email: p.email } });
    const link = linkIn((await mailsTo(p.email, 1, "reset"))[0].text, "reset");
    const page = await dash("GET", "/dashboard/reset");
    expect(page.status).toBe(200);
    expect(page.html).toContain('<label for="token">Code from the mail</label>');
    expect(page.html).toMatch(/<input id="token" name="token"[^>]*required/);
    expect(page.html).toContain('<script src="/dashboard-link.js"></script>');
    expect(page.headers.get("content-security-policy")).toBe(`${DASHBOARD_CSP}; script-src 'self'`);
    // Every other page keeps a CSP without script.
    expect((await dash("GET", "/dashboard")).headers.get("content-security-policy")).toBe(DASHBOARD_CSP);
    // The whole link pasted into the field opens it as the code alone does.
    const pasted = await dash("POST", "/dashboard/reset/open", { form: { token: ` ${link} ` } });
    expect(pasted.status).toBe(200);
    expect(pasted.html).toContain("Save the new password");
    // The script fills the field from the fragment, clears the address bar, and continues; nothing else.
    expect(linkScript).toContain("location.hash.slice(1)");
    expect(linkScript).toContain('history.replaceState(null, "", location.pathname + location.search)');
    expect(linkScript).toContain("form.submit()");
    expect(linkScript).not.toMatch(/fetch\(|XMLHttpRequest|localStorage|sessionStorage|document\.cookie/);
  });

  it("links of the old form keep working through a redirect that moves the token to the fragment; posting to them is refused (405)", async () => {
    const { orgId } = await createSite();
    const p = await person(orgId, "editor");
    await dash("POST", "/dashboard/forgot", { form: { email: p.email } });
    const token = tokenIn((await mailsTo(p.email, 1, "reset"))[0].text, "reset");
    for (const kind of ["reset", "verify", "unlock"]) {
      const old = await dash("GET", `/dashboard/${kind}/${token}`);
      expect(old.status, kind).toBe(303);
      expect(old.location, kind).toBe(`/dashboard/${kind}#${token}`);
      expect((await dash("POST", `/dashboard/${kind}/${token}`, { form: {} })).status, kind).toBe(405);
    }
    const invitation = await dash("GET", `/dashboard/invitations/${token}?next=%2Fdashboard%2Fsites%2F1`);
    expect(invitation.location).toBe(`/dashboard/invitations?next=%2Fdashboard%2Fsites%2F1#${token}`);
    // The redirected reset link still sets the password.
    expect((await dash("POST", "/dashboard/reset", { form: { token, new_password: "set through an old link" } })).status).toBe(303);
  });
});
