/** Accounts through the dashboard: password reset, sessions, two-factor sign-in, the organization's requirement. */
import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { controlDb } from "../../src/control/db";
import { accountTokens, users } from "../../src/control/schema";
import { totpCode } from "../../src/control/totp.control";
import { admin, createSite } from "../helpers/api";
import { dash, openLink, person } from "../helpers/dashboard";
import { linkIn, mailsTo, tokenIn } from "../helpers/mail";

const signIn = (email: string, password: string, headers: Record<string, string> = {}) => dash("POST", "/dashboard/sign-in", { form: { email, password }, headers });

describe("forgot password", () => {
  it("answers the same page for an unknown address and mails a one-time link only to a known one", async () => {
    const { orgId } = await createSite();
    const p = await person(orgId, "editor");
    const known = await dash("POST", "/dashboard/forgot", { form: { email: p.email } });
    const unknown = await dash("POST", "/dashboard/forgot", { form: { email: `nobody-${Date.now()}@example.com` } });
    expect(known.status).toBe(200);
    expect(unknown.status).toBe(200);
    const strip = (html: string) => html.replace(/request_id[^"]*/g, "");
    expect(strip(unknown.html)).toBe(strip(known.html));
    const [mail] = await mailsTo(p.email, 1, "reset");
    expect(mail.kind).toBe("reset");
    expect(mail.html).toContain("Choose a new password");
    expect(mail.text).toMatch(/1 hour/);
    // Nothing was ever sent to the unknown address.
    expect(await mailsTo(`nobody-${Date.now()}@example.com`, 0)).toEqual([]);
  });

  it("sets the new password once, ends every session, and a used or expired link says so", async () => {
    const { orgId } = await createSite();
    const p = await person(orgId, "editor");
    const other = await signIn(p.email, p.password);
    expect(other.status).toBe(303);
    await dash("POST", "/dashboard/forgot", { form: { email: p.email } });
    const link = linkIn((await mailsTo(p.email, 1, "reset"))[0].text, "reset");
    const { opened, token } = await openLink(link);
    expect(opened.html).toContain("Choose a new password");
    const reset = (new_password: string, t = token) => dash("POST", "/dashboard/reset", { form: { token: t, new_password } });
    expect((await reset("short")).status).toBe(422); // refused, link still good
    const done = await reset("a brand new password");
    expect(done.status).toBe(303);
    expect(done.location).toBe("/dashboard?done=password-reset");
    // Every session ended: the invitation's and the one signed in elsewhere.
    for (const cookie of [p.cookie, other.cookie]) expect((await dash("GET", "/dashboard/account", { cookie })).status).toBe(303);
    expect((await signIn(p.email, p.password)).status).toBe(401);
    expect((await signIn(p.email, "a brand new password")).status).toBe(303);
    const again = await reset("yet another password");
    expect(again.status).toBe(410);
    expect(again.html).toContain("This link was used already");
    expect((await openLink(link)).opened.status).toBe(410);

    // Expired: an hour later the link says so.
    await dash("POST", "/dashboard/forgot", { form: { email: p.email } });
    const late = tokenIn((await mailsTo(p.email, 2, "reset"))[1].text, "reset");
    await controlDb(env.DB)
      .update(accountTokens)
      .set({ expiresAt: new Date(Date.now() - 1000).toISOString() })
      .where(eq(accountTokens.purpose, "reset"));
    const expired = await reset("yet another password", late);
    expect(expired.status).toBe(410);
    expect(expired.html).toContain("has expired");
    expect((await signIn(p.email, "yet another password")).status).toBe(401);
  });

  it("is limited like sign-in: per address asked for and per client", async () => {
    const email = `limited-${Date.now()}@example.com`;
    const answers = [];
    for (let i = 0; i < 11; i++) answers.push((await dash("POST", "/dashboard/forgot", { form: { email } })).status);
    expect(answers.slice(0, 10).every((s) => s === 200)).toBe(true);
    expect(answers[10]).toBe(429);
    const ip = { "cf-connecting-ip": `203.0.113.${Math.floor(Math.random() * 200)}` };
    const fromOne = [];
    for (let i = 0; i < 11; i++) fromOne.push((await dash("POST", "/dashboard/forgot", { form: { email: `x${i}-${Date.now()}@example.com` }, headers: ip })).status);
    expect(fromOne[10]).toBe(429);
  });

  it("the sign-in page links to it", async () => {
    expect((await dash("GET", "/dashboard")).html).toContain('href="/dashboard/forgot"');
  });
});

describe("sessions on /dashboard/account", () => {
  it("lists the person's sessions (browser, this one) and ends one or all others", async () => {
    const { orgId } = await createSite();
    const p = await person(orgId, "editor");
    const firefox = await signIn(p.email, p.password, { "user-agent": "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0" });
    const chrome = await signIn(p.email, p.password, { "user-agent": "Mozilla/5.0 (Windows NT 10.0) AppleWebKit/537.36 Chrome/130.0 Safari/537.36" });
    const page = await dash("GET", "/dashboard/account", { cookie: firefox.cookie });
    expect(page.html).toContain("Firefox on Linux");
    expect(page.html).toMatch(/Firefox on Linux<strong> \(this one\)<\/strong>/);
    expect(page.html).toContain("Chrome on Windows");
    const ids = [...page.html.matchAll(/sessions\/([0-9a-f]{16})\/end/g)].map((m) => m[1]);
    expect(ids).toHaveLength(2); // the two others (the invitation's and Chrome), never this one
    const chromeId = /Chrome on Windows[\s\S]*?sessions\/([0-9a-f]{16})\/end/.exec(page.html)![1];
    expect((await dash("POST", `/dashboard/account/sessions/${chromeId}/end`, { cookie: firefox.cookie })).status).toBe(303);
    expect((await dash("GET", "/dashboard/account", { cookie: chrome.cookie })).status).toBe(303); // signed out
    expect((await dash("GET", "/dashboard/account", { cookie: p.cookie })).status).toBe(200);
    // Someone else's session id is not found.
    const q = await person(orgId, "editor");
    const qPage = await dash("GET", "/dashboard/account", { cookie: (await signIn(q.email, q.password)).cookie });
    const qId = /sessions\/([0-9a-f]{16})\/end/.exec(qPage.html)![1];
    expect((await dash("POST", `/dashboard/account/sessions/${qId}/end`, { cookie: firefox.cookie })).status).toBe(404);
    expect((await dash("GET", "/dashboard/account", { cookie: q.cookie })).status).toBe(200);

    expect((await dash("POST", "/dashboard/account/sessions/end-others", { cookie: firefox.cookie })).status).toBe(303);
    expect((await dash("GET", "/dashboard/account", { cookie: p.cookie })).status).toBe(303);
    const after = await dash("GET", "/dashboard/account", { cookie: firefox.cookie });
    expect(after.status).toBe(200);
    expect(after.html).not.toContain('/end"');
  });
});

/** Sets up two-factor for a signed-in person through the pages, as a person with an authenticator app would. */
async function turnOnTwoFactor(cookie: string | null) {
  const setup = await dash("GET", "/dashboard/account/two-factor", { cookie });
  expect(setup.status).toBe(200);
  expect(setup.html).toContain("<svg");
  const secret = /id="setup-key">([A-Z2-7 ]+)</.exec(setup.html)![1].replace(/ /g, "");
  const token = /name="setup" value="([^"]+)"/.exec(setup.html)![1];
  const wrong = await dash("POST", "/dashboard/account/two-factor", { cookie, form: { setup: token, code: totpCode(secret, Date.now() - 5 * 60_000) } });
  expect(wrong.status).toBe(422);
  const ok = await dash("POST", "/dashboard/account/two-factor", { cookie, form: { setup: token, code: totpCode(secret) } });
  expect(ok.status).toBe(200);
  const codes = [...ok.html.matchAll(/<li>([a-z0-9]{5}-[a-z0-9]{5})<\/li>/g)].map((m) => m[1]);
  expect(codes).toHaveLength(10);
  return { secret, codes };
}

