/**
 * Invitations are not a mail relay (issue 37, finding 5): names refuse control characters at
 * every door, subjects carry customer text only quoted and without controls, and invitation
 * mails (new and resent) and sign-up's "you already have an account" mails are limited per day,
 * counted in D1 and tested with the clock moved.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { controlDb } from "../../src/control/db";
import { MAIL_LIMITS } from "../../src/control/mail-budget.control";
import { pendingInvitations } from "../../src/control/people.control";
import { invitationMail, usageMail } from "../../src/mail/templates";
import { invite } from "../../src/ops/people.ops";
import { signUp } from "../../src/ops/signup.ops";
import { admin, createSite } from "../helpers/api";
import { dash, person } from "../helpers/dashboard";
import { mailsTo } from "../helpers/mail";

let n = 0;
const address = (name: string) => `${name}-${++n}-${Date.now()}@relay.example`;
const HOUR = 3_600_000;
const BASE = "https://dash.test";

/** The control characters of the rule, each in a name. */
const CONTROLS = ["\r\n", "\n", "\r", "\t", "\u0000", "\u001b", "\u007f", "\u0085", "\u009b", "\u2028", "\u2029"];
const named = (c: string) => `Acme${c}Bcc: victim@example.com`;

describe("names refuse control characters at every door", () => {
  it("the admin API: organizations, new sites and renamed sites answer 422 naming the field", async () => {
    for (const c of CONTROLS) {
      const org = await admin("POST", "/admin/v1/organizations", { name: named(c) });
      expect(org.status, JSON.stringify(c)).toBe(422);
      expect(org.body.detail).toMatch(/^name .*(control characters|U\+0000)/);
    }
    const site = await createSite();
    for (const c of CONTROLS) {
      const created = await admin("POST", "/admin/v1/sites", {
        organization_id: site.orgId,
        name: named(c),
        source_language: "en",
        target_languages: [{ code: "de", engine: "pseudo" }],
      });
      expect(created.status, JSON.stringify(c)).toBe(422);
      expect(created.body.detail).toMatch(/^name .*(control characters|U\+0000)/);
      const renamed = await admin("PATCH", `/admin/v1/sites/${site.siteId}`, { name: named(c) });
      expect(renamed.status).toBe(422);
      expect(renamed.body.detail).toMatch(/^name .*(control characters|U\+0000)/);
    }
    // Plain names with quotes, accents and emoji stay fine.
    expect((await admin("POST", "/admin/v1/organizations", { name: 'Zoë\'s "Café" 🍰' })).status).toBe(201);
  });

  it("the dashboard: a site's settings and sign-up's organization step answer 422 with the field's rule", async () => {
    const site = await createSite({ name: "Plain site" });
    const owner = await person(site.orgId, "owner");
    const settings = await dash("POST", `/dashboard/sites/${site.siteId}/settings`, {
      cookie: owner.cookie,
      form: {
        name: "Evil\r\nSubject",
        languages: "1",
        l0_code: "de",
        l0_engine: "pseudo",
        l0_formality: "default",
        l0_writable: "1",
        qa_mode: "editors",
        review_mode: "draft",
        adapters: ["wordpress"],
        engines: ["pseudo"],
      },
    });
    expect(settings.status).toBe(422);
    expect(settings.html).toContain("control characters");
    const org = await dash("POST", "/dashboard/organizations", { cookie: owner.cookie, form: { name: "Evil\u2028Org" } });
    expect(org.status).toBe(422);
    expect(org.html).toContain("name must not contain control characters");
  });
});

describe("subjects", () => {
  it("carry customer text quoted, without control characters, even for a name stored before the rule", () => {
    const mail = invitationMail("a@example.com", {
      organization: "Acme\r\nBcc: victim@example.com",
      role: "editor",
      link: `${BASE}/invitations/x`,
      expiresAt: new Date().toISOString(),
    });
    expect(mail.subject).toBe('You are invited to "Acme Bcc: victim@example.com" on Transync');
    expect(mail.subject).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/);
    const usage = usageMail("a@example.com", { organization: `${"x".repeat(100)}\u2028`, percent: 80, used: 1, included: 2, month: "2026-11", link: BASE });
    expect(usage.subject).toMatch(/^"x{59}…" has used 80 %/);
  });
});

