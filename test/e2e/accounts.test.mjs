/**
 * Accounts in the browser (`npm run test:e2e`), against a fresh `wrangler dev --local` with
 * the local outbox (DEV_MAILBOX=true) and SIGNUP=open: a forgotten password through the
 * outbox (with JavaScript, the link's token read from its fragment; without, the code pasted),
 * two-factor set-up and sign-in with a code computed as an authenticator app would, a pause of
 * sign-in that never reaches the owner's network and the mailed link that signs them in once,
 * and a newcomer's sign-up through the confirmation (where the password is chosen) to an API key
 * that answers GET /v1/site. No request the browser sends ever carries a link's token.
 * Every page is checked by axe-core and screenshotted to test/e2e/screenshots/accounts-*.png.
 */

import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
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

/** The newest mail to `to` in the local outbox page, as text: its first link under /dashboard/<path> (the token after `#`), and that token. */
async function mailLink(to, path) {
  await page.goto(`${server.base}/dashboard/dev/mail`);
  const mail = page.locator("article.mail", { has: page.locator(".mail-to", { hasText: to }) }).first();
  const text = await mail.locator(".mail-text").innerText();
  const m = new RegExp(`(http://127\\.0\\.0\\.1:\\d+/dashboard/${path}(?:\\?[^#\\s]*)?#([A-Za-z0-9_-]+))`).exec(text);
  assert.ok(m, `no /${path}#… link in the mail to ${to}: ${text}`);
  assert.ok(text.includes(`copy this one:\n\n${m[2]}`), "the mail prints the code for a browser without JavaScript");
  return { link: m[1], token: m[2] };
}

/**
 * Each test's requests come from a network of their own (wrangler dev passes the client address
 * through, as Cloudflare does): the sign-in limits count 10 a minute per network, and these
 * tests send more than that in a minute between them.
 */
let networks = 0;
const newNetwork = () => page.setExtraHTTPHeaders({ "cf-connecting-ip": `198.51.100.${++networks}` });

/** Every URL the browser requests (the fragment is never sent; these say so for the tokens). */
const requested = [];

