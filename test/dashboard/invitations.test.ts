/**
 * Invitations accept only their own account (issue 23, finding 1): a link alone never adds an
 * existing account to an organization; signed in as another email, nothing is accepted.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { controlDb } from "../../src/control/db";
import { acceptInvitation, createInvitation, findUser, openInvitation, roleIn } from "../../src/control/people.control";
import { admin, createSite } from "../helpers/api";
import { dash, openLink, person } from "../helpers/dashboard";
import { mailsTo } from "../helpers/mail";

let n = 0;
const email = (name: string) => `${name}-${++n}-${Date.now()}@bigcorp.example`;

/** An invitation made from the Members page by a signed-in owner or admin; the link as mailed (the inviter never sees it). */
async function inviteFromDashboard(cookie: string | null, orgId: number, address: string, role: "owner" | "admin" | "editor") {
  const res = await dash("POST", `/dashboard/organizations/${orgId}/members/invite`, { cookie, form: { email: address, role } });
  expect(res.status).toBe(303);
  const mails = await mailsTo(address, 1, "invitation");
  const token = /https:\/\/dash\.test\/invitations#([A-Za-z0-9_-]{43})/.exec(mails.at(-1)!.text)?.[1];
  expect(token).toBeDefined();
  return linkOf(token!);
}

async function inviteFromAdmin(orgId: number, address: string, role: "owner" | "admin" | "editor") {
  const res = await admin("POST", `/admin/v1/organizations/${orgId}/invitations`, { email: address, role });
  expect(res.status).toBe(201);
  return linkOf(new URL(res.body.url).hash.slice(1));
}

/** A link as the tests use it: the token, the link as mailed, opening it as a browser does (GET, then the page's form posting the token), and accepting (the accept form's POST). */
function linkOf(token: string) {
  return {
    token,
    link: `/dashboard/invitations#${token}`,
    open: async (opts: { cookie?: string | null; next?: string } = {}) =>
      (await openLink(`/dashboard/invitations${opts.next ? `?next=${encodeURIComponent(opts.next)}` : ""}#${token}`, opts)).opened,
    accept: (opts: { cookie?: string | null; form?: Record<string, string> } = {}) =>
      dash("POST", "/dashboard/invitations", { cookie: opts.cookie, form: { token, ...opts.form } }),
  };
}

const hiddenNext = (html: string) => /name="next" value="([^"]*)"/.exec(html)?.[1]?.replace(/&amp;/g, "&");

describe("the takeover across organizations (issue 23, finding 1)", () => {
  it("a link for an existing account joins nobody without a sign-in, so B's owner gets nothing of A", async () => {
    const victim = email("victim");
    const attackerPassword = "chosen by the owner of B";
    // The owner of organization B invites the victim, opens the link himself and chooses the password, then removes the member.
    const b = await createSite({ name: "Org B site" });
    const ownerB = await person(b.orgId, "owner");
    const linkB = await inviteFromDashboard(ownerB.cookie, b.orgId, victim, "editor");
    const opened = await linkB.accept({ form: { password: attackerPassword } });
    expect(opened.status).toBe(303);
    const membersB = await dash("GET", `/dashboard/organizations/${b.orgId}/members`, { cookie: ownerB.cookie });
    const victimId = new RegExp(`/dashboard/organizations/${b.orgId}/members/(\\d+)/remove`).exec(membersB.html.slice(membersB.html.indexOf(victim)))?.[1];
    expect(victimId).toBeDefined();
    expect((await dash("POST", `/dashboard/organizations/${b.orgId}/members/${victimId}/remove`, { cookie: ownerB.cookie })).status).toBe(303);

    // Later the owner of organization A invites the same address as admin.
    const a = await createSite({ name: "Org A site" });
    const ownerA = await person(a.orgId, "owner");
    const linkA = await inviteFromDashboard(ownerA.cookie, a.orgId, victim, "admin");

    // The page asks to sign in as that account; it offers no way to accept without one.
    const page = await linkA.open();
    expect(page.status).toBe(200);
    expect(page.html).toContain("already has an account");
    expect(page.html).toContain('action="/dashboard/sign-in"');
    expect(hiddenNext(page.html)).toBe(linkA.link);
    expect(page.html).not.toContain("Accept invitation");

    // Posting to A's link with no sign-in (with or without a password) joins nobody.
    for (const form of [{}, { password: "" }, { password: "a brand new password" }] as Record<string, string>[]) {
      const post = await linkA.accept({ form });
      expect(post.status).toBe(401);
      expect(post.cookie).toBeNull();
      expect(post.location).toBeNull();
      expect(post.html).toContain(`sign in as ${victim}`);
    }
    const membersA = await dash("GET", `/dashboard/organizations/${a.orgId}/members`, { cookie: ownerA.cookie });
    const members = membersA.html.slice(0, membersA.html.indexOf("Open invitations"));
    expect(members).not.toContain(victim);
    expect(membersA.html.slice(membersA.html.indexOf("Open invitations"))).toContain(victim); // still open, for the real person
    expect((await linkA.open()).status).toBe(200);

    // B's owner signs in with the password he chose: A's keys page does not exist for him, and he cannot make a key.
    const signedIn = await dash("POST", "/dashboard/sign-in", { form: { email: victim, password: attackerPassword } });
    expect(signedIn.status).toBe(303);
    expect((await dash("GET", `/dashboard/sites/${a.siteId}/keys`, { cookie: signedIn.cookie })).status).toBe(404);
    expect((await dash("POST", `/dashboard/sites/${a.siteId}/keys`, { cookie: signedIn.cookie, form: { name: "stolen" } })).status).toBe(404);
    const keys = await admin("GET", `/admin/v1/sites/${a.siteId}/keys`);
    expect(keys.body.keys.map((k: { name: string }) => k.name)).toEqual(["test"]);
    expect((await dash("GET", "/dashboard", { cookie: signedIn.cookie })).html).not.toContain("Org A site");
  });
});

