/**
 * An owner on the Billing page (`npm run test:e2e`): headless Chromium against `wrangler dev
 * --local` running the `stripe` provider, whose SDK talks to a local fake of Stripe started
 * here (STRIPE_API_BASE). Plan shown → Choose a plan → the browser lands on the Checkout URL the
 * fake answered → a signed webhook (the SDK's own test header) → the page shows the new plan.
 * axe on every page, screenshots in test/e2e/screenshots/.
 */

import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { after, before, test } from "node:test";
import { chromium } from "playwright-core";
import Stripe from "stripe";
import { E2E_PRICES, startFakeStripe, subscription } from "./fake-stripe.mjs";
import { chromiumPath, lookAt, SHOTS } from "./look.mjs";
import { ADMIN_TOKEN, startServer } from "./server.mjs";

const PASSWORD = "correct horse battery staple";
const WEBHOOK_SECRET = "whsec_e2e_0123456789abcdef";

let fake;
let server;
let browser;
let context;
let page;
const world = {};

async function must(method, path, body, status) {
  const res = await fetch(server.base + path, {
    method,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...(body ? { "content-type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  assert.equal(res.status, status, `${method} ${path}: ${text}`);
  return text ? JSON.parse(text) : null;
}

async function look(name) {
  await lookAt(page, name);
}

/** What Stripe would send after the payment: signed with the endpoint's secret by the SDK's own helper. */
async function sendWebhook(type, object) {
  const payload = JSON.stringify({
    id: `evt_e2e_${Date.now()}`,
    object: "event",
    api_version: "2026-10-28.endive",
    created: Math.floor(Date.now() / 1000),
    data: { object },
    livemode: false,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
    type,
  });
  const signature = await new Stripe("sk_test_e2e").webhooks.generateTestHeaderStringAsync({ payload, secret: WEBHOOK_SECRET });
  const res = await fetch(`${server.base}/billing/stripe/webhook`, {
    method: "POST",
    headers: { "content-type": "application/json", "stripe-signature": signature },
    body: payload,
  });
  assert.equal(res.status, 200, await res.text());
}

before(async () => {
  mkdirSync(SHOTS, { recursive: true });
  fake = await startFakeStripe();
  server = await startServer({ STRIPE_SECRET_KEY: "sk_test_e2e_0123456789", STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET, STRIPE_API_BASE: fake.base, ...E2E_PRICES });
  browser = await chromium.launch({
    executablePath: chromiumPath(),
    args: ["--no-sandbox", "--headless", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
  });
  context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  page = await context.newPage();
  const org = await must("POST", "/admin/v1/organizations", { name: "Billing Books" }, 201);
  const site = await must(
    "POST",
    "/admin/v1/sites",
    { organization_id: org.id, name: "Books blog", source_language: "en", target_languages: [{ code: "de", engine: "pseudo" }] },
    201,
  );
  const inv = await must("POST", `/admin/v1/organizations/${org.id}/invitations`, { email: "payer@example.com", role: "owner" }, 201);
  Object.assign(world, { org, site, inv });
});

after(async () => {
  await browser?.close().catch(() => {});
  await server?.stop();
  await fake?.stop();
});

test("an owner chooses a plan, is sent to Stripe Checkout, and sees the plan once Stripe's webhook arrives", async () => {
  await page.goto(world.inv.url);
  await page.getByLabel("Choose a password").fill(PASSWORD);
  await page.getByRole("button", { name: "Create account and join" }).click();
  await page.waitForURL(/\/dashboard\?done=joined/);

  const billing = `${server.base}/dashboard/organizations/${world.org.id}/billing`;
  await page.goto(billing);
  assert.equal((await page.locator("#plan").textContent()).trim(), "None");
  await page.getByRole("heading", { name: "Choose a plan" }).waitFor();
  await look("billing-choose");

  await page.getByLabel(/Agency: up to 10 sites/).check();
  await page.getByRole("button", { name: "Choose a plan" }).click();
  await page.waitForURL(/\/checkout\/cs_test_e2e_/);
  const session = fake.state.sessions.at(-1);
  assert.equal(page.url(), session.url, "the browser is on the Checkout URL Stripe answered");
  assert.equal(session.form["line_items[0][price]"], E2E_PRICES.STRIPE_PRICE_AGENCY);
  assert.equal(session.form.client_reference_id, String(world.org.id));
  assert.equal(session.form.success_url, `${billing}?done=checkout`);
  await page.getByRole("heading", { name: "Fake Stripe Checkout" }).waitFor();

  // The owner pays; Stripe creates the subscription and tells the service.
  const sub = subscription({ id: "sub_e2e_1", customer: "cus_e2e_1", organizationId: world.org.id, priceId: E2E_PRICES.STRIPE_PRICE_AGENCY });
  fake.state.subscriptions.set(sub.id, sub);
  await sendWebhook("checkout.session.completed", {
    id: session.id,
    object: "checkout.session",
    mode: "subscription",
    client_reference_id: String(world.org.id),
    customer: sub.customer,
    subscription: sub.id,
    status: "complete",
  });

  await page.goto(`${billing}?done=checkout`);
  assert.equal((await page.locator("#plan").textContent()).trim(), "agency");
  await page.getByText("Books blog").first().waitFor();
  await page.getByRole("button", { name: "Change plan" }).waitFor();
  await page.getByRole("button", { name: "Cancel at the period's end" }).waitFor();
  await look("billing-subscribed");
});