describe("two-factor sign-in", () => {
  it("set up with a first code; sign-in then asks for a code, refuses a wrong one, takes a recovery code once", async () => {
    const { orgId } = await createSite();
    const p = await person(orgId, "editor");
    const { secret, codes } = await turnOnTwoFactor(p.cookie);
    expect((await mailsTo(p.email)).map((m) => m.kind)).toContain("two_factor");
    // Recovery codes are stored hashed.
    const user = (await controlDb(env.DB).select().from(users).where(eq(users.email, p.email)).get())!;
    const stored = await env.DB.prepare("SELECT code_hash FROM recovery_codes WHERE user_id = ?").bind(user.id).all<{ code_hash: string }>();
    expect(stored.results).toHaveLength(10);
    expect(stored.results.map((r) => r.code_hash).join()).not.toContain(codes[0].slice(0, 5));

    const first = await signIn(p.email, p.password);
    expect(first.status).toBe(303);
    expect(first.location).toBe("/dashboard/sign-in/code");
    const step = first.cookie; // the step cookie, not a session
    expect((await dash("GET", "/dashboard/account", { cookie: step })).status).toBe(303);
    expect((await dash("GET", "/dashboard/sign-in/code", { cookie: step })).html).toContain("Enter your sign-in code");
    const wrong = await dash("POST", "/dashboard/sign-in/code", { cookie: step, form: { code: "000000" } });
    expect(wrong.status).toBe(422);
    expect(wrong.html).toContain("that code is not right");
    // The code was used at set-up (same 30 s step): a code is never accepted twice, so use the next step's.
    const good = await dash("POST", "/dashboard/sign-in/code", { cookie: step, form: { code: totpCode(secret, Date.now() + 30_000) } });
    expect(good.status).toBe(303);
    expect((await dash("GET", "/dashboard/account", { cookie: good.cookie })).status).toBe(200);

    // A recovery code works once.
    const again = await signIn(p.email, p.password);
    const viaRecovery = await dash("POST", "/dashboard/sign-in/code", { cookie: again.cookie, form: { code: codes[3].toUpperCase() } });
    expect(viaRecovery.status).toBe(303);
    const third = await signIn(p.email, p.password);
    expect((await dash("POST", "/dashboard/sign-in/code", { cookie: third.cookie, form: { code: codes[3] } })).status).toBe(422);
    expect((await dash("GET", "/dashboard/account", { cookie: good.cookie })).html).toContain("Recovery codes left: 9 of 10");

    // Turning it off needs a current code (here a recovery code: the app's codes of this minute were used) and the password.
    expect((await dash("POST", "/dashboard/account/two-factor/off", { cookie: good.cookie, form: { code: "123456", password: p.password } })).status).toBe(422);
    expect((await dash("POST", "/dashboard/account/two-factor/off", { cookie: good.cookie, form: { code: codes[5], password: p.password } })).status).toBe(303);
    expect((await signIn(p.email, p.password)).location).toBe("/dashboard");
  });

  it("wrong codes are limited (10 a minute per person)", async () => {
    const { orgId } = await createSite();
    const p = await person(orgId, "editor");
    await turnOnTwoFactor(p.cookie);
    const step = (await signIn(p.email, p.password)).cookie;
    const answers = [];
    for (let i = 0; i < 11; i++) answers.push((await dash("POST", "/dashboard/sign-in/code", { cookie: step, form: { code: String(100000 + i) } })).status);
    expect(answers.slice(0, 10).every((s) => s === 422)).toBe(true);
    expect(answers[10]).toBe(429);
  });

  it("owners can require it: members without it are led to set it up before anything else", async () => {
    const site = await createSite();
    const owner = await person(site.orgId, "owner");
    const editor = await person(site.orgId, "editor");
    expect((await dash("POST", `/dashboard/organizations/${site.orgId}/two-factor`, { cookie: editor.cookie, form: { required: "1" } })).status).toBe(403);
    // The owner sets it up first (required of them too), then requires it.
    await turnOnTwoFactor(owner.cookie);
    expect((await dash("POST", `/dashboard/organizations/${site.orgId}/two-factor`, { cookie: owner.cookie, form: { required: "1" } })).status).toBe(303);
    expect((await dash("GET", `/dashboard/organizations/${site.orgId}/members`, { cookie: owner.cookie })).html).toContain("Required: every member");
    const blocked = await dash("GET", `/dashboard/sites/${site.siteId}`, { cookie: editor.cookie });
    expect(blocked.status).toBe(303);
    expect(blocked.location).toBe("/dashboard/account/two-factor");
    const setupPage = await dash("GET", "/dashboard/account/two-factor", { cookie: editor.cookie });
    expect(setupPage.html).toContain("requires two-factor sign-in");
    await turnOnTwoFactor(editor.cookie);
    expect((await dash("GET", `/dashboard/sites/${site.siteId}`, { cookie: editor.cookie })).status).toBe(200);
  });
});