/** No request line of the browser held the token. */
function neverRequested(token) {
  assert.ok(requested.length > 0);
  for (const url of requested) assert.ok(!url.includes(token), `a request carried the token: ${url}`);
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
  page.on("request", (r) => requested.push(r.url()));
  await newNetwork();
  const org = (await api("POST", "/admin/v1/organizations", { body: { name: "Readers Club" } })).body;
  const inv = await api("POST", `/admin/v1/organizations/${org.id}/invitations`, { body: { email: PERSON, role: "owner" } });
  assert.equal(inv.status, 201);
  await page.goto(inv.body.url);
  await page.getByLabel("Choose a password").fill(PASSWORD);
  neverRequested(new URL(inv.body.url).hash.slice(1));
  await page.getByRole("button", { name: /Join|Accept|Create/ }).click();
  await page.getByRole("heading", { name: "Your sites" }).waitFor();
  world.org = org;
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

test("a forgotten password: a one-time link through the outbox; an unknown address gets the same page", async () => {
  await newNetwork();
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

  const { link, token } = await mailLink(PERSON, "reset");
  await look("outbox");
  await page.goto(link);
  // The page's script read the token from the fragment, took it out of the address bar, and opened the link.
  await page.getByLabel("New password").fill("a fresh password 2026");
  assert.ok(!page.url().includes(token), `the address bar still holds the token: ${page.url()}`);
  await look("reset");
  await page.getByRole("button", { name: "Save the new password" }).click();
  await page.getByText("Your new password is saved").waitFor();
  await page.goto(link);
  await page.getByText("This link was used already").waitFor();
  await look("reset-used");
  neverRequested(token);
  await signIn(PERSON, "a fresh password 2026");
  await page.getByRole("heading", { name: "Your sites" }).waitFor();
});

test("without JavaScript, a link's page asks for the code printed in the mail, and finishes the same", async () => {
  await newNetwork();
  const plain = await browser.newContext({ viewport: { width: 1280, height: 900 }, javaScriptEnabled: false, extraHTTPHeaders: { "cf-connecting-ip": "198.51.100.200" } });
  const noScript = await plain.newPage();
  try {
    await noScript.goto(`${server.base}/dashboard/forgot`);
    await noScript.getByLabel("Email").fill(PERSON);
    await noScript.getByRole("button", { name: "Mail me a link" }).click();
    await noScript.getByRole("heading", { name: "Check your mail" }).waitFor();
    const { link, token } = await mailLink(PERSON, "reset");
    await noScript.goto(link);
    await noScript.getByLabel("Code from the mail").waitFor();
    // (axe runs in the page, so it is run on the same page with JavaScript below; here, the screenshot.)
    await noScript.screenshot({ path: join(SHOTS, "accounts-link-code-no-js.png"), fullPage: true });
    await noScript.getByLabel("Code from the mail").fill(token);
    await noScript.getByRole("button", { name: "Continue" }).click();
    await noScript.getByLabel("New password").fill("a fresh password 2026 too");
    await noScript.getByRole("button", { name: "Save the new password" }).click();
    await noScript.getByText("Your new password is saved").waitFor();
  } finally {
    await plain.close();
  }
  // The same page with JavaScript and no token in the address (the script leaves it alone): axe and a screenshot.
  await page.goto(`${server.base}/dashboard/reset`);
  await page.getByLabel("Code from the mail").waitFor();
  await look("link-code");
  await signIn(PERSON, "a fresh password 2026 too");
  await page.getByRole("heading", { name: "Your sites" }).waitFor();
});

test("two-factor sign-in: set up with a QR code and a first code; sign-in asks for a code and refuses a wrong one", async () => {
  await newNetwork();
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
  world.codes = await page.locator(".recovery-codes li").allInnerTexts();
  await look("recovery-codes");

  await page.goto(`${server.base}/dashboard`);
  await signOut();
  await signIn(PERSON, "a fresh password 2026 too");
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

test("ten wrong passwords from another network pause only that network; the owner signs in, and the mailed link signs them in once", async () => {
  await newNetwork();
  // Someone elsewhere guesses the owner's password (wrangler dev passes the client address through, as Cloudflare does).
  const guess = (password) =>
    fetch(`${server.base}/dashboard/sign-in`, {
      method: "POST",
      redirect: "manual",
      headers: { origin: server.base, "content-type": "application/x-www-form-urlencoded", "cf-connecting-ip": "203.0.113.66" },
      body: new URLSearchParams({ email: PERSON, password }),
    });
  for (let i = 0; i < 10; i++) assert.equal((await guess(`a wrong guess ${i}`)).status, 401);
  // That network is paused now (and past its per-minute limit anyway: test/dashboard covers the pause beyond it).

  // The owner, from their own network, signs in as usual.
  await page.goto(`${server.base}/dashboard`);
  await signOut();
  await signIn(PERSON, "a fresh password 2026 too");
  await page.getByRole("heading", { name: "Enter your sign-in code" }).waitFor();
  // (This 30-second step's app codes were used: a recovery code, as an owner without their phone would.)
  await page.getByLabel("Code").fill(world.codes[0]);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("heading", { name: "Your sites" }).waitFor();

  // The mail about the pause carries a link that signs in once, pause or not.
  await signOut();
  const { link, token } = await mailLink(PERSON, "unlock");
  await page.goto(link);
  await page.getByRole("heading", { name: "Sign in with your link" }).waitFor();
  await look("unlock");
  await page.getByLabel("Password").fill("a fresh password 2026 too");
  await page.getByLabel("Code from your authenticator app, or a recovery code").fill(world.codes[1]);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("heading", { name: "Your sites" }).waitFor();
  await page.goto(link);
  await page.getByText("This link was used already").waitFor();
  neverRequested(token);
  await page.goto(`${server.base}/dashboard`);
});

test("a newcomer signs up, verifies by mail, creates an organization and a site, and leaves with a key that answers GET /v1/site", async () => {
  await newNetwork();
  await signOut();
  await page.getByRole("link", { name: "Sign up" }).click();
  await page.getByLabel("Your name").fill("Nora Newcomer");
  await page.getByLabel("Email").fill("nora@example.com");
  await look("sign-up");
  await page.getByRole("button", { name: "Sign up" }).click();
  await page.getByRole("heading", { name: "Confirm your address" }).waitFor();
  await look("check-mail");

  // Not signed in yet: the mail's link opens the page where confirming is choosing the password; then sign in with it.
  const { link, token } = await mailLink("nora@example.com", "verify");
  await page.goto(link);
  await page.getByLabel("Choose a password").fill("a long enough password");
  await look("verify");
  await page.getByRole("button", { name: "Confirm and save the password" }).click();
  await page.getByText("Your address is confirmed and your password saved").waitFor();
  await look("verified");
  neverRequested(token);
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