describe("accepting as the invited account", () => {
  it("sign-in from the invitation page comes back to it, and accepting there joins with the invited role", async () => {
    const c = await createSite();
    const d = await createSite({ name: "Site of D" });
    const x = await person(c.orgId, "editor", email("x"));
    const link = await inviteFromAdmin(d.orgId, x.email, "admin");

    const page = await link.open({ next: `/dashboard/sites/${d.siteId}` });
    const next = hiddenNext(page.html)!;
    // Back to the link after signing in: its token in the fragment, never in a request line.
    expect(next).toBe(`/dashboard/invitations?next=${encodeURIComponent(`/dashboard/sites/${d.siteId}`)}#${link.token}`);
    const signIn = await dash("POST", "/dashboard/sign-in", { form: { email: x.email, password: x.password, next } });
    expect(signIn.status).toBe(303);
    expect(signIn.location).toBe(next);

    const back = (await openLink(signIn.location!, { cookie: signIn.cookie })).opened;
    expect(back.status).toBe(200);
    expect(back.html).toContain(`You are signed in as ${x.email}`);
    expect(back.html).toContain("Accept invitation");
    const accepted = await link.accept({ cookie: signIn.cookie, form: { next: hiddenNext(back.html)! } });
    expect(accepted.status).toBe(303);
    expect(accepted.location).toBe(`/dashboard/sites/${d.siteId}?done=joined`);
    expect((await dash("GET", `/dashboard/sites/${d.siteId}/keys`, { cookie: signIn.cookie })).status).toBe(200); // admin of D now
    expect((await link.open()).status).toBe(404); // the link worked once
    const audit = await admin("GET", `/admin/v1/audit?organization_id=${d.orgId}`);
    expect(audit.body.items.map((i: { action: string }) => i.action)).toContain("invitation.accept");
  });

  it("in the domain: nobody signed in is refused for an existing account (the link stays usable); the account itself joins, keeping a higher role", async () => {
    const db = controlDb(env.DB);
    const { orgId } = await createSite();
    const owner = await person(orgId, "owner", email("twice"));
    const user = (await findUser(db, owner.email))!;
    const second = await createInvitation(db, { organizationId: orgId, email: owner.email, role: "editor", invitedBy: null, actor: "admin" });
    await expect(acceptInvitation(db, second.token, { signedIn: null, password: "a long enough password" })).rejects.toMatchObject({ status: 401 });
    expect(await openInvitation(db, second.token)).toBeDefined();
    const joined = await acceptInvitation(db, second.token, { signedIn: { userId: user.id, email: user.email } });
    expect(joined).toEqual({ userId: user.id, organizationId: orgId, newAccount: false });
    expect(await roleIn(db, user.id, orgId)).toBe("owner");
  });
});

