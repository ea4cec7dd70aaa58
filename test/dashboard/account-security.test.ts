/**
 * Issue 37's account findings, each reproduced first: a sign-up that takes over an address
 * before its owner (1), a second factor a stolen session could move (2), codes and passwords
 * guessed without end (3), and the small ones (mail links from the request's Host, sign-up
 * timing, unbounded forms, no HSTS).
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createApp } from "../../src/app";
import { controlDb } from "../../src/control/db";
import { MAX_PAUSE_MS, pauseAfter } from "../../src/control/lockout.control";
import { hashPassword } from "../../src/control/passwords.control";
import { users } from "../../src/control/schema";
import { createSession } from "../../src/control/sessions.control";
import { newTotpSecret, totpCode } from "../../src/control/totp.control";
import { signIn } from "../../src/ops/sessions.ops";
import { beginSecondStep, completeSecondStep } from "../../src/ops/two-factor.ops";
import { createSite } from "../helpers/api";
import { dash, ORIGIN, openLink, person } from "../helpers/dashboard";
import { linkIn, mailsTo } from "../helpers/mail";

const unique = (what = "owner") => `${what}-${Date.now()}-${Math.floor(Math.random() * 1e6)}@example.com`;
const signInForm = (email: string, password: string, headers: Record<string, string> = {}) => dash("POST", "/dashboard/sign-in", { form: { email, password }, headers });
const userOf = async (email: string) => (await controlDb(env.DB).select().from(users).where(eq(users.email, email)).get())!;
const stripIds = (html: string) => html.replace(/request_id[^"]*|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, "");

describe("finding 1: no account before its mailbox is proven", () => {
  it("an unverified account gets no session: sign-in answers exactly as a wrong password", async () => {
    const email = unique();
    await dash("POST", "/dashboard/sign-up", { form: { name: "Mallory", email } });
    await mailsTo(email, 1, "verify");
    const any = await signInForm(email, "the attacker's password");
    const wrong = await signInForm(email, "not the password at all");
    expect(any.status).toBe(401);
    expect(any.cookie).toBeNull();
    expect(stripIds(any.html)).toBe(stripIds(wrong.html));
    expect(any.html).toContain('href="/dashboard/verify/resend"');
  });

  it("opening the link changes nothing; confirming sets the owner's password, signs nobody in and ends every earlier session", async () => {
    const email = unique();
    await dash("POST", "/dashboard/sign-up", { form: { name: "Mallory", email } });
    const link = linkIn((await mailsTo(email, 1, "verify"))[0].text, "verify");
    // A session made before the address was proven (as an older main gave the attacker at sign-up).
    const earlyCookie = `__Host-transync_session=${await createSession(controlDb(env.DB), (await userOf(email)).id)}`;
    expect((await dash("GET", "/dashboard/verify/resend", { cookie: earlyCookie })).status).toBe(200);

    const { landing, opened, token } = await openLink(link);
    expect(landing.status).toBe(200);
    expect(opened.status).toBe(200);
    expect(opened.cookie).toBeNull();
    expect((await userOf(email)).emailVerifiedAt).toBeNull(); // a scanner's GET, or its script's POST, verifies nothing

    const done = await dash("POST", "/dashboard/verify", { form: { token, name: "The owner", password: "the owner's own password" } });
    expect(done.status).toBe(303);
    expect(done.cookie).toBeNull();
    expect((await userOf(email)).emailVerifiedAt).not.toBeNull();
    expect((await userOf(email)).name).toBe("The owner");
    expect((await dash("GET", "/dashboard/account", { cookie: earlyCookie })).status).toBe(303); // ended
    expect((await signInForm(email, "the owner's own password")).status).toBe(303);
  });

  it("a verification link never replaces the session the browser holds (login CSRF)", async () => {
    const { orgId } = await createSite();
    const victim = await person(orgId, "editor");
    const email = unique("attacker");
    await dash("POST", "/dashboard/sign-up", { form: { name: "Mallory", email } });
    const link = linkIn((await mailsTo(email, 1, "verify"))[0].text, "verify");
    const { landing, opened, token } = await openLink(link, { cookie: victim.cookie });
    const done = await dash("POST", "/dashboard/verify", { cookie: victim.cookie, form: { token, name: "Mallory", password: "the attacker's password" } });
    for (const res of [landing, opened, done]) {
      expect(res.cookie).toBeNull();
      expect(res.headers.get("set-cookie") ?? "").not.toMatch(/transync_session=[^;]/);
    }
    const home = await dash("GET", "/dashboard", { cookie: victim.cookie });
    expect(home.status).toBe(200);
    expect(home.html).toContain(victim.email);
    expect(home.html).not.toContain(email);
  });
});

/** Two-factor on for a person, through the pages; answers the secret and the recovery codes. */
async function withTwoFactor(cookie: string | null) {
  const setup = await dash("GET", "/dashboard/account/two-factor", { cookie });
  const secret = /id="setup-key">([A-Z2-7 ]+)</.exec(setup.html)![1].replace(/ /g, "");
  const token = /name="setup" value="([^"]+)"/.exec(setup.html)![1];
  const ok = await dash("POST", "/dashboard/account/two-factor", { cookie, form: { setup: token, code: totpCode(secret) } });
  expect(ok.status).toBe(200);
  return { secret, codes: [...ok.html.matchAll(/<li>([a-z0-9]{5}-[a-z0-9]{5})<\/li>/g)].map((m) => m[1]) };
}

