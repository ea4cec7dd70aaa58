/**
 * The admin panel as an editor uses it, in headless Chromium (Debian's /usr/bin/chromium driven by
 * playwright-core): the admin built with the plugin (`npm run build:admin`), served by the test
 * Strapi, signed in through the login page. The Transync page (connected, then a wrong key) and
 * the article's edit view with its panel (a conflict, "take the new one") are screenshotted under
 * test/screenshots/ and checked with axe: a serious or critical violation inside the plugin's own
 * parts fails (Strapi's own panel around them is reported, not judged).
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import AxeBuilder from "@axe-core/playwright";
import { chromium } from "playwright-core";
import { APP, startService, startStrapi } from "./harness.mjs";

const SHOTS = join(import.meta.dirname, "screenshots");
let service;
let cms;
let browser;
let page;
let article;

function chromiumPath() {
  if (process.env.CHROMIUM_PATH) return process.env.CHROMIUM_PATH;
  return execFileSync("sh", ["-c", "command -v chromium || command -v chromium-browser"], { encoding: "utf8" }).trim();
}

/** A screenshot, and axe on `scope` (the plugin's part of the page): serious and critical violations fail. */
async function lookAt(name, scope, t) {
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
  const ours = await new AxeBuilder({ page }).include(scope).analyze();
  const describe = (v) =>
    `${v.id} (${v.impact}): ${v.help} — ${v.nodes
      .map((n) => n.target.join(" "))
      .slice(0, 3)
      .join(", ")}`;
  const bad = ours.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  assert.deepEqual(bad.map(describe), [], `accessibility violations in ${name}`);
  const all = await new AxeBuilder({ page }).analyze();
  const theirs = all.violations.filter((v) => (v.impact === "serious" || v.impact === "critical") && !ours.violations.some((o) => o.id === v.id));
  if (theirs.length) t.diagnostic(`${name}: Strapi's own page: ${theirs.map(describe).join("; ")}`);
}

before(async () => {
  assert.ok(existsSync(join(APP, "build", "index.html")) || existsSync(join(APP, "build")), "the admin is built: npm run build:admin");
  mkdirSync(SHOTS, { recursive: true });
  service = await startService();
  cms = await startStrapi(service, {}, { admin: true });
  browser = await chromium.launch({ executablePath: chromiumPath() });
  page = await (await browser.newContext({ viewport: { width: 1440, height: 1700 } })).newPage();
  // An article in German and French, then a conflict in German: the editor's saved correction and a new machine text.
  const body = "First paragraph of the story.\n\nSecond paragraph of the story.\n";
  article = (await cms.rest("POST", "/api/articles", { data: { title: "A story for the panel", body } }, 201)).json.data.documentId;
  await cms.settle();
  const de = (await cms.rest("GET", `/api/articles/${article}?locale=de&status=draft`)).json.data;
  await cms.rest("PUT", `/api/articles/${article}?locale=de&status=draft`, { data: { body: de.body.replace(/\n\n[^\n]+\n$/, "\n\nZweiter Absatz, von der Redaktion.\n") } }, 200);
  await cms.rest("PUT", `/api/articles/${article}`, { data: { body: body.replace("Second paragraph of the story.", "Second paragraph of the story, rewritten.") } }, 200);
  await cms.settle();
  // An editor signs in through the login page.
  const { email, password } = await cms.adminUser("super", "editor@example.com");
  await page.goto(`${cms.base}/admin/auth/login`);
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Login" }).click();
  await page.waitForURL(/\/admin(\/)?$/, { timeout: 60_000 });
});

after(async () => {
  await browser?.close();
  await cms?.stop();
  await service?.stop();
});

test("the Transync page: connected, the languages with their counts, the conflict, the entries with work", async (t) => {
  await page.getByRole("link", { name: "Transync" }).click();
  await page.waitForURL(/\/admin\/plugins\/transync/);
  const main = page.getByRole("main");
  await main.getByText("Connected").waitFor();
  await main.getByRole("heading", { name: "Languages" }).waitFor();
  const rows = main.getByRole("region", { name: "Languages" }).getByRole("row");
  assert.equal(await rows.count(), 3);
  assert.match(await rows.nth(1).textContent(), /^de\d/);
  await main.getByRole("region", { name: "Conflicts with editors' changes" }).getByRole("link", { name: "A story for the panel" }).waitFor();
  await main.getByRole("region", { name: "Entries with work" }).getByRole("link", { name: "A story for the panel" }).waitFor();
  await lookAt("transync-page", "main", t);
});

test("the edit view's panel: each locale's state, the conflict with the editor's text and the new one, take the new one", async (t) => {
  await page.goto(`${cms.base}/admin/content-manager/collection-types/api::article.article/${article}?plugins[i18n][locale]=de`);
  const panel = page.locator("aside").filter({ hasText: "Transync" });
  await panel.getByText("Conflict").waitFor({ timeout: 30_000 });
  await panel.getByText("Yours: Zweiter Absatz, von der Redaktion.").waitFor();
  assert.match(await panel.textContent(), /fr\s*In review/i);
  await lookAt("edit-view-conflict", "aside", t);
  await panel.getByRole("button", { name: "Take the new one" }).click();
  await page.getByText("The new text is in the de draft").waitFor();
  await panel.getByText(/^Yours:/).waitFor({ state: "detached" });
  assert.doesNotMatch(await panel.textContent(), /Conflict/i);
  const de = (await cms.rest("GET", `/api/articles/${article}?locale=de&status=draft`)).json.data;
  assert.doesNotMatch(de.body, /von der Redaktion/);
  await lookAt("edit-view-taken", "aside", t);
});

test("a language the site translates into that this Strapi lacks is named on the page, with where to add it", async (t) => {
  await service.admin("PATCH", `/admin/v1/sites/${service.siteId}`, { target_languages: ["de", "fr", "it"].map((code) => ({ code, engine: "pseudo" })) });
  try {
    await cms.pass(); // its handshake hears of it
    await page.goto(`${cms.base}/admin/plugins/transync`);
    const main = page.getByRole("main");
    const alert = main.getByRole("status").filter({ hasText: "Locales this Strapi lacks" }); // a warning Alert is a status
    await alert.waitFor();
    assert.match(await alert.textContent(), /The site translates into it, but this Strapi has no such locale\. Add it in Settings → Internationalization with the same code/);
    assert.equal(await alert.getByRole("link", { name: "Settings → Internationalization" }).getAttribute("href"), "/admin/settings/internationalization");
    await lookAt("transync-page-locale-missing", "main", t);
  } finally {
    await service.admin("PATCH", `/admin/v1/sites/${service.siteId}`, { target_languages: ["de", "fr"].map((code) => ({ code, engine: "pseudo" })) });
    await cms.pass();
  }
});

test("a wrong key shows on the page, in words that say what to do", async (t) => {
  const good = process.env.TRANSYNC_KEY;
  process.env.TRANSYNC_KEY = "tsk_wrong_0000000000000000000000000000";
  try {
    await page.goto(`${cms.base}/admin/plugins/transync`);
    const main = page.getByRole("main");
    await main.getByText("Wrong API key").waitFor();
    await main
      .getByText(/refused the API key \(401\): check the key in TRANSYNC_KEY/)
      .first()
      .waitFor();
    await lookAt("transync-page-wrong-key", "main", t);
  } finally {
    process.env.TRANSYNC_KEY = good;
  }
});