describe("invitation mails are limited", () => {
  it("per address from one organization: the 4th in a day is 429 with Retry-After from the admin API, and passes a day later", async () => {
    const site = await createSite();
    const to = address("target");
    for (let i = 0; i < MAIL_LIMITS.invitee; i++)
      expect((await admin("POST", `/admin/v1/organizations/${site.orgId}/invitations`, { email: to, role: "editor" })).status).toBe(201);
    const over = await admin("POST", `/admin/v1/organizations/${site.orgId}/invitations`, { email: to, role: "editor" });
    expect(over.status).toBe(429);
    expect(over.body.detail).toContain("to this address from this organization");
    expect(Number(over.headers.get("retry-after"))).toBeGreaterThan(23 * 3600);
    expect(await mailsTo(to, MAIL_LIMITS.invitee + 1)).toHaveLength(MAIL_LIMITS.invitee);
    // The clock moved a day on: the window has room again.
    const operator = { actor: "admin" as const, userId: null, role: null };
    await expect(invite(env, operator, site.orgId, { email: to, role: "editor" }, BASE, new Date(Date.now() + 24 * HOUR + 60_000))).resolves.toMatchObject({ email: to });
  });

  it("resends count too: the dashboard shows the limit on the Members page (429)", async () => {
    const site = await createSite();
    const owner = await person(site.orgId, "owner");
    const to = address("resent");
    const members = `/dashboard/organizations/${site.orgId}/members`;
    expect((await dash("POST", `${members}/invite`, { cookie: owner.cookie, form: { email: to, role: "editor" } })).status).toBe(303);
    const [inv] = (await pendingInvitations(controlDb(env.DB), site.orgId)).filter((i) => i.email === to);
    for (let i = 1; i < MAIL_LIMITS.invitee; i++) expect((await dash("POST", `${members}/invitations/${inv.id}/resend`, { cookie: owner.cookie })).status).toBe(303);
    const over = await dash("POST", `${members}/invitations/${inv.id}/resend`, { cookie: owner.cookie });
    expect(over.status).toBe(429);
    expect(over.headers.get("retry-after")).toMatch(/^\d+$/);
    expect(over.html).toContain("Too many invitations");
    expect(await mailsTo(to, MAIL_LIMITS.invitee + 1)).toHaveLength(MAIL_LIMITS.invitee);
  });

  it("per inviter (20 a day) and per organization (50 a day), with the clock moved", async () => {
    const site = await createSite();
    const t0 = Date.now();
    const member = (userId: number) => ({ actor: `user:${userId}` as const, userId, role: "owner" as const });
    const at = (ms: number) => new Date(t0 + ms);
    for (let i = 0; i < MAIL_LIMITS.inviter; i++) await invite(env, member(9_000_001), site.orgId, { email: address("a"), role: "editor" }, BASE, at(i * 1000));
    await expect(invite(env, member(9_000_001), site.orgId, { email: address("a"), role: "editor" }, BASE, at(HOUR))).rejects.toMatchObject({
      status: 429,
      detail: expect.stringContaining("you have sent 20"),
    });
    // Others of the organization go on until the organization's 50.
    let sent = MAIL_LIMITS.inviter;
    for (let who = 9_000_002; sent < MAIL_LIMITS.organization; who++)
      for (let i = 0; i < 10 && sent < MAIL_LIMITS.organization; i++, sent++) await invite(env, member(who), site.orgId, { email: address("b"), role: "editor" }, BASE, at(HOUR));
    const over = invite(env, member(9_000_099), site.orgId, { email: address("c"), role: "editor" }, BASE, at(2 * HOUR));
    await expect(over).rejects.toMatchObject({ status: 429, detail: expect.stringContaining("this organization has sent 50") });
    // A day after the first ones, their places are free again.
    await expect(invite(env, member(9_000_001), site.orgId, { email: address("d"), role: "editor" }, BASE, at(24 * HOUR + 30_000))).resolves.toBeDefined();
  });

  it("per address across organizations (10 a day)", async () => {
    const to = address("popular");
    for (let i = 0; i < MAIL_LIMITS.address; i++) {
      const { orgId } = await createSite();
      expect((await admin("POST", `/admin/v1/organizations/${orgId}/invitations`, { email: to, role: "editor" })).status).toBe(201);
    }
    const { orgId } = await createSite();
    const over = await admin("POST", `/admin/v1/organizations/${orgId}/invitations`, { email: to, role: "editor" });
    expect(over.status).toBe(429);
    expect(over.body.detail).toContain("have gone to this address");
  });
});

describe('sign-up\'s "you already have an account" mails are limited per address', () => {
  it("3 a day, then nothing more until the day has passed", async () => {
    const { orgId } = await createSite();
    const taken = await person(orgId, "editor", address("taken"));
    const t0 = Date.now();
    for (let i = 0; i < MAIL_LIMITS.alreadyRegistered + 2; i++) await signUp(env, { email: taken.email, name: "Someone" }, BASE, new Date(t0 + i * 1000));
    expect(await mailsTo(taken.email, MAIL_LIMITS.alreadyRegistered + 1, "already_registered")).toHaveLength(MAIL_LIMITS.alreadyRegistered);
    await signUp(env, { email: taken.email, name: "Someone" }, BASE, new Date(t0 + 24 * HOUR + 60_000));
    expect(await mailsTo(taken.email, MAIL_LIMITS.alreadyRegistered + 1, "already_registered")).toHaveLength(MAIL_LIMITS.alreadyRegistered + 1);
  });
});