describe("finding 2: a stolen session cannot move the second factor", () => {
  it("setting it up again needs the password and a current code (never one used before); other sessions end; the owner gets a mail", async () => {
    const { orgId } = await createSite();
    const p = await person(orgId, "editor");
    const { codes } = await withTwoFactor(p.cookie);
    const other = await signInForm(p.email, p.password);
    const otherSession = await dash("POST", "/dashboard/sign-in/code", { cookie: other.cookie, form: { code: codes[0] } });
    expect(otherSession.status).toBe(303);

    const again = await dash("GET", "/dashboard/account/two-factor", { cookie: p.cookie });
    expect(again.html).toContain('name="current_code"');
    const secret2 = /id="setup-key">([A-Z2-7 ]+)</.exec(again.html)![1].replace(/ /g, "");
    const setup = /name="setup" value="([^"]+)"/.exec(again.html)![1];
    const post = (extra: Record<string, string>) => dash("POST", "/dashboard/account/two-factor", { cookie: p.cookie, form: { setup, code: totpCode(secret2), ...extra } });
    expect((await post({})).status).toBe(422); // a stolen session alone
    expect((await post({ current_code: codes[1], password: "not the password" })).status).toBe(422);
    expect((await post({ current_code: codes[0], password: p.password })).status).toBe(422); // used already
    const replaced = await post({ current_code: codes[2], password: p.password });
    expect(replaced.status).toBe(200);
    expect(replaced.html).toContain("recovery codes");
    expect((await dash("GET", "/dashboard/account", { cookie: otherSession.cookie })).status).toBe(303); // signed out
    expect((await dash("GET", "/dashboard/account", { cookie: p.cookie })).status).toBe(200);
    expect((await mailsTo(p.email, 2, "two_factor")).map((m) => m.subject)).toContain("Two-factor sign-in was set up again for your Transync account");
  });

  it("turning it off needs the password and a code not used before, and shares the sign-in codes' per-person limit", async () => {
    const { orgId } = await createSite();
    const p = await person(orgId, "editor");
    const { secret } = await withTwoFactor(p.cookie);
    const used = totpCode(secret); // the set-up's code, of this very step
    const off = (form: Record<string, string>) => dash("POST", "/dashboard/account/two-factor/off", { cookie: p.cookie, form });
    expect((await off({ code: used, password: p.password })).status).toBe(422); // replayed
    expect((await off({ code: totpCode(secret, Date.now() + 30_000) })).status).toBe(422); // no password
    const answers = [];
    // The 11th request of the minute meets the per-person limit; the 10th wrong code in a row started the code pause anyway (so a minute's turn cannot reopen it).
    for (let i = 0; i < 10; i++) answers.push(await off({ code: String(100000 + i), password: p.password }));
    expect(answers.at(-1)?.status).toBe(429);
    // Paused: the page says until when, and Retry-After says it to the browser.
    expect(answers.at(-1)?.headers.get("retry-after")).toMatch(/^[1-9]\d*$/);
    // The sign-in's code step shares the limit.
    const step = await signInForm(p.email, p.password);
    expect((await dash("POST", "/dashboard/sign-in/code", { cookie: step.cookie, form: { code: "123456" } })).status).toBe(429);
  });
});

