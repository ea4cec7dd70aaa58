/**
 * What the customer sees of the operator's support actions (docs/runbook.md "A hot site or a
 * runaway job"), in headless Chromium against a fresh `wrangler dev --local`: a job the operator
 * cancelled with a reason shows the reason on the site's page, and a credit shows on the Usage page
 * with the overage after it. Each page is checked by axe and screenshotted (test/e2e/screenshots/).
 * Jobs start 4 s after they are scheduled here, so the operator's cancel meets a queued job.
 */
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { after, before, test } from "node:test";
import { chromium } from "playwright-core";
import { chromiumPath, lookAt, SHOTS } from "./look.mjs";
import { ADMIN_TOKEN, startServer } from "./server.mjs";

const PASSWORD = "correct horse battery staple";
const REASON = "Cancelled by support: this job was retranslating the whole site after a settings change; the characters done are credited.";
const CREDIT = "The job cancelled today retranslated the whole site by mistake: its characters are credited.";

let server;
let browser;
let page;
const world = {};

async function must(method, path, { key = ADMIN_TOKEN, body } = {}, status = 200) {
  const res = await fetch(server.base + path, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body ? { "content-type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  assert.equal(res.status, status, `${method} ${path}: ${text}`);
  return text ? JSON.parse(text) : null;
}

before(async () => {
  mkdirSync(SHOTS, { recursive: true });
  server = await startServer({ JOB_ALARM_DELAY_MS: "4000" });
  browser = await chromium.launch({
    executablePath: chromiumPath(),
    args: ["--no-sandbox", "--headless", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
  });
  page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();

  const org = await must("POST", "/admin/v1/organizations", { body: { name: "Acme Publishing" } }, 201);
  const site = await must(
    "POST",
    "/admin/v1/sites",
    { body: { organization_id: org.id, name: "Acme blog", source_language: "en", target_languages: [{ code: "de", engine: "pseudo" }] } },
    201,
  );
  // A small included volume, so the month has an overage to credit.
  await must("PUT", `/admin/v1/organizations/${org.id}/subscription`, { body: { plan: "pro", status: "active", site_ids: [site.id], included_characters: 100 } });
  const { key } = await must("POST", `/admin/v1/sites/${site.id}/keys`, { body: { name: "blog" } }, 201);
  await must("POST", "/v1/handshake", { key, body: { connector_version: "e2e/1", source_language: "en", languages: ["de"], capabilities: [] } });
  const texts = [
    "Fresh sourdough every morning from our wood-fired oven.",
    "Ask about our gluten-free loaves and seasonal pastries.",
    "Open daily from seven until the bread runs out.",
  ];
  await must("PUT", "/v1/units/batch", {
    key,
    body: { units: texts.map((text, i) => ({ external_key: `post:${i}`, adapter: "wordpress", label: `Post ${i}`, segments: [{ key: "body", text }] })) },
  });
  Object.assign(world, { org, site, key });
});

after(async () => {
  await browser?.close().catch(() => {});
  await server?.stop();
});

test("a job the operator cancelled shows its reason; a credit shows on the Usage page with the overage after it", async () => {
  const { org, site, key } = world;
  // A job that runs to its end (billed), then a second one the operator cancels while it waits.
  const first = await must("POST", "/v1/jobs", { key, body: { confirm: true } }, 202);
  for (let i = 0; i < 60; i++) {
    const job = await must("GET", `/v1/jobs/${first.id}`, { key });
    if (job.status === "succeeded") break;
    assert.ok(job.status === "queued" || job.status === "running", `job ${first.id} ended ${job.status}`);
    await new Promise((r) => setTimeout(r, 500));
  }
  const done = await must("GET", `/v1/jobs/${first.id}`, { key });
  assert.equal(done.status, "succeeded");
  const second = await must("POST", "/v1/jobs", { key, body: { confirm: true, force: true } }, 202);
  const cancelled = await must("POST", `/admin/v1/sites/${site.id}/jobs/${second.id}/cancel`, { body: { reason: REASON } });
  assert.equal(cancelled.status, "cancelled");
  assert.equal(cancelled.cancel_reason, REASON);

  const month = new Date().toISOString().slice(0, 7);
  const usage = await must("GET", `/admin/v1/organizations/${org.id}/usage?month=${month}`);
  assert.ok(usage.overage_characters > 0, `an overage to credit: ${JSON.stringify(usage)}`);
  // Half of it: the page shows an overage left after the credit.
  const credit = Math.max(1, Math.floor(usage.overage_characters / 2));
  await must("POST", `/admin/v1/organizations/${org.id}/credits`, { body: { month, characters: credit, reason: CREDIT } }, 201);

  // The owner signs in through their invitation.
  const inv = await must("POST", `/admin/v1/organizations/${org.id}/invitations`, { body: { email: "owner@example.com", role: "owner" } }, 201);
  await page.goto(inv.url);
  await page.getByLabel("Choose a password").fill(PASSWORD);
  await page.getByRole("button", { name: "Create account and join" }).click();
  await page.waitForURL(/\/dashboard\?done=joined/);

  await page.goto(`${server.base}/dashboard/sites/${site.id}`);
  const row = page.getByRole("row").filter({ hasText: `#${second.id}` });
  await row.getByText(REASON).waitFor();
  await row.getByText("Reason:").waitFor();
  await row.getByText("Cancelled", { exact: true }).waitFor();
  await lookAt(page, "site-cancel-reason");

  await page.goto(`${server.base}/dashboard/organizations/${org.id}/usage`);
  await page.getByRole("heading", { name: "Credits" }).waitFor();
  await page.getByRole("cell", { name: CREDIT }).waitFor();
  const after = await must("GET", `/admin/v1/organizations/${org.id}/usage?month=${month}`);
  assert.equal(after.overage_characters, usage.overage_characters - credit);
  await page.getByText(`after ${credit.toLocaleString("en-US")} credited`).waitFor();
  await lookAt(page, "usage-credits");
});
