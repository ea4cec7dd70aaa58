/** Dashboard people: invitations, sign-in, sessions, password change, the sign-in limit, CSRF and headers. */
import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { controlDb } from "../../src/control/db";
import { hashPassword, verifyPassword } from "../../src/control/passwords.control";
import { acceptInvitation, createInvitation } from "../../src/control/people.control";
import { sessions, users } from "../../src/control/schema";
import { createSession, sessionUser } from "../../src/control/sessions.control";
import { dashboardBase } from "../../src/links";
import { admin, createSite, request } from "../helpers/api";
import { dash, openLink, person } from "../helpers/dashboard";

describe("passwords", () => {
  it("are PBKDF2-SHA256 with 100,000 iterations and a 16-byte salt, verified only by the right password", async () => {
    const a = await hashPassword("correct horse battery");
    const b = await hashPassword("correct horse battery");
    expect(a).toMatch(/^pbkdf2-sha256\$100000\$[A-Za-z0-9+/]{22}==\$[A-Za-z0-9+/=]{44}$/);
    expect(a).not.toBe(b); // a fresh salt each time
    expect(await verifyPassword("correct horse battery", a)).toBe(true);
    expect(await verifyPassword("correct horse batterY", a)).toBe(false);
    expect(await verifyPassword("correct horse battery", "plain-text")).toBe(false);
  });
});

describe("sessions", () => {
  it("last 14 days and slide: a session used within them is extended, an unused one ends", async () => {
    const db = controlDb(env.DB);
    const [user] = await db
      .insert(users)
      .values({ email: `slide-${Date.now()}@example.com`, passwordHash: "x" })
      .returning();
    const day = 86_400_000;
    const t0 = Date.UTC(2026, 10, 1);
    const token = await createSession(db, user.id, new Date(t0));
    const expiry = async () => (await db.select().from(sessions).where(eq(sessions.userId, user.id)).get())!.expiresAt;
    expect(await expiry()).toBe(new Date(t0 + 14 * day).toISOString());
    expect(await sessionUser(db, token, new Date(t0 + 0.5 * day))).toMatchObject({ userId: user.id }); // fresh: no write
    expect(await expiry()).toBe(new Date(t0 + 14 * day).toISOString());
    expect(await sessionUser(db, token, new Date(t0 + 10 * day))).toMatchObject({ userId: user.id });
    expect(await expiry()).toBe(new Date(t0 + 24 * day).toISOString());
    expect(await sessionUser(db, token, new Date(t0 + 23.9 * day))).not.toBeNull();
    expect(await sessionUser(db, token, new Date(t0 + 23.9 * day + 14 * day + 1))).toBeNull();
    expect(await sessionUser(db, "not-a-token")).toBeNull();
  });
});

describe("POST /admin/v1/organizations/{org_id}/invitations", () => {
  it("answers 201 with a one-time link to the dashboard's accept page", async () => {
    const { orgId } = await createSite();
    const res = await admin("POST", `/admin/v1/organizations/${orgId}/invitations`, { email: " First.Owner@Example.com ", role: "owner" });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(Number),
      email: "first.owner@example.com",
      role: "owner",
      url: expect.stringMatching(/^https:\/\/dash\.test\/invitations#[A-Za-z0-9_-]{43}$/),
      expires_at: expect.any(String),
    });
    const days = (Date.parse(res.body.expires_at) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(6.99);
    expect(days).toBeLessThanOrEqual(7);
  });

  it("refuses a bad body with 422 naming the field, an unknown organization with 404, and no token with 401", async () => {
    const { orgId } = await createSite();
    const bad = await admin("POST", `/admin/v1/organizations/${orgId}/invitations`, { email: "not an email", role: "owner" });
    expect(bad.status).toBe(422);
    expect(bad.body.detail).toMatch(/^email /);
    const role = await admin("POST", `/admin/v1/organizations/${orgId}/invitations`, { email: "a@example.com", role: "superuser" });
    expect(role.status).toBe(422);
    expect(role.body.detail).toMatch(/^role /);
    expect((await admin("POST", "/admin/v1/organizations/999999/invitations", { email: "a@example.com", role: "owner" })).status).toBe(404);
    expect((await request("POST", `/admin/v1/organizations/${orgId}/invitations`, { body: { email: "a@example.com", role: "owner" } })).status).toBe(401);
  });
});