describe("signed in as another email", () => {
  it("an invitation for an existing account is refused plainly and stays open", async () => {
    const e = await createSite();
    const f = await createSite({ name: "Site of F" });
    const x = await person(e.orgId, "editor", email("x"));
    const y = await person(e.orgId, "editor", email("y"));
    const link = await inviteFromAdmin(f.orgId, x.email, "editor");

    const page = await link.open({ cookie: y.cookie });
    expect(page.status).toBe(200);
    expect(page.html).toContain(`You are signed in as <strong>${y.email}</strong>, so you cannot accept an invitation for ${x.email}`);
    expect(page.html).not.toContain("Accept invitation");
    const post = await link.accept({ cookie: y.cookie });
    expect(post.status).toBe(403);
    expect(post.html).toContain(`This invitation is for ${x.email}, but you are signed in as ${y.email}.`);
    expect((await dash("GET", `/dashboard/sites/${f.siteId}`, { cookie: y.cookie })).status).toBe(404);
    expect((await link.open()).status).toBe(200); // still open

    const db = controlDb(env.DB);
    const yUser = (await findUser(db, y.email))!;
    await expect(acceptInvitation(db, link.token, { signedIn: { userId: yUser.id, email: yUser.email } })).rejects.toMatchObject({ status: 403 });
    expect(await roleIn(db, yUser.id, f.orgId)).toBeUndefined();
  });

  it("an invitation for a new account neither creates it nor attaches it; signing out returns to the link, which then works", async () => {
    const g = await createSite();
    const y = await person(g.orgId, "owner", email("y"));
    const z = email("z");
    const link = await inviteFromAdmin(g.orgId, z, "editor");

    const page = await link.open({ cookie: y.cookie });
    expect(page.html).not.toContain("Choose a password");
    const post = await link.accept({ cookie: y.cookie, form: { password: "a long enough password" } });
    expect(post.status).toBe(403);
    expect(post.cookie).toBeNull();
    expect(await findUser(controlDb(env.DB), z)).toBeUndefined();

    const out = await dash("POST", "/dashboard/sign-out", { cookie: y.cookie, form: { next: hiddenNext(page.html)! } });
    expect(out.status).toBe(303);
    expect(out.location).toBe(`/dashboard/invitations?done=signed-out#${link.token}`);
    const fresh = (await openLink(out.location!)).opened;
    expect(fresh.html).toContain("Choose a password");
    const created = await link.accept({ form: { password: "a long enough password" } });
    expect(created.status).toBe(303);
    expect(created.location).toBe("/dashboard?done=joined");
  });
});

describe("next on invitations and sign-in", () => {
  it("a next with CR/LF is refused with 400 before anything is done; another site's address falls back to /dashboard", async () => {
    const { orgId } = await createSite();
    const newcomer = email("crlf");
    const link = await inviteFromAdmin(orgId, newcomer, "editor");
    for (const next of ["/dashboard\r\nSet-Cookie: a=b", "/dashboard\n", "/dashboard/\u0000", "/dashboard/\u007f", "/dashboard/\u0085"]) {
      const res = await link.accept({ form: { password: "a long enough password", next } });
      expect(res.status, JSON.stringify(next)).toBe(400);
      expect(res.cookie).toBeNull();
    }
    expect(await findUser(controlDb(env.DB), newcomer)).toBeUndefined(); // no account made, the link still open
    expect((await link.open()).status).toBe(200);

    const p = await person(orgId, "editor", email("signin"));
    const bad = await dash("POST", "/dashboard/sign-in", { form: { email: p.email, password: p.password, next: "/dashboard\r\nLocation: https://evil.example" } });
    expect(bad.status).toBe(400);
    expect(bad.cookie).toBeNull();
    for (const [next, landing] of [
      ["https://evil.example/x", "/dashboard"],
      ["//evil.example/dashboard", "/dashboard"],
      ["/dashboard/../v1/docs", "/dashboard"],
      ["/dashboard/%2e%2e/v1/docs", "/dashboard"],
      ["/dashboard\\@evil.example", "/dashboard"],
      ["/dashboardx", "/dashboard"],
      ["/dashboard/sites/1/units/caf\u00e9?a=\u20ac", "/dashboard/sites/1/units/caf%C3%A9?a=%E2%82%AC"],
    ]) {
      const res = await dash("POST", "/dashboard/sign-in", { form: { email: p.email, password: p.password, next } });
      expect(res.status, next).toBe(303);
      expect(res.location, next).toBe(landing);
    }
  });
});
