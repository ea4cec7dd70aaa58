/**
 * Accounts in the browser (`npm run test:e2e`), against a fresh `wrangler dev --local` with
 * the local outbox (DEV_MAILBOX=true) and SIGNUP=open: a forgotten password through the
 * outbox, two-factor set-up and sign-in with a code computed as an authenticator app would,
 * and a newcomer's sign-up through verification to an API key that answers GET /v1/site.
 * Every page is checked by axe-core and screenshotted to test/e2e/screenshots/accounts-*.png.
 */

import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { after, before, test } from "node:test";
import { Secret, TOTP } from "otpauth";
import { chromium } from "playwright-core";
import { chromiumPath, lookAt, SHOTS } from "./look.mjs";
import { ADMIN_TOKEN, startServer } from "./server.mjs";

const PASSWORD = "correct horse battery staple";
const PERSON = "reader@example.com";

let server;
let browser;
let context;
let page;
const world = {};

async function api(method, path, { key = ADMIN_TOKEN, body } = {}) {
  const res = await fetch(server.base + path, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body ? { "content-type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

async function look(name) {
  await lookAt(page, `accounts-${name}`);
}

/** The newest mail to `to` in the local outbox page, as text; its first link under /dashboard/<path>/. */
async function mailLink(to, path) {
  await page.goto(`${server.base}/dashboard/dev/mail`);
  const mail = page.locator("article.mail", { has: page.locator(".mail-to", { hasText: to }) }).first();
  const text = await mail.locator(".mail-text").innerText();
  const m = new RegExp(`(http://127\\.0\\.0\\.1:\\d+/dashboard/${path}/[A-Za-z0-9_-]+)`).exec(text);
  assert.ok(m, `no /${path}/ link in the mail to ${to}: ${text}`);
  return m[1];
}

async function signIn(email, password) {
  await page.goto(`${server.base}/dashboard`);
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
}

async function signOut() {
  await page.getByRole("button", { name: "Sign out" }).click();
  await page.getByText("You are signed out.").waitFor();
}

before(async () => {
  mkdirSync(SHOTS, { recursive: true });
  server = await startServer();
  browser = await chromium.launch({ executablePath: chromiumPath(), args: ["--no-sandbox", "--headless", "--disable-gpu", "--disable-background-networking", "--no-first-run"] });
  context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  page = await context.newPage();
  const org = (await api("POST", "/admin/v1/organizations", { body: { name: "Readers Club" } })).body;
  const inv = await api("POST", `/admin/v1/organizations/${org.id}/invitations`, { body: { email: PERSON, role: "owner" } });
  assert.equal(inv.status, 201);
  await page.goto(inv.body.url);
  await page.getByLabel("Choose a password").fill(PASSWORD);
  await page.getByRole("button", { name: /Join|Accept|Create/ }).click();
  await page.getByRole("heading", { name: "Your sites" }).waitFor();
  world.org = org;
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

test("a forgotten password: a one-time link through the outbox; an unknown address gets the same page", async () => {
  await signOut();
  await page.getByRole("link", { name: "Forgot your password?" }).click();
  await look("forgot");
  await page.getByLabel("Email").fill("nobody@example.com");
  await page.getByRole("button", { name: "Mail me a link" }).click();
  const unknownText = await page.locator("main").innerText();
  await page.goto(`${server.base}/dashboard/forgot`);
  await page.getByLabel("Email").fill(PERSON);
  await page.getByRole("button", { name: "Mail me a link" }).click();
  await page.getByRole("heading", { name: "Check your mail" }).waitFor();
  assert.equal(await page.locator("main").innerText(), unknownText, "the same page whether or not the address has an account");
  await look("forgot-sent");

  const link = await mailLink(PERSON, "reset");
  await look("outbox");
  await page.goto(link);
  await page.getByLabel("New password").fill("a fresh password 2026");
  await look("reset");
  await page.getByRole("button", { name: "Save the new password" }).click();
  await page.getByText("Your new password is saved").waitFor();
  await page.goto(link);
  await page.getByText("This link was used already").waitFor();
  await look("reset-used");
  await signIn(PERSON, "a fresh password 2026");
  await page.getByRole("heading", { name: "Your sites" }).waitFor();
});

test("two-factor sign-in: set up with a QR code and a first code; sign-in asks for a code and refuses a wrong one", async () => {
  await page.goto(`${server.base}/dashboard/account`);
  await look("account");
  await page.getByRole("link", { name: "Set up two-factor sign-in" }).click();
  await page.getByRole("img", { name: /QR code/ }).waitFor();
  const secret = (await page.locator("#setup-key").innerText()).replace(/\s+/g, "");
  const totp = new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30, algorithm: "SHA1" });
  await look("two-factor-setup");
  await page.getByLabel("Code from the app").fill(totp.generate());
  await page.getByRole("button", { name: "Turn on two-factor sign-in" }).click();
  await page.getByRole("heading", { name: "Two-factor sign-in is on" }).waitFor();
  assert.equal(await page.locator(".recovery-codes li").count(), 10);
  await look("recovery-codes");

  await page.goto(`${server.base}/dashboard`);
  await signOut();
  await signIn(PERSON, "a fresh password 2026");
  await page.getByRole("heading", { name: "Enter your sign-in code" }).waitFor();
  await page.getByLabel("Code").fill("000000");
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByText("that code is not right").waitFor();
  await look("code-wrong");
  // The set-up used this 30-second step's code: an authenticator shows the next one soon; take it.
  await page.getByLabel("Code").fill(totp.generate({ timestamp: Date.now() + 30_000 }));
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("heading", { name: "Your sites" }).waitFor();
});

test("a newcomer signs up, verifies by mail, creates an organization and a site, and leaves with a key that answers GET /v1/site", async () => {
  await signOut();
  await page.getByRole("link", { name: "Sign up" }).click();
  await page.getByLabel("Your name").fill("Nora Newcomer");
  await page.getByLabel("Email").fill("nora@example.com");
  await page.getByLabel("Password").fill("a long enough password");
  await look("sign-up");
  await page.getByRole("button", { name: "Sign up" }).click();
  await page.getByRole("heading", { name: "Confirm your address" }).waitFor();
  await look("check-mail");

  // Not signed in yet: the mail's link opens a page whose button confirms; then sign in with the password.
  await page.goto(await mailLink("nora@example.com", "verify"));
  await page.getByRole("button", { name: "Confirm my address" }).click();
  await page.getByRole("heading", { name: "Your address is confirmed" }).waitFor();
  await look("verified");
  await signIn("nora@example.com", "a long enough password");
  await page.getByRole("link", { name: "Create your organization" }).click();
  await page.getByLabel("Organization name").fill("Nora's Books");
  await look("new-organization");
  await page.getByRole("button", { name: "Create organization" }).click();
  await page.getByRole("heading", { name: "Your first site" }).waitFor();
  await page.getByLabel("Site name").fill("books.example");
  await page.getByLabel("Source language (the website's own)").fill("en");
  await page.getByLabel("Language 1", { exact: true }).fill("de");
  await page.getByLabel("Language 2", { exact: true }).fill("fr");
  await look("new-site");
  await page.getByRole("button", { name: "Create site" }).click();
  await page.getByRole("heading", { name: "books.example is ready" }).waitFor();
  await look("first-key");
  const key = await page.getByLabel("API key").inputValue();
  assert.match(await page.getByLabel("Handshake (copy and run in a terminal)").inputValue(), new RegExp(`Bearer ${key}`));
  const site = await api("GET", "/v1/site", { key });
  assert.equal(site.status, 200, JSON.stringify(site.body));
  assert.equal(site.body.name, "books.example");
  assert.equal(site.body.organization, "Nora's Books");
  assert.deepEqual(
    site.body.target_languages.map((t) => t.code),
    ["de", "fr"],
  );
});