describe("finding 3: a failure budget that does not refill each minute", () => {
  afterEach(() => vi.useRealTimers());

  it("the pause: none below 10 failures in a row, then 1 minute doubling to at most a day", () => {
    expect(pauseAfter(9)).toBe(0);
    expect(pauseAfter(10)).toBe(60_000);
    expect(pauseAfter(11)).toBe(120_000);
    expect(pauseAfter(20)).toBe(1024 * 60_000);
    expect(pauseAfter(21)).toBe(MAX_PAUSE_MS);
    expect(pauseAfter(1000)).toBe(86_400_000);
  });

  async function verifiedPerson(totp = false) {
    const email = unique("budget");
    const secret = newTotpSecret();
    const [user] = await controlDb(env.DB)
      .insert(users)
      .values({ email, passwordHash: await hashPassword("the right password"), emailVerifiedAt: new Date().toISOString(), totpSecret: totp ? secret : null })
      .returning();
    return { user, email, secret };
  }
  const NETWORK = "203.0.113.7";
  const attempt = (email: string, password: string, at: number) => signIn(env, { email, password, next: "/dashboard", network: NETWORK }, "https://dash.test", new Date(at));

  it("ten wrong passwords in a row from a network pause its sign-in with growing waits; the owner gets one mail, whose link signs them in once", async () => {
    const { email } = await verifiedPerson();
    const t0 = Date.UTC(2026, 10, 28, 12, 0, 0);
    for (let i = 0; i < 10; i++) expect(await attempt(email, `wrong ${i}`, t0)).toBeNull();
    expect(await attempt(email, "the right password", t0 + 59_000)).toBeNull(); // paused: answered as a wrong password
    expect((await attempt(email, "the right password", t0 + 61_000))?.kind).toBe("session"); // after the minute; the count starts again

    for (let i = 0; i < 10; i++) await attempt(email, `wrong ${i}`, t0 + 120_000);
    await attempt(email, "wrong again", t0 + 181_000); // the 11th in a row: a 2-minute pause
    expect(await attempt(email, "the right password", t0 + 181_000 + 119_000)).toBeNull();
    expect((await attempt(email, "the right password", t0 + 181_000 + 121_000))?.kind).toBe("session");
    // One mail per streak of failures: two streaks, two mails (never one per failure).
    const mails = await mailsTo(email, 2, "lockout");
    expect(mails).toHaveLength(2);

    // A third streak; its mail's link signs the owner in from that very network, pause or not.
    for (let i = 0; i < 10; i++) await attempt(email, `wrong ${i}`, Date.now());
    const [, , third] = await mailsTo(email, 3, "lockout");
    expect(await attempt(email, "the right password", Date.now())).toBeNull();
    const { opened, token } = await openLink(linkIn(third.text, "unlock"));
    expect(opened.html).toContain("This link signs you in once");
    const signedIn = await dash("POST", "/dashboard/unlock", { form: { token, password: "the right password" }, headers: { "cf-connecting-ip": NETWORK } });
    expect(signedIn.status).toBe(303);
    expect(signedIn.cookie).toMatch(/transync_session=/);
    expect((await attempt(email, "the right password", Date.now()))?.kind).toBe("session"); // that network's count went with it
  });

  it("ten wrong codes in a row pause the second step (429) however much time the per-minute limit gives; one mail", async () => {
    const { user, email, secret } = await verifiedPerson(true);
    const t0 = Date.UTC(2026, 10, 28, 13, 0, 0);
    const wrong = (at: number) => totpCode(secret, at - 3_600_000);
    for (let i = 0; i < 10; i++) {
      const step = await beginSecondStep(env, user.id, "/dashboard", new Date(t0 + i * 60_000));
      await expect(completeSecondStep(env, step, wrong(t0), "https://dash.test", new Date(t0 + i * 60_000))).rejects.toMatchObject({ status: 422 });
    }
    const at = t0 + 9 * 60_000 + 30_000;
    const step = await beginSecondStep(env, user.id, "/dashboard", new Date(at));
    // Paused until a minute after the tenth failure: 30 s from now.
    await expect(completeSecondStep(env, step, totpCode(secret, at), "https://dash.test", new Date(at))).rejects.toMatchObject({ status: 429, headers: { "Retry-After": "30" } });
    expect(await mailsTo(email, 1, "lockout")).toHaveLength(1);
    const later = t0 + 9 * 60_000 + 61_000;
    const again = await beginSecondStep(env, user.id, "/dashboard", new Date(later));
    await expect(completeSecondStep(env, again, totpCode(secret, later), "https://dash.test", new Date(later))).resolves.toMatchObject({ userId: user.id });
  });
});

