/** Self-serve sign-up (SIGNUP=open in the test pool): sign-up → verification mail, whose page sets the password → organization → site → a key that answers GET /v1/site. */

import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/app";
import { createSite, request } from "../helpers/api";
import { dash, openLink, person } from "../helpers/dashboard";
import { linkIn, mailsTo, tokenIn } from "../helpers/mail";

const unique = () => `new-${Date.now()}-${Math.floor(Math.random() * 1e6)}@example.com`;

describe("sign-up", () => {
  it("leads a newcomer from sign-up through verification, organization and site to an API key that answers GET /v1/site", async () => {
    const email = unique();
    expect((await dash("GET", "/dashboard")).html).toContain('href="/dashboard/sign-up"');
    const signed = await dash("POST", "/dashboard/sign-up", { form: { name: "Ada Newcomer", email } });
    expect(signed.status).toBe(200);
    expect(signed.html).toContain("Confirm your address");
    expect(signed.html).toContain("choose your password");
    expect(signed.cookie).toBeNull(); // nobody is signed in by signing up

    // Unverified: there is no password yet; signing in answers as a wrong password does, and makes no session.
    const early = await dash("POST", "/dashboard/sign-in", { form: { email, password: "a long enough password" } });
    expect(early.status).toBe(401);
    expect(early.cookie).toBeNull();

    const [mail] = await mailsTo(email, 1, "verify");
    expect(mail.html).toContain("Confirm and choose a password");
    expect(mail.text).toContain("If it was not you, ignore this mail");
    const link = linkIn(mail.text, "verify");
    // The link's page asks for the password; confirming sets it and signs nobody in.
    const { opened: page, token } = await openLink(link);
    expect(page.status).toBe(200);
    expect(page.html).toContain(email);
    expect(page.html).toContain('value="Ada Newcomer"');
    expect(page.html).toContain('action="/dashboard/verify"');
    const confirm = (password: string, t = token) => dash("POST", "/dashboard/verify", { form: { token: t, name: "Ada Newcomer", password } });
    const weak = await confirm("short");
    expect(weak.status).toBe(422);
    expect(weak.html).toContain("password: use at least 10 characters");
    const verified = await confirm("a long enough password");
    expect(verified.status).toBe(303);
    expect(verified.location).toBe("/dashboard?done=confirmed");
    expect(verified.cookie).toBeNull();
    expect((await dash("GET", verified.location!)).html).toContain("Your address is confirmed and your password saved");
    expect((await openLink(link)).opened.status).toBe(410); // once
    expect((await confirm("another long password")).status).toBe(410);
    const signedIn = await dash("POST", "/dashboard/sign-in", { form: { email, password: "a long enough password" } });
    expect(signedIn.status).toBe(303);
    const cookie = signedIn.cookie;

    const home = await dash("GET", "/dashboard", { cookie });
    expect(home.html).toContain("/dashboard/organizations/new");
    const org = await dash("POST", "/dashboard/organizations", { cookie, form: { name: "Ada's Shop" } });
    expect(org.status).toBe(303);
    const newSite = await dash("GET", org.location!, { cookie });
    expect(newSite.html).toContain("Your first site");
    expect(newSite.html).toContain('<option value="pseudo"');
    expect(newSite.html).not.toContain('<option value="deepl"'); // no DeepL credentials in the pool
    const orgId = /organizations\/(\d+)\/sites/.exec(org.location!)![1];

    const bad = await dash("POST", `/dashboard/organizations/${orgId}/sites`, {
      cookie,
      form: { name: "Shop", source_language: "en", t0_code: "de", t0_engine: "deepl", adapters: ["wordpress"] },
    });
    expect(bad.status).toBe(422);
    expect(bad.html).toContain("not set up on this service");

    const created = await dash("POST", `/dashboard/organizations/${orgId}/sites`, {
      cookie,
      form: { name: "Shop", source_language: "en", t0_code: "de", t0_engine: "pseudo", t1_code: "fr", t1_engine: "pseudo", adapters: ["wordpress", "strapi"] },
    });
    expect(created.status).toBe(200);
    expect(created.html).toContain("Shop is ready");
    expect(created.html).toContain("/v1/handshake");
    const key = /id="key-value"[^>]*value="([^"]+)"/.exec(created.html)![1];
    expect(key).toMatch(/^tsk_/);
    expect(created.html).toContain(`Bearer ${key}`); // the quick start carries the key

    const site = await request("GET", "/v1/site", { key });
    expect(site.status).toBe(200);
    expect(site.body).toMatchObject({ name: "Shop", organization: "Ada's Shop", source_language: "en", enabled_adapters: ["wordpress", "strapi"] });
    expect(site.body.target_languages.map((t: { code: string }) => t.code)).toEqual(["de", "fr"]);

    // Further sites from the organization's page; no key is made for those.
    const second = await dash("POST", `/dashboard/organizations/${orgId}/sites`, {
      cookie,
      form: { name: "Blog", source_language: "en", t0_code: "es", t0_engine: "pseudo", adapters: ["drupal"] },
    });
    expect(second.status).toBe(303);
    expect(second.location).toMatch(/^\/dashboard\/sites\/\d+\?done=site-created$/);
  });

  it("an address that already has an account gets a mail saying so, and the same page", async () => {
    const { orgId } = await createSite();
    const p = await person(orgId, "editor");
    const taken = await dash("POST", "/dashboard/sign-up", { form: { name: "Someone", email: p.email.toUpperCase() } });
    const fresh = await dash("POST", "/dashboard/sign-up", { form: { name: "Someone", email: unique() } });
    expect(taken.status).toBe(200);
    expect(taken.html).toBe(fresh.html);
    const [mail] = await mailsTo(p.email, 1, "already_registered");
    expect(mail.subject).toBe("You already have a Transync account");
    expect(mail.text).toContain("https://dash.test/forgot");
    // The existing account is untouched: the old password still signs in.
    expect((await dash("POST", "/dashboard/sign-in", { form: { email: p.email, password: p.password } })).status).toBe(303);
  });

  it("a new verification link can be asked for; following one ends the others", async () => {
    const email = unique();
    await dash("POST", "/dashboard/sign-up", { form: { name: "Twice", email } });
    // Signed out (an unverified address cannot sign in): from the sign-in page's link.
    expect((await dash("GET", "/dashboard")).html).toContain('href="/dashboard/verify/resend"');
    const resent = await dash("POST", "/dashboard/verify/resend", { form: { email } });
    expect(resent.html).toContain("a new link is on its way");
    const [first, second] = await mailsTo(email, 2, "verify");
    expect((await dash("POST", "/dashboard/verify", { form: { token: tokenIn(second.text, "verify"), name: "Twice", password: "a long enough password" } })).status).toBe(303);
    const old = (await openLink(linkIn(first.text, "verify"))).opened;
    expect(old.status).toBe(410);
    expect(old.html).toContain("This link was used already");
    const signedIn = await dash("POST", "/dashboard/sign-in", { form: { email, password: "a long enough password" } });
    expect((await dash("GET", "/dashboard", { cookie: signedIn.cookie })).status).toBe(200); // verified now
  });

  it("refuses a bad form naming the field, and limits sign-ups per client", async () => {
    const nameless = await dash("POST", "/dashboard/sign-up", { form: { name: " ", email: unique() } });
    expect(nameless.status).toBe(422);
    expect(nameless.html).toContain("name: enter your name");
    const bad = await dash("POST", "/dashboard/sign-up", { form: { name: "X", email: "not an address" } });
    expect(bad.status).toBe(422);
    expect(bad.html).toContain("email: enter an email address");
    const headers = { "cf-connecting-ip": `198.51.100.${Math.floor(Math.random() * 200)}` };
    const answers = [];
    for (let i = 0; i < 11; i++) answers.push((await dash("POST", "/dashboard/sign-up", { form: { name: "X", email: unique() }, headers })).status);
    expect(answers.slice(0, 10).every((s) => s === 200)).toBe(true);
    expect(answers[10]).toBe(429);
  });

  it("does not exist with SIGNUP=invite (the default)", async () => {
    const app = createApp();
    const ctx = createExecutionContext();
    const res = await app.fetch(new Request("https://api.test/dashboard/sign-up"), { ...env, SIGNUP: "invite" }, ctx);
    await waitOnExecutionContext(ctx);
    expect(res.status).toBe(404);
    const signInPage = await app.fetch(new Request("https://api.test/dashboard"), { ...env, SIGNUP: undefined }, createExecutionContext());
    expect(await signInPage.text()).not.toContain("/dashboard/sign-up");
  });
});
