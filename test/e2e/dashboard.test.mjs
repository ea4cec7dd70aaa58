/**
 * The dashboard as a person uses it (`npm run test:e2e`): headless Chromium (Debian's
 * `chromium`, through playwright-core) against a fresh `wrangler dev --local`. Every page
 * visited is checked by axe-core (no serious or critical violation) and screenshotted to
 * test/e2e/screenshots/ for review.
 */

import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { createServer } from "node:http";
import { after, before, test } from "node:test";
import { chromium } from "playwright-core";
import { Webhook } from "standardwebhooks";
import { chromiumPath, lookAt, SHOTS } from "./look.mjs";
import { ADMIN_TOKEN, startServer } from "./server.mjs";

const PASSWORD = "correct horse battery staple";
const OWNER = "owner@example.com";

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
  let json;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = text;
  }
  return { status: res.status, body: json };
}

async function must(method, path, opts, status) {
  const res = await api(method, path, opts);
  assert.equal(res.status, status, `${method} ${path}: ${JSON.stringify(res.body)}`);
  return res.body;
}

const checked = new Set();
/** axe on the current page (serious and critical violations fail) and a screenshot. */
async function look(name) {
  await lookAt(page, name);
  checked.add(name);
}

before(async () => {
  mkdirSync(SHOTS, { recursive: true });
  server = await startServer();
  browser = await chromium.launch({
    executablePath: chromiumPath(),
    args: ["--no-sandbox", "--headless", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
  });
  context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  page = await context.newPage();

  // Two organizations, each with a site; the first has a connector that handshook and pushed content.
  const org = await must("POST", "/admin/v1/organizations", { body: { name: "Acme Publishing" } }, 201);
  const site = await must(
    "POST",
    "/admin/v1/sites",
    {
      body: {
        organization_id: org.id,
        name: "Acme blog",
        source_language: "en",
        target_languages: [
          { code: "de", engine: "pseudo" },
          { code: "fr", engine: "pseudo" },
        ],
        qa_mode: "separate",
      },
    },
    201,
  );
  await must("PUT", `/admin/v1/organizations/${org.id}/subscription`, { body: { plan: "pro", status: "active", site_ids: [site.id] } }, 200);
  const key = (await must("POST", `/admin/v1/sites/${site.id}/keys`, { body: { name: "connector" } }, 201)).key;
  await must("POST", "/v1/handshake", { key, body: { connector_version: "wp-transync/2.3.1", source_language: "en", languages: ["de", "fr"], adapters: ["wordpress"] } }, 200);
  const units = [
    {
      external_key: "post:1",
      adapter: "wordpress",
      label: "Hello world",
      path: "/hello",
      segments: [
        { key: "title", text: "Hello world", max_length: 12 },
        { key: "body", text: "Welcome to our blog. We write about books." },
      ],
    },
    {
      external_key: "page:about",
      adapter: "wordpress",
      label: "About us",
      path: "/about",
      segments: [
        { key: "title", text: "About us" },
        { key: "body", text: "We are a small publisher from Berlin." },
      ],
    },
  ];
  const pushed = await must("PUT", "/v1/units/batch", { key, body: { units } }, 200);
  assert.deepEqual(
    pushed.results.map((r) => r.ok),
    [true, true],
    JSON.stringify(pushed),
  );

  const other = await must("POST", "/admin/v1/organizations", { body: { name: "Other Corp" } }, 201);
  const otherSite = await must(
    "POST",
    "/admin/v1/sites",
    { body: { organization_id: other.id, name: "Other site", source_language: "en", target_languages: [{ code: "es", engine: "pseudo" }] } },
    201,
  );
  Object.assign(world, { org, site, key, other, otherSite });
});

after(async () => {
  await browser?.close().catch(() => {});
  await server?.stop();
  if (checked.size) console.log(`axe checked and screenshotted ${checked.size} pages: ${[...checked].join(", ")}`);
});

test("the first owner accepts the invitation from the admin API and lands in the dashboard", async () => {
  const inv = await must("POST", `/admin/v1/organizations/${world.org.id}/invitations`, { body: { email: OWNER, role: "owner" } }, 201);
  assert.equal(inv.role, "owner");
  assert.ok(inv.url.startsWith(`${server.base}/dashboard/invitations#`), `the link opens this server's dashboard, its token in the fragment: ${inv.url}`);
  await page.goto(inv.url);
  await look("invitation");
  await page.getByLabel("Choose a password").fill(PASSWORD);
  await page.getByRole("button", { name: "Create account and join" }).click();
  await page.waitForURL(/\/dashboard\?done=joined/);
  await page.getByRole("link", { name: "Acme blog" }).waitFor();
  await look("home");
  // The link works once.
  await page.goto(inv.url);
  await page.getByRole("heading", { name: "This invitation link does not work any more" }).waitFor();
});

test("signing out and in again", async () => {
  await page.goto(`${server.base}/dashboard`);
  await page.getByRole("button", { name: "Sign out" }).click();
  await page.getByRole("heading", { name: "Sign in to Transync" }).waitFor();
  await page.getByLabel("Email").fill(OWNER);
  await page.getByLabel("Password").fill("not the password");
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByText("do not match an account").waitFor();
  await look("sign-in-error");
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("heading", { name: "Your sites" }).waitFor();
});

test("an invitation for an existing account asks to sign in, comes back, and is accepted only then", async () => {
  const third = await must("POST", "/admin/v1/organizations", { body: { name: "Third Press" } }, 201);
  const inv = await must("POST", `/admin/v1/organizations/${third.id}/invitations`, { body: { email: OWNER, role: "editor" } }, 201);
  await page.goto(`${server.base}/dashboard`);
  await page.getByRole("button", { name: "Sign out" }).click();
  await page.goto(inv.url);
  await page.getByText("already has an account").waitFor();
  assert.equal(await page.getByRole("button", { name: "Accept invitation" }).count(), 0, "no way to accept without signing in");
  await look("invitation-sign-in");
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Sign in to accept" }).click();
  // Back to the link (its token in the fragment), which the page's script opens again.
  await page.getByRole("button", { name: "Accept invitation" }).waitFor();
  await look("invitation-accept");
  await page.getByRole("button", { name: "Accept invitation" }).click();
  await page.waitForURL(/\/dashboard\?done=joined/);
  await page.getByRole("heading", { name: "Third Press" }).or(page.getByText("Third Press")).first().waitFor();
});

test("site overview shows the connector's latest handshake and the counts", async () => {
  await page.goto(`${server.base}/dashboard/sites/${world.site.id}`);
  await page.getByText("wp-transync/2.3.1").waitFor();
  const languages = page.locator("section", { has: page.getByRole("heading", { name: "Languages" }) });
  assert.match(await languages.innerText(), /de\s+0\s+0\s+4/);
  await look("site-overview");
});

test("an admin creates a key (shown once) and revokes it", async () => {
  await page.goto(`${server.base}/dashboard/sites/${world.site.id}/keys`);
  await look("keys");
  await page.getByLabel("Name").fill("Staging website");
  await page.getByRole("button", { name: "Create key" }).click();
  const value = await page.getByLabel("API key").inputValue();
  assert.match(value, /^tsk_/);
  await look("keys-created");
  assert.equal((await api("GET", "/v1/site", { key: value })).status, 200, "the new key works");
  await page.getByRole("button", { name: "Revoke key Staging website" }).click();
  await page.getByText("The key is revoked").waitFor();
  assert.equal((await api("GET", "/v1/site", { key: value })).status, 401, "the revoked key is refused");
  await page.reload();
  assert.equal(await page.getByLabel("API key").count(), 0, "the key is never shown again");
});

test("making a language not writable takes effect at once", async () => {
  await page.goto(`${server.base}/dashboard/sites/${world.site.id}/settings`);
  await look("settings");
  await page.getByRole("checkbox", { name: "fr is writable" }).uncheck();
  await page.getByRole("button", { name: "Save settings" }).click();
  await page.getByText("Settings saved").waitFor();
  const site = await must("GET", "/v1/site", { key: world.key }, 200);
  assert.deepEqual(
    site.target_languages.map((t) => [t.code, t.writable]),
    [
      ["de", true],
      ["fr", false],
    ],
  );
});

test("estimate, confirm, start a job and watch it finish", async () => {
  await page.goto(`${server.base}/dashboard/sites/${world.site.id}`);
  const choices = page.locator("fieldset", { hasText: "Languages" }).getByRole("checkbox");
  assert.equal(await choices.count(), 1, "only the writable language is offered");
  await page.getByRole("button", { name: "Estimate" }).click();
  await page.getByRole("heading", { name: "Start this job?" }).waitFor();
  assert.match(await page.locator("dl.facts").innerText(), /Segments\s+4/);
  await look("job-estimate");
  await page.getByRole("button", { name: /Start job|Confirm and start/ }).click();
  await page.getByText(/Job #\d+ (is queued|is running|finished)/).waitFor();
  const deadline = Date.now() + 60_000;
  for (;;) {
    const state = await page
      .locator("section", { has: page.getByRole("heading", { name: "Jobs" }) })
      .locator("tbody tr")
      .first()
      .innerText();
    if (/Finished/.test(state)) {
      await page.getByText(/Job #\d+ finished: 4 of 4 segments translated/).waitFor();
      break;
    }
    assert.ok(!/Failed|Cancelled/.test(state), `job ended badly: ${state}`);
    assert.ok(Date.now() < deadline, `job did not finish: ${state}`);
    await new Promise((r) => setTimeout(r, 500));
    await page.reload();
  }
  await look("site-after-job");
});

test("a translation held back by QA is fixed in the review queue, reached from attention_url", async () => {
  const status = await must("GET", `/v1/units/${encodeURIComponent("post:1")}/status`, { key: world.key }, 200);
  const de = status.languages.find((l) => l.code === "de");
  assert.equal(de.attention, 1);
  assert.ok(de.attention_url.startsWith(`${server.base}/dashboard/sites/${world.site.id}/attention?unit=`), de.attention_url);
  await page.goto(de.attention_url);
  const items = page.locator("article.review");
  assert.equal(await items.count(), 1);
  await page.getByText("max_length", { exact: false }).or(page.getByText("limit is 12")).first().waitFor();
  await look("attention");
  // A fix with a QA error (longer than the segment's 12 characters) is shown with its findings and not saved yet.
  await page.getByLabel("Translation (de)").fill("Hallo schöne Welt");
  await page.getByRole("button", { name: "Save fix" }).click();
  await page.getByRole("heading", { name: "Save this fix despite QA errors?" }).waitFor();
  await page.getByText("the limit is 12").first().waitFor();
  await look("attention-confirm");
  assert.equal((await must("GET", "/v1/attention", { key: world.key }, 200)).items.length, 1, "not saved before the confirmation");
  await page.getByLabel("Your translation").fill("Hallo Welt");
  await page.getByRole("button", { name: "Check again" }).click();
  await page.getByText("Saved: the fixed translation").waitFor();
  assert.equal(await page.locator("article.review").count(), 0);
  await look("attention-empty");
  const after = await must("GET", "/v1/attention", { key: world.key }, 200);
  assert.deepEqual(after.items, []);
  const fixed = await must("GET", `/v1/units/${encodeURIComponent("post:1")}/status`, { key: world.key }, 200);
  assert.equal(fixed.segments.find((seg) => seg.key === "title").states.de, "ok", "the fixed segment is up to date");
});

test("a dashboard_url from the API opens the unit's segment × language matrix", async () => {
  const status = await must("GET", `/v1/units/${encodeURIComponent("page:about")}/status`, { key: world.key }, 200);
  assert.ok(status.dashboard_url.startsWith(`${server.base}/dashboard/sites/${world.site.id}/units/`), status.dashboard_url);
  await page.goto(status.dashboard_url);
  await page.getByRole("heading", { name: "About us" }).waitFor();
  const matrix = await page.locator("table.matrix").innerText();
  assert.match(matrix, /We are a small publisher from Berlin\./);
  assert.match(matrix, /In review/, "delivered to the website, waiting for its editors");
  assert.match(matrix, /Missing/, "fr is not writable, so not translated");
  await look("unit");
  await page.goto(`${server.base}/dashboard/sites/${world.site.id}/units`);
  await look("units");
});

test("the usage page draws the month's characters per day", async () => {
  await page.goto(`${server.base}/dashboard/organizations/${world.org.id}/usage`);
  const used = Number((await page.locator(".stat", { hasText: "Used" }).locator(".stat-value").innerText()).replace(/,/g, ""));
  assert.ok(used > 0, `used characters: ${used}`);
  const today = new Date().toISOString().slice(0, 10);
  const bar = page.locator("svg rect.bar", { has: page.locator(`title:text-matches("^${today}")`) });
  assert.equal(await bar.count(), 1);
  assert.ok(Number(await bar.getAttribute("height")) > 0, "today's bar has a height");
  await look("usage");
});

test("members, glossary and audit pages", async () => {
  await page.goto(`${server.base}/dashboard/organizations/${world.org.id}/members`);
  await page.getByLabel("Email").fill("editor@example.com");
  await page.getByRole("button", { name: "Send invitation" }).click();
  await page.getByText("The invitation is on its way by mail.").waitFor();
  assert.doesNotMatch(await page.content(), /\/dashboard\/invitations#[A-Za-z0-9_-]{20}/, "the inviter never sees the link");
  await look("members");
  // The link is in the local outbox (DEV_MAILBOX=true).
  await page.goto(`${server.base}/dashboard/dev/mail`);
  await page.getByRole("heading", { name: 'You are invited to "Acme Publishing" on Transync' }).first().waitFor();
  await look("dev-mail");
  const mailText = await page
    .locator("article.mail", { has: page.locator(".mail-to", { hasText: "editor@example.com" }) })
    .first()
    .locator(".mail-text")
    .innerText();
  const link = /(http:\/\/\S+\/dashboard\/invitations#[A-Za-z0-9_-]+)/.exec(mailText)[1];
  // Opened while signed in as someone else, the link says so and offers no way to accept.
  await page.goto(link);
  await page.getByText(`You are signed in as`).waitFor();
  assert.equal(await page.getByRole("button", { name: /Create account|Accept invitation/ }).count(), 0);
  await look("invitation-other-account");
  await page.goto(`${server.base}/dashboard/sites/${world.site.id}/glossary`);
  await page.getByLabel("Term (source)").fill("Transync");
  await page.getByLabel("Language").fill("de");
  await page.getByLabel("Translation").fill("Transync");
  await page.getByRole("button", { name: "Add term" }).click();
  await page.getByText("Term added").waitFor();
  await look("glossary");
  await page.goto(`${server.base}/dashboard/organizations/${world.org.id}/audit`);
  const log = await page.locator("table").innerText();
  for (const action of ["key.create", "key.revoke", "site.update", "job.create", "attention.fix", "glossary.add", "invitation.create"])
    assert.match(log, new RegExp(action.replace(".", "\\.")));
  assert.match(log, new RegExp(OWNER));
  await look("audit");
  await page.goto(`${server.base}/dashboard/account`);
  await look("account");
});

test("the memory page: a TMX file imported, found by search, an entry corrected, the memory exported as TMX", async () => {
  const base = `${server.base}/dashboard/sites/${world.site.id}/memory`;
  await page.goto(`${server.base}/dashboard/sites/${world.site.id}`);
  await page.getByRole("link", { name: "Memory", exact: true }).click();
  await page.getByRole("heading", { name: "Translation memory" }).waitFor();
  const tmx = `<?xml version="1.0" encoding="UTF-8"?>
<tmx version="1.4"><header srclang="en-US" datatype="html" segtype="sentence" adminlang="en" o-tmf="other" creationtool="other" creationtoolversion="9"/><body>
<tu><tuv xml:lang="en-US"><seg>Free shipping on <bpt i="1">&lt;b&gt;</bpt>all<ept i="1">&lt;/b&gt;</ept> orders</seg></tuv><tuv xml:lang="de-DE"><seg>Kostenloser Versand für <bpt i="1">&lt;b&gt;</bpt>alle<ept i="1">&lt;/b&gt;</ept> Bestellungen</seg></tuv><tuv xml:lang="fr-FR"><seg>Livraison gratuite</seg></tuv></tu>
<tu><tuv xml:lang="en-US"><seg>Read more</seg></tuv><tuv xml:lang="de-DE"><seg>Weiterlesen</seg></tuv></tu>
</body></tmx>`;
  await page.getByLabel("TMX file", { exact: true }).setInputFiles({ name: "from-another-tool.tmx", mimeType: "application/x-tmx+xml", buffer: Buffer.from(tmx) });
  await page.getByRole("button", { name: "Import" }).click();
  await page.getByText("Imported 2 translation units: 3 translations stored.").waitFor();
  await page.getByLabel("Search").fill("shipping");
  await page.getByRole("button", { name: "Filter" }).click();
  await page.getByRole("heading", { name: "Entries (2)" }).waitFor();
  await look("memory");
  await page.getByRole("link", { name: /Edit or delete the de entry/ }).click();
  await page.getByLabel("Translation (de)").fill("Versandkostenfrei: <b>alle</b> Bestellungen");
  await look("memory-entry");
  await page.getByRole("button", { name: "Save correction" }).click();
  await page.getByText("Saved: the entry is now origin human").waitFor();
  // A search also lists close matches (fuzzy): "Read mor" finds "Read more".
  await page.getByLabel("Search").fill("Read mor");
  await page.getByRole("button", { name: "Filter" }).click();
  await page.getByRole("heading", { name: "Close matches" }).waitFor();
  await look("memory-search");
  const exported = await page.request.get(`${base}.tmx?pair=en:de`);
  assert.equal(exported.status(), 200);
  const xml = await exported.text();
  assert.match(xml, /^<\?xml version="1.0" encoding="UTF-8"\?>\n<tmx version="1.4">/);
  assert.match(xml, /<tuv xml:lang="de"><seg>Versandkostenfrei: &lt;b&gt;alle&lt;\/b&gt; Bestellungen<\/seg><\/tuv>/);
  assert.match(xml, /<prop type="x-transync-origin">human<\/prop>/);
});

test("webhooks: registered on the Webhooks page, a job's events arrive signed, a 500 is retried, deliveries are listed", async () => {
  // The connector's receiving endpoint: the first request answers 500, then 204; each is verified with the secret.
  const received = [];
  let secret = "";
  const receiver = createServer((req, res) => {
    let body = "";
    req.on("data", (d) => (body += d));
    req.on("end", () => {
      let event = null;
      try {
        event = new Webhook(secret).verify(body, req.headers);
      } catch {}
      received.push({ id: req.headers["webhook-id"], event });
      res.writeHead(received.length === 1 ? 500 : 204).end();
    });
  });
  await new Promise((r) => receiver.listen(0, "127.0.0.1", r));
  try {
    const hook = `http://127.0.0.1:${receiver.address().port}/hook`;
    await page.goto(`${server.base}/dashboard/sites/${world.site.id}/webhooks`);
    await page.getByRole("heading", { name: "Add a webhook" }).waitFor();
    await look("webhooks-empty");
    await page.getByLabel("Endpoint URL").fill(hook);
    await page.getByRole("button", { name: "Add webhook" }).click();
    secret = await page.getByRole("textbox", { name: "Signing secret" }).inputValue();
    assert.match(secret, /^whsec_/);
    await look("webhooks-created");

    await must("PUT", "/v1/units", { key: world.key, body: { external_key: "post:hooks", adapter: "wordpress", segments: [{ key: "title", text: "Webhooks are here" }] } }, 200);
    const created = await must("POST", "/v1/jobs", { key: world.key, body: { type: "delta", confirm: true } }, 202);
    const deadline = Date.now() + 60_000;
    const verified = () => received.filter((r) => r.event).map((r) => r.event.type);
    // The first delivery is answered 500 and comes again (same webhook-id) after the first retry delay, 5 s.
    const retried = () => received.filter((r) => r.id === received[0].id).length === 2;
    while (!(verified().includes("job.finished") && verified().includes("results.available") && retried())) {
      assert.ok(Date.now() < deadline, `events not received: ${JSON.stringify(received)}`);
      await new Promise((r) => setTimeout(r, 500));
    }
    assert.ok(
      received.every((r) => r.event),
      "every delivery verifies with the secret",
    );
    assert.equal(received.find((r) => r.event.type === "job.finished").event.data.id, created.id);

    const listed = await must("GET", "/v1/webhook/deliveries", { key: world.key }, 200);
    assert.ok(listed.deliveries.some((d) => d.event === "job.finished" && d.status === "delivered"));
    assert.equal(listed.deliveries.find((d) => d.id === received[0].id).attempts, 2, "the 500 was retried");
    await page.goto(`${server.base}/dashboard/sites/${world.site.id}/webhooks`);
    await page.getByRole("cell", { name: "job.finished" }).first().waitFor();
    await look("webhooks-deliveries");
  } finally {
    receiver.close();
  }
});

test("another organization's pages answer 404", async () => {
  for (const path of [
    `/dashboard/sites/${world.otherSite.id}`,
    `/dashboard/sites/${world.otherSite.id}/settings`,
    `/dashboard/organizations/${world.other.id}/usage`,
    `/dashboard/organizations/${world.other.id}/members`,
  ]) {
    const res = await page.goto(server.base + path);
    assert.equal(res.status(), 404, path);
  }
  await page.getByRole("heading", { name: "Page not found" }).waitFor();
  await look("not-found");
});