describe("invitations by mail", () => {
  it("the admin API answers the link and mails it; the dashboard only says it went out, resends with a new link, withdraws", async () => {
    const site = await createSite();
    const owner = await person(site.orgId, "owner");
    const email = `invitee-${Date.now()}@example.com`;
    const viaApi = await admin("POST", `/admin/v1/organizations/${site.orgId}/invitations`, { email, role: "editor" });
    const [first] = await mailsTo(email, 1, "invitation");
    expect(first.text).toContain(viaApi.body.url);
    expect(first.subject).toMatch(/^You are invited to "Org \d+" on Transync$/);

    const members = await dash("GET", `/dashboard/organizations/${site.orgId}/members`, { cookie: owner.cookie });
    expect(members.html).toContain(email);
    expect(members.html).toMatch(/Sent <time/);
    expect(members.html).not.toContain(viaApi.body.url.split("#").pop());
    const invId = new RegExp(`invitations/(\\d+)/resend"[^>]*>\\s*<button[^>]*for ${email.replace(/[.]/g, "\\.")}`).exec(members.html)![1];
    expect((await dash("POST", `/dashboard/organizations/${site.orgId}/members/invitations/${invId}/resend`, { cookie: owner.cookie })).status).toBe(303);
    const mails = await mailsTo(email, 2, "invitation");
    const second = linkIn(mails[1].text, "invitations");
    expect((await openLink(linkIn(mails[0].text, "invitations"))).opened.status).toBe(404); // the first link stopped working
    expect((await openLink(second)).opened.status).toBe(200);
    expect((await dash("POST", `/dashboard/organizations/${site.orgId}/members/invitations/${invId}/revoke`, { cookie: owner.cookie })).status).toBe(303);
    expect((await openLink(second)).opened.status).toBe(404);
  });
});