describe("accepting an invitation", () => {
  it("sets a password, signs the person in with a __Host- cookie, and works only once", async () => {
    const { orgId } = await createSite({ name: "Blog of Acme" });
    const inv = await admin("POST", `/admin/v1/organizations/${orgId}/invitations`, { email: "new@example.com", role: "editor" });
    // (DASHBOARD_URL is https://dash.test in tests: its /invitations#… is served under /dashboard here)
    const { opened: page, token: link } = await openLink(inv.body.url);
    expect(page.status).toBe(200);
    expect(page.html).toContain("new@example.com");
    const accept = (password: string) => dash("POST", "/dashboard/invitations", { form: { token: link, password } });

    const short = await accept("short");
    expect(short.status).toBe(422);
    expect(short.html).toContain("password: use at least 10 characters.");

    const ok = await accept("a long enough password");
    expect(ok.status).toBe(303);
    expect(ok.location).toBe("/dashboard?done=joined");
    const setCookie = ok.headers.get("set-cookie")!;
    expect(setCookie).toMatch(/^__Host-transync_session=[A-Za-z0-9_-]{43};/);
    expect(setCookie).toMatch(/; HttpOnly/);
    expect(setCookie).toMatch(/; Secure/);
    expect(setCookie).toMatch(/; SameSite=Lax/);
    expect(setCookie).toMatch(/; Path=\//);
    expect(setCookie).not.toMatch(/Domain=/i);

    const home = await dash("GET", "/dashboard", { cookie: ok.cookie });
    expect(home.html).toContain("Blog of Acme");

    const again = await accept("a long enough password");
    expect(again.status).toBe(404);
    expect(again.html).toContain("does not work any more");
    // Only a hash of the session token is stored.
    const token = ok.cookie!.split("=")[1];
    const rows = await controlDb(env.DB).select().from(sessions);
    expect(rows.some((r) => r.tokenHash === token)).toBe(false);
  });

  it("an expired invitation does not work; an existing person, signed in as themselves, joins keeping a higher role", async () => {
    const db = controlDb(env.DB);
    const { orgId } = await createSite();
    const old = await createInvitation(
      db,
      { organizationId: orgId, email: "late@example.com", role: "editor", invitedBy: null, actor: "admin" },
      new Date(Date.now() - 8 * 86_400_000),
    );
    await expect(acceptInvitation(db, old.token, { signedIn: null, password: "a long enough password" })).rejects.toMatchObject({ status: 404 });

    const owner = await person(orgId, "owner", "twice@example.com");
    const second = await createInvitation(db, { organizationId: orgId, email: "twice@example.com", role: "editor", invitedBy: null, actor: "admin" });
    const account = (await db.select().from(users).where(eq(users.email, "twice@example.com")).get())!;
    const joined = await acceptInvitation(db, second.token, { signedIn: { userId: account.id, email: account.email } });
    expect(joined.newAccount).toBe(false);
    const members = await dash("GET", `/dashboard/organizations/${orgId}/members`, { cookie: owner.cookie });
    expect(members.html).toMatch(/twice@example\.com.*?<td>owner<\/td>/s);
  });
});

describe("signing in and out", () => {
  it("refuses a wrong password, signs in with the right one and returns to the page asked for", async () => {
    const { orgId, siteId } = await createSite();
    const p = await person(orgId, "editor");
    const wrong = await dash("POST", "/dashboard/sign-in", { form: { email: p.email, password: "wrong password!" }, headers: { "cf-connecting-ip": "203.0.113.1" } });
    expect(wrong.status).toBe(401);
    expect(wrong.html).toContain("do not match an account");
    const unknown = await dash("POST", "/dashboard/sign-in", {
      form: { email: "nobody@example.com", password: "wrong password!" },
      headers: { "cf-connecting-ip": "203.0.113.1" },
    });
    expect(unknown.html).toContain("do not match an account"); // the same answer: no account enumeration

    const redirect = await dash("GET", `/dashboard/sites/${siteId}`);
    expect(redirect.status).toBe(303);
    expect(redirect.location).toBe(`/dashboard?next=${encodeURIComponent(`/dashboard/sites/${siteId}`)}`);

    const ok = await dash("POST", "/dashboard/sign-in", { form: { email: p.email.toUpperCase(), password: p.password, next: `/dashboard/sites/${siteId}` } });
    expect(ok.status).toBe(303);
    expect(ok.location).toBe(`/dashboard/sites/${siteId}`);
    expect((await dash("GET", `/dashboard/sites/${siteId}`, { cookie: ok.cookie })).status).toBe(200);

    // no open redirect
    const evil = await dash("POST", "/dashboard/sign-in", { form: { email: p.email, password: p.password, next: "https://evil.example/x" } });
    expect(evil.location).toBe("/dashboard");

    const out = await dash("POST", "/dashboard/sign-out", { cookie: ok.cookie });
    expect(out.status).toBe(303);
    expect((await dash("GET", `/dashboard/sites/${siteId}`, { cookie: ok.cookie })).status).toBe(303);
  });

  it("on local http (127.0.0.1) the cookie drops only Secure and the __Host- prefix", async () => {
    const { orgId } = await createSite();
    const p = await person(orgId, "editor");
    const res = await dash("POST", "/dashboard/sign-in", { base: "http://127.0.0.1:8787", form: { email: p.email, password: p.password } });
    const setCookie = res.headers.get("set-cookie")!;
    expect(setCookie).toMatch(/^transync_session=/);
    expect(setCookie).toMatch(/; HttpOnly/);
    expect(setCookie).toMatch(/; SameSite=Lax/);
    expect(setCookie).not.toMatch(/Secure/);
    expect((await dash("GET", "/dashboard", { base: "http://127.0.0.1:8787", cookie: res.cookie })).html).toContain("Your sites");
  });

  it("no limit counts per email alone: tries from many networks never answer the owner's network 429", async () => {
    const { orgId } = await createSite();
    const p = await person(orgId, "editor");
    const statuses = [];
    for (let i = 0; i < 11; i++)
      statuses.push(
        (await dash("POST", "/dashboard/sign-in", { form: { email: p.email, password: "wrong password!" }, headers: { "cf-connecting-ip": `198.51.100.${i}` } })).status,
      );
    expect(statuses).toEqual(Array(11).fill(401));
    expect((await dash("POST", "/dashboard/sign-in", { form: { email: p.email, password: p.password }, headers: { "cf-connecting-ip": "198.51.100.99" } })).status).toBe(303);
  });

  it("more than 10 attempts a minute from one address answer 429, whatever the email", async () => {
    const ip = "192.0.2.77";
    for (let i = 0; i < 10; i++)
      await dash("POST", "/dashboard/sign-in", { form: { email: `ip${i}-${Date.now()}@example.com`, password: "x" }, headers: { "cf-connecting-ip": ip } });
    const limited = await dash("POST", "/dashboard/sign-in", { form: { email: `other-${Date.now()}@example.com`, password: "x" }, headers: { "cf-connecting-ip": ip } });
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBe("60");
    expect(limited.html).toContain("try again in 60 seconds");
  });
});

describe("changing the password", () => {
  it("needs the current password and ends the person's other sessions", async () => {
    const { orgId } = await createSite();
    const p = await person(orgId, "admin");
    const other = await dash("POST", "/dashboard/sign-in", { form: { email: p.email, password: p.password } });
    const wrong = await dash("POST", "/dashboard/account/password", { cookie: p.cookie, form: { current_password: "not it at all", new_password: "a brand new password" } });
    expect(wrong.status).toBe(422);
    expect(wrong.html).toContain("current_password: that is not your current password.");
    const short = await dash("POST", "/dashboard/account/password", { cookie: p.cookie, form: { current_password: p.password, new_password: "short" } });
    expect(short.html).toContain("new_password: use at least 10 characters.");

    const ok = await dash("POST", "/dashboard/account/password", { cookie: p.cookie, form: { current_password: p.password, new_password: "a brand new password" } });
    expect(ok.status).toBe(303);
    expect((await dash("GET", "/dashboard/account", { cookie: p.cookie })).status).toBe(200); // this session stays
    expect((await dash("GET", "/dashboard/account", { cookie: other.cookie })).status).toBe(303); // the other one is over
    expect((await dash("POST", "/dashboard/sign-in", { form: { email: p.email, password: p.password } })).status).toBe(401);
    expect((await dash("POST", "/dashboard/sign-in", { form: { email: p.email, password: "a brand new password" } })).status).toBe(303);
  });
});

describe("CSRF and headers", () => {
  it("refuses a state-changing request from another origin or without one", async () => {
    const { orgId, siteId } = await createSite();
    const p = await person(orgId, "owner");
    const cross = await dash("POST", `/dashboard/sites/${siteId}/keys`, { cookie: p.cookie, form: { name: "evil" }, origin: "https://evil.example" });
    expect(cross.status).toBe(403);
    expect(cross.html).toContain("sent from another website");
    const none = await dash("POST", `/dashboard/sites/${siteId}/keys`, { cookie: p.cookie, form: { name: "evil" }, origin: null });
    expect(none.status).toBe(403);
    const keys = await admin("GET", `/admin/v1/sites/${siteId}/keys`);
    expect(keys.body.keys.map((k: { name: string }) => k.name)).not.toContain("evil");
    const same = await dash("POST", `/dashboard/sites/${siteId}/keys`, { cookie: p.cookie, form: { name: "fine" } });
    expect(same.status).toBe(200);
  });

  it("every dashboard page carries a CSP without inline scripts or styles, and is not cached", async () => {
    for (const path of ["/dashboard", "/dashboard/nowhere"]) {
      const res = await dash("GET", path);
      const csp = res.headers.get("content-security-policy")!;
      expect(csp).toContain("default-src 'none'");
      expect(csp).toContain("style-src 'self'");
      expect(csp).not.toContain("unsafe-inline");
      expect(csp).not.toContain("script-src");
      expect(res.headers.get("cache-control")).toBe("no-store");
      expect(res.headers.get("x-frame-options")).toBe("DENY");
      expect(res.html).not.toMatch(/<script|style=/);
    }
    expect((await dash("GET", "/dashboard/nowhere")).status).toBe(404);
  });
});

describe("dashboard links", () => {
  it("default to the request's own origin + /dashboard when DASHBOARD_URL is unset, and keep the var when set", () => {
    const req = { url: "http://127.0.0.1:8787/v1/units/x/status" };
    expect(dashboardBase({ env: { ...env, DASHBOARD_URL: undefined } as Env, req })).toBe("http://127.0.0.1:8787/dashboard");
    expect(dashboardBase({ env: { ...env, DASHBOARD_URL: "" } as Env, req })).toBe("http://127.0.0.1:8787/dashboard");
    expect(dashboardBase({ env: { ...env, DASHBOARD_URL: "https://app.example.com/dash/" } as Env, req })).toBe("https://app.example.com/dash");
  });
});