describe("the small ones", () => {
  it("mail links come from DASHBOARD_URL; without it only a loopback host's own, else no mail and an error line", async () => {
    const { orgId } = await createSite();
    const p = await person(orgId, "editor");
    const app = createApp();
    const noUrl = { ...env, DASHBOARD_URL: undefined } as Env;
    const lines: string[] = [];
    vi.spyOn(console, "error").mockImplementation((line: unknown) => {
      lines.push(String(line));
    });
    const forgot = async (origin: string) => {
      const ctx = createExecutionContext();
      const res = await app.fetch(
        new Request(`${origin}/dashboard/forgot`, {
          method: "POST",
          headers: { origin, "cf-connecting-ip": `192.0.2.${Math.floor(Math.random() * 250)}`, "content-type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams({ email: p.email }),
        }),
        noUrl,
        ctx,
      );
      await waitOnExecutionContext(ctx);
      return res.status;
    };
    expect(await forgot("https://evil.example")).toBe(200);
    expect(await mailsTo(p.email, 0, "reset")).toEqual([]);
    expect(lines.some((l) => JSON.parse(l).event === "mail.no_dashboard_url" && JSON.parse(l).level === "error")).toBe(true);
    expect(await forgot("http://127.0.0.1:8787")).toBe(200);
    const [mail] = await mailsTo(p.email, 1, "reset");
    expect(mail.text).toMatch(/http:\/\/127\.0\.0\.1:8787\/dashboard\/reset#[A-Za-z0-9_-]{43}/);
    vi.restoreAllMocks();
  });

  it("invitation mails follow the same rule: the operator gets the link, the mailbox gets nothing built from a request's Host", async () => {
    const { orgId } = await createSite();
    const app = createApp();
    const noUrl = { ...env, DASHBOARD_URL: undefined } as Env;
    const lines: string[] = [];
    vi.spyOn(console, "error").mockImplementation((line: unknown) => {
      lines.push(String(line));
    });
    const to = unique("invited");
    const ctx = createExecutionContext();
    const res = await app.fetch(
      new Request(`https://evil.example/admin/v1/organizations/${orgId}/invitations`, {
        method: "POST",
        headers: { authorization: `Bearer ${env.ADMIN_TOKEN}`, "content-type": "application/json" },
        body: JSON.stringify({ email: to, role: "editor" }),
      }),
      noUrl,
      ctx,
    );
    await waitOnExecutionContext(ctx);
    expect(res.status).toBe(201);
    expect(((await res.json()) as { url: string }).url).toContain("/invitations#");
    expect(await mailsTo(to, 0, "invitation")).toEqual([]);
    expect(lines.some((l) => JSON.parse(l).event === "mail.no_dashboard_url" && JSON.parse(l).kind === "invitation")).toBe(true);
    vi.restoreAllMocks();
  });

  it("dashboard forms: 64 KB and 200 fields at most, refused (413) before parsing; the client's limit comes first", async () => {
    const big = await dash("POST", "/dashboard/sign-in", { form: { email: "a@example.com", password: "x".repeat(70_000) } });
    expect(big.status).toBe(413);
    expect(big.html).toContain("64 KB");
    const fields: Record<string, string> = { email: "a@example.com", password: "whatever password" };
    for (let i = 0; i < 200; i++) fields[`f${i}`] = "1";
    const many = await dash("POST", "/dashboard/sign-in", { form: fields });
    expect(many.status).toBe(413);
    expect(many.html).toContain("200 fields");
    // Over the client's limit, a form that would not even parse is not read.
    const headers = { "cf-connecting-ip": `198.18.0.${Math.floor(Math.random() * 250)}` };
    for (let i = 0; i < 10; i++) await signInForm(unique("x"), "some password here", headers);
    expect(await brokenSignIn(headers)).toBe(429);
  });

  it("uploads keep their own limit: a glossary CSV over 64 KB imports", async () => {
    const site = await createSite();
    const adminP = await person(site.orgId, "admin");
    const rows = Array.from({ length: 3000 }, (_, i) => `Term number ${i} long enough,de,Begriff Nummer ${i}`).join("\n");
    const csv = `source,language,target\n${rows}\n`;
    expect(csv.length).toBeGreaterThan(65_536);
    const f = new FormData();
    f.append("file", new File([csv], "g.csv", { type: "text/csv" }));
    expect((await dash("POST", `/dashboard/sites/${site.siteId}/glossary/import`, { cookie: adminP.cookie, form: f })).status).toBe(303);
  });

  it("Strict-Transport-Security on every answer over https (API, dashboard, admin), not on local http", async () => {
    const hsts = "max-age=31536000; includeSubDomains";
    for (const path of ["/v1/health", "/dashboard", "/admin/v1/organizations", "/v1/site", "/nowhere"]) {
      const res = await dash("GET", path);
      expect(res.headers.get("strict-transport-security"), path).toBe(hsts);
    }
    expect((await dash("GET", "/v1/health", { base: "http://127.0.0.1:8787" })).headers.get("strict-transport-security")).toBeNull();
  });
});

/** A sign-in whose multipart body is broken (parsing it would throw), from the given client: its status. */
async function brokenSignIn(headers: Record<string, string>) {
  const res = await exports.default.fetch(
    new Request(`${ORIGIN}/dashboard/sign-in`, {
      method: "POST",
      headers: { ...headers, origin: ORIGIN, "content-type": "multipart/form-data; boundary=x" },
      body: "--x\r\nnot a part at all",
    }),
  );
  return res.status;
}
