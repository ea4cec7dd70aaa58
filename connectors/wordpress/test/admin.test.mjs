/**
 * The admin as a site owner and an editor use it, in headless Chromium (Debian's chromium,
 * driven by playwright-core): the plugin uploaded as a zip (Plugins → Add New → Upload Plugin)
 * and activated, then the settings page, the posts list's column and the edit screen's box, in
 * the states that matter (a conflict, a wrong key). Each screen is screenshot into
 * test/screenshots/ (to look at) and checked with axe: serious or critical violations in the
 * plugin's own markup fail.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import AxeBuilder from "@axe-core/playwright";
import { chromium } from "playwright-core";
import { ADMIN_PASSWORD, ROOT, startService, startSite, waitFor, ZIP } from "./harness.mjs";

const SHOTS = join(ROOT, "test", "screenshots");
let service;
let wp;
let browser;
let page;

function chromiumPath() {
  if (process.env.CHROMIUM_PATH) return process.env.CHROMIUM_PATH;
  try {
    return execFileSync("sh", ["-c", "command -v chromium || command -v chromium-browser"], { encoding: "utf8" }).trim();
  } catch {
    throw new Error("chromium is not installed: apt-get install -y chromium (or set CHROMIUM_PATH).");
  }
}

/** A full-page screenshot, and axe over the plugin's own markup (`selector`). */
async function look(name, selector) {
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
  const results = await new AxeBuilder({ page }).include(selector).analyze();
  const bad = results.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  assert.deepEqual(
    bad.map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`),
    [],
    `accessibility violations on ${name}`,
  );
}

const block = (text) => `<!-- wp:paragraph -->\n<p>${text}</p>\n<!-- /wp:paragraph -->`;

before(async () => {
  mkdirSync(SHOTS, { recursive: true });
  service = await startService();
  wp = await startSite(service, { plugin: false });
  browser = await chromium.launch({ executablePath: chromiumPath(), args: ["--no-sandbox"] });
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  page = await context.newPage();
  // The block editor's welcome guide closed, as a returning editor has it.
  wp.php(
    "update_user_meta(1, 'wp_persisted_preferences', ['core/edit-post' => ['welcomeGuide' => false], 'core' => ['editorMode' => 'visual'], '_modified' => gmdate('c')]); echo 1;",
  );
  await page.goto(`${wp.base}/wp-login.php`);
  // wp-login.php focuses and selects the username field 200 ms after it loads (wp_attempt_focus):
  // typed before that, the password can land in the username field on a slow first load.
  await page.waitForFunction(() => document.activeElement?.id === "user_login");
  await page.fill("#user_login", "admin");
  await page.fill("#user_pass", ADMIN_PASSWORD);
  await Promise.all([page.waitForURL(/wp-admin/), page.click("#wp-submit")]);
});

after(async () => {
  await browser?.close();
  await wp?.stop();
  await service?.stop();
});

test("the plugin installs from its zip like any plugin (Plugins → Add New → Upload Plugin)", async () => {
  await page.goto(`${wp.base}/wp-admin/plugin-install.php?tab=upload`);
  await page.setInputFiles("#pluginzip", ZIP);
  await Promise.all([page.waitForLoadState("load"), page.click("#install-plugin-submit")]);
  await page.getByText("Plugin installed successfully.").waitFor();
  await Promise.all([page.waitForURL(/plugins\.php/), page.getByRole("link", { name: "Activate Plugin" }).click()]);
  await page.getByText("Plugin activated.").waitFor();
  assert.ok(await page.locator('tr[data-slug="transync"].active').count(), "active in the plugins list");
  // Before its first pass the settings page says so, and what comes next; the languages are not known yet.
  await page.goto(`${wp.base}/wp-admin/options-general.php?page=transync`);
  const text = await page.locator(".transync-settings").innerText();
  assert.match(text, /Not contacted yet\s+The first pass runs within a minute \(WP-Cron\); Sync now tries at once\./);
  assert.match(text, /DE\s+Yes\s+Not known yet \(the service has not answered\)/);
  assert.doesNotMatch(text, /not a language of the site in Transync/);
  await look("settings-before-first-pass", ".transync-settings");
});

test("the settings page: the connection, the languages, the queue, the settings", async () => {
  const created = await wp.rest(
    "POST",
    "/wp/v2/posts",
    { title: "Hello world", content: [block("The first paragraph explains the idea."), block("The second paragraph shows the details.")].join("\n\n"), status: "publish" },
    201,
  );
  const id = created.json.id;
  await waitFor("the drafts", () => {
    const t = wp.php(`echo json_encode((object) pll_get_post_translations(${id}));`);
    return t.de && t.fr;
  });
  await waitFor("the pass's end", () => wp.php("echo json_encode(\\Transync\\Rest::state());").connection.state === "ok");
  await page.goto(`${wp.base}/wp-admin/options-general.php?page=transync`);
  const text = await page.locator(".transync-settings").innerText();
  assert.match(text, /Connected/);
  assert.match(text, /Set in wp-config\.php \(TRANSYNC_KEY\)/);
  assert.match(text, /Registered: results are pulled as soon as they are ready/);
  assert.match(text, /Nothing waits: every change was sent/);
  assert.ok(await page.getByRole("link", { name: "Open the Transync dashboard" }).count());
  assert.equal(await page.getByRole("checkbox", { name: "Posts" }).isChecked(), true);
  assert.equal(await page.getByRole("radio", { name: "Translate when a post is published or updated" }).isChecked(), true);
  await look("settings", ".transync-settings");
});

test("published and updated in the block editor, an English post keeps its drafts linked (Polylang's box, loaded before they came, never unlinks them)", async () => {
  // The block editor posts Polylang's Languages box after every save, with the translations it
  // showed when the screen was loaded: without the plugin's guard, the drafts that came since
  // were unlinked (and the next result wrote a second draft).
  await page.goto(`${wp.base}/wp-admin/post-new.php`);
  const canvas = (await page.locator("iframe[name='editor-canvas']").count()) ? page.frameLocator("iframe[name='editor-canvas']") : page;
  await canvas.getByRole("textbox", { name: "Add title" }).click();
  await page.keyboard.type("Opening hours");
  await page.keyboard.press("Enter");
  await page.keyboard.type("We open every day at nine.");
  await page.click(".editor-post-publish-panel__toggle");
  await page.click(".editor-post-publish-panel .editor-post-publish-button");
  await page.locator(".post-publish-panel__postpublish").waitFor();
  const id = Number(new URL(page.url()).searchParams.get("post"));
  const drafts = () =>
    wp.php(
      `echo json_encode(get_posts(['post_type' => 'post', 'post_status' => 'any', 'lang' => '', 'meta_key' => '_transync_source', 'meta_value' => ${id}, 'fields' => 'ids', 'orderby' => 'ID', 'order' => 'ASC']));`,
    );
  await waitFor("the drafts", () => drafts().length === 2);
  const saved = () => page.waitForFunction(() => !window.wp.data.select("core/edit-post").isSavingMetaBoxes());
  await saved();
  const content = (post) => wp.php(`echo json_encode(get_post(${post})->post_content);`);
  const germanBefore = content(drafts()[0]);
  // A typo fixed in the same screen, opened before the drafts came.
  await page.click(".editor-post-publish-panel__header button[aria-label='Close panel']");
  await canvas.getByText("We open every day at nine.").click();
  await page.keyboard.press("End");
  await page.keyboard.type(" Welcome.");
  await page.click(".editor-post-publish-button");
  await page.locator(".components-snackbar", { hasText: "Post updated." }).waitFor();
  await saved();
  const [de, fr] = drafts();
  assert.deepEqual(wp.php(`echo json_encode((object) pll_get_post_translations(${id}));`), { en: id, de, fr });
  // The update's results go into those drafts: no second draft.
  await waitFor("the update translated", () => content(de) !== germanBefore);
  assert.deepEqual(drafts(), [de, fr]);
  await page.reload();
  await page.locator("#transync").waitFor({ timeout: 60_000 });
  assert.match(await page.locator("#transync").innerText(), /DE\s+In review/);
  await look("edit-source-after-update", "#transync");
});

test("the posts list's column and the edit screens' box, with a conflict", async () => {
  const id = wp.php("echo json_encode(get_posts(['title' => 'Hello world', 'post_type' => 'post', 'lang' => 'en', 'fields' => 'ids'])[0]);");
  const { de } = wp.php(`echo json_encode((object) pll_get_post_translations(${id}));`);
  // The editor corrects the German draft; then the English paragraph changes: a conflict.
  const german = (await wp.rest("GET", `/wp/v2/posts/${de}?context=edit`)).json.content.raw;
  const first = german.match(/<p>([^<]*)<\/p>/)[1];
  await wp.rest("POST", `/wp/v2/posts/${de}`, { content: german.replace(first, "Der erste Absatz, von der Redaktion.") }, 200);
  await wp.rest(
    "POST",
    `/wp/v2/posts/${id}`,
    { content: [block("The first paragraph explains the idea better."), block("The second paragraph shows the details.")].join("\n\n") },
    200,
  );
  await waitFor("the conflict", () => wp.php(`echo json_encode(json_decode((string) get_post_meta(${de}, '_transync_conflicts', true)));`));

  await page.goto(`${wp.base}/wp-admin/edit.php?lang=en`);
  const cell = page.locator(`#post-${id} .column-transync`);
  await cell.waitFor();
  assert.match(await cell.innerText(), /DE Conflict/);
  assert.match(await cell.innerText(), /FR In review/);
  // Wide enough for its badges, each on one line (the lists' table is fixed-width).
  const width = (await cell.boundingBox()).width;
  assert.ok(width >= 110, `the column is ${width}px wide`);
  for (const badge of await cell.locator(".transync-badge").all()) assert.ok((await badge.boundingBox()).height < 30, "a badge on one line");
  await look("posts-list", ".wp-list-table .column-transync");

  await page.goto(`${wp.base}/wp-admin/post.php?post=${id}&action=edit`);
  const box = page.locator("#transync");
  await box.waitFor({ timeout: 60_000 });
  assert.match(await box.innerText(), /DE\s+Conflict/);
  assert.match(await box.innerText(), /FR\s+In review/);
  await look("edit-source", "#transync");

  await page.goto(`${wp.base}/wp-admin/post.php?post=${de}&action=edit`);
  const conflictBox = page.locator("#transync");
  await conflictBox.waitFor({ timeout: 60_000 });
  assert.match(await conflictBox.innerText(), /You changed this translation; a new machine translation waits beside your text/);
  await look("edit-conflict", "#transync");
  // The editor takes the new translation: written into the draft, the conflict gone.
  await Promise.all([page.waitForURL(new RegExp(`post=${de}`)), conflictBox.getByRole("link", { name: "Take the new translation" }).click()]);
  const now = (await wp.rest("GET", `/wp/v2/posts/${de}?context=edit`)).json.content.raw;
  assert.ok(!now.includes("von der Redaktion"));
  assert.match(now.match(/<p>([^<]*)<\/p>/)[1], /[áéíóú]/);
  assert.equal(wp.php(`echo json_encode(get_post_meta(${de}, '_transync_conflicts', true));`), "");
});

test("a wrong key: the notice on every admin screen and the state on the settings page", async () => {
  wp.configure({ url: service.base, key: "tsk_wrong_0000000000000000000000000000" });
  try {
    await wp.rest("POST", "/wp/v2/posts", { title: "Written with a wrong key", status: "publish" }, 201);
    await waitFor("the wrong key seen", () => wp.php("echo json_encode(\\Transync\\Rest::state());").connection.state === "wrong_key");
    await page.goto(`${wp.base}/wp-admin/options-general.php?page=transync`);
    const notice = page.locator(".transync-notice");
    assert.match(await notice.innerText(), /refused the API key \(401\)/);
    assert.match(await page.locator(".transync-settings").innerText(), /Wrong API key/);
    assert.ok(!(await page.content()).includes("tsk_wrong"), "the key is never shown");
    await look("settings-wrong-key", ".transync-settings");
  } finally {
    wp.configure({ url: service.base, key: service.key });
  }
});
