/**
 * The plugin's pure parts, on the build (dist/): settings checks, fields by default, unit keys,
 * blocks ↔ HTML, an entry's split and join with the kit (keys lined up with the previous push).
 */
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { test } from "node:test";

const require = createRequire(import.meta.url);
const { validateConfig, DEFAULTS } = require("../dist/config.js");
const { resolveTypes, unitKey, adminPath } = require("../dist/fields.js");
const { blocksToHtml, readBlocksHtml, replaceInline } = require("../dist/blocks.js");
const { splitEntry, joinEntry, editorTexts } = require("../dist/segments.js");
const { loadKit } = require("../dist/kit.js");

const ENV = { TRANSYNC_KEY: "tsk_x" };
const ok = { ...DEFAULTS, url: "https://api.transync.dev" };
const L = { pluginOptions: { i18n: { localized: true } } };
const ARTICLE = {
  uid: "api::article.article",
  kind: "collectionType",
  options: { draftAndPublish: true },
  ...L,
  attributes: { title: { type: "string", ...L }, body: { type: "richtext", ...L }, blocks: { type: "blocks", ...L }, slug: { type: "string" }, views: { type: "integer", ...L } },
};

test("configuration errors name the setting", () => {
  assert.doesNotThrow(() => validateConfig(ok, ENV));
  const cases = [
    [{ ...ok, url: "" }, /config\.url is missing/],
    [{ ...ok, url: "not a url" }, /config\.url is not a URL/],
    [{ ...ok, key: "tsk_in_the_file" }, /config\.key must not be set: the API key is read from the environment \(TRANSYNC_KEY\) only/],
    [{ ...ok, jobs: "sometimes" }, /config\.jobs must be "on_change" or "on_demand"/],
    [{ ...ok, locales: { de: "de de" } }, /config\.locales\["de"\] must be a language code/],
    [{ ...ok, cron: "soon" }, /config\.cron must be a cron rule/],
    [{ ...ok, contentTypes: { "api::article.article": { fields: "title" } } }, /config\.contentTypes\["api::article\.article"\]\.fields must be a list/],
  ];
  for (const [config, message] of cases) assert.throws(() => validateConfig(config, ENV), message);
  assert.throws(() => validateConfig(ok, {}), /config\.keyEnv names TRANSYNC_KEY, which is not set/);
});

test("fields: every localized text, richtext and blocks field by default; configured ones checked against the schema", () => {
  const [type] = resolveTypes(ok, { [ARTICLE.uid]: ARTICLE, "plugin::x.y": { ...ARTICLE, uid: "plugin::x.y" } }).values();
  assert.deepEqual(type.fields, [
    { name: "title", kind: "plain" },
    { name: "body", kind: "markdown" },
    { name: "blocks", kind: "blocks" },
  ]);
  assert.equal(type.titleField, "title");
  const typed = (fields) => resolveTypes({ ...ok, contentTypes: { [ARTICLE.uid]: { fields } } }, { [ARTICLE.uid]: ARTICLE });
  assert.deepEqual([...typed(["body"]).values()][0].fields, [{ name: "body", kind: "markdown" }]);
  assert.throws(() => typed(["summary"]), /contentTypes\["api::article\.article"\]\.fields names "summary", which api::article\.article does not have/);
  assert.throws(() => typed(["slug"]), /names "slug", which is not localized/);
  assert.throws(() => typed(["views"]), /of type integer: only string, text, richtext and blocks/);
  assert.throws(() => resolveTypes({ ...ok, contentTypes: { "api::page.page": {} } }, { [ARTICLE.uid]: ARTICLE }), /contentTypes\["api::page\.page"\] is not a content type/);
});

test("unit keys stay inside the key pattern; the path is the entry's admin page", () => {
  const key = unitKey("api::article.article", "ynfgur65v1igvt8y9rgheyn8");
  assert.equal(key, "api_article_article:ynfgur65v1igvt8y9rgheyn8");
  assert.match(key, /^[A-Za-z0-9_.:-]+$/);
  assert.equal(
    adminPath({ uid: "api::article.article", kind: "collectionType" }, "abc", "en"),
    "/admin/content-manager/collection-types/api::article.article/abc?plugins[i18n][locale]=en",
  );
});

test("blocks: to HTML and back, marks and links kept, lists and code blocks in place", async () => {
  const { parseDocument } = await loadKit();
  const blocks = [
    { type: "heading", level: 3, children: [{ type: "text", text: "Tom & Jerry <3" }] },
    {
      type: "paragraph",
      children: [
        { type: "text", text: "Plain, " },
        { type: "text", text: "bold italic", bold: true, italic: true },
        { type: "link", url: "https://x.test/?a=1&b=2", children: [{ type: "text", text: "a link" }] },
      ],
    },
    { type: "list", format: "ordered", children: [{ type: "list-item", children: [{ type: "text", text: "item" }] }] },
    { type: "code", children: [{ type: "text", text: "x < y" }] },
  ];
  const html = blocksToHtml(blocks);
  assert.match(html, /<h3 data-b="0">Tom &amp; Jerry &lt;3<\/h3>/);
  assert.match(html, /<li data-b="2.0">item<\/li>/);
  assert.doesNotMatch(html, /x &lt; y/, "code blocks are not sent");
  assert.deepEqual(replaceInline(blocks, readBlocksHtml(parseDocument, html)), blocks);
});

test("an entry: split into keyed segments, joined back from translations, an editor's text lined up by key", async () => {
  const kit = await loadKit();
  const [type] = resolveTypes(ok, { [ARTICLE.uid]: ARTICLE }).values();
  const entry = { title: "Hello", body: "First para.\n\nSecond para.\n", blocks: [{ type: "paragraph", children: [{ type: "text", text: "Block text" }] }] };
  const split = splitEntry(kit, type, entry);
  assert.deepEqual(
    split.segments.map((s) => [s.key.replace(/\.[0-9a-z]+$/, ".#"), s.format, s.field, s.kind]),
    [
      ["title", "plain", "title", "title"],
      ["body.p.#", "markdown", "body", "paragraph"],
      ["body.p.#", "markdown", "body", "paragraph"],
      ["blocks.p.#", "html", "blocks", "p"],
    ],
  );
  const upper = Object.fromEntries(split.segments.map((s) => [s.key, s.text.toUpperCase()]));
  const joined = joinEntry(kit, split, upper);
  assert.equal(joined.title, "HELLO");
  assert.equal(joined.body, "FIRST PARA.\n\nSECOND PARA.\n");
  assert.deepEqual(joined.blocks, [{ type: "paragraph", children: [{ type: "text", text: "BLOCK TEXT" }] }]);
  // Editing the second paragraph keeps its key (aligned with the previous push).
  const edited = splitEntry(kit, type, { ...entry, body: "First para.\n\nSecond paragraph, edited.\n" }, split.segments);
  assert.deepEqual(
    edited.segments.map((s) => s.key),
    split.segments.map((s) => s.key),
  );
  // An editor's German version: texts by the source's keys.
  const texts = editorTexts(kit, split, { title: "Hallo", body: "Erster.\n\nZweiter.\n", blocks: entry.blocks });
  assert.equal(texts.get("title"), "Hallo");
  assert.equal(texts.get(split.segments[2].key), "Zweiter.");
  assert.equal(texts.get(split.segments[3].key), "Block text");
});

/** A Strapi with only what Sync.locales and the middleware read: settings, i18n's locales, documents, the request's user. */
function fakeStrapi(settings, codes, published = {}) {
  return {
    config: { get: () => ({ ...DEFAULTS, url: "https://api.transync.dev", ...settings }) },
    plugin: () => ({ service: () => ({ find: async () => codes.map((code) => ({ code })), getDefaultLocale: async () => codes[0] }) }),
    documents: () => ({ findOne: async ({ locale }) => published[locale] ?? null }),
    requestContext: { get: () => ({ state: { user: { firstname: "Anna", lastname: "Editor" } } }) },
    log: { error: (m) => assert.fail(m) },
  };
}

function recordingSync(strapi) {
  const { Sync } = require("../dist/sync.js");
  const queued = [];
  const store = { enqueue: async (kind, unit, _uid, _entry, payload, language) => queued.push({ kind, unit, language, ...(payload ?? {}) }) };
  const sync = new Sync(strapi, store);
  sync.soon = () => queued.push({ kind: "soon" });
  sync.types = resolveTypes(strapi.config.get(), { [ARTICLE.uid]: ARTICLE });
  return { sync, queued };
}

test("locales: Strapi's locale codes mapped to the site's languages and back; the default locale is the source", async () => {
  const { sync } = recordingSync(fakeStrapi({ locales: { "fr-FR": "fr" } }, ["en", "de", "fr-FR"]));
  const l = await sync.locales();
  assert.equal(l.source, "en");
  assert.deepEqual(l.targets, ["de", "fr-FR"]);
  assert.equal(l.language("fr-FR"), "fr");
  assert.equal(l.language("de"), "de");
  assert.equal(l.locale("fr"), "fr-FR");
  assert.equal(l.locale("it"), undefined);
});

test("the middleware queues pushes and deletes for the source locale, reviews for target locales", async () => {
  const { documentMiddleware } = require("../dist/middleware.js");
  const strapi = fakeStrapi({}, ["en", "de", "fr"], { de: { title: "Hallo", body: "Text.", blocks: null, slug: "x" } });
  const { sync, queued } = recordingSync(strapi);
  const run = async (action, params, result = null, uid = ARTICLE.uid) => {
    queued.length = 0;
    const answer = await documentMiddleware(strapi, sync)({ uid, action, params }, async () => result);
    assert.equal(answer, result, "the action's own result is passed on");
    const soon = queued.filter((q) => q.kind === "soon").length;
    const tasks = queued.filter((q) => q.kind !== "soon");
    assert.equal(soon, tasks.length ? 1 : 0, "a prompt pass is asked for once when something was queued");
    return tasks.map(({ kind, language, outcome }) => [kind, language ?? null, outcome ?? null]);
  };
  const unit = "api_article_article:d1";
  assert.deepEqual(await run("create", {}, { documentId: "d1" }), [["push", null, null]]);
  assert.deepEqual(await run("update", { documentId: "d1", locale: "en" }), [["push", null, null]]);
  assert.deepEqual(await run("publish", { documentId: "d1", locale: "en" }), [["push", null, null]]);
  assert.deepEqual(await run("update", { documentId: "d1", locale: "de", status: "draft" }), [], "the plugin's own drafts and editors' saves of them");
  assert.deepEqual(await run("publish", { documentId: "d1", locale: ["de", "fr"] }), [["review", "de", "approved"]], "fr has no published version");
  assert.equal(queued[0].fields.title, "Hallo");
  assert.equal(queued[0].fields.slug, undefined, "only the translated fields");
  assert.equal(queued[0].reviewer, "Anna Editor");
  assert.equal(queued[0].unit, unit);
  assert.deepEqual(await run("update", { documentId: "d1", locale: "de", status: "published" }), [["review", "de", "approved"]]);
  assert.deepEqual(await run("discardDraft", { documentId: "d1", locale: "de" }), [["review", "de", "rejected"]]);
  assert.deepEqual(await run("delete", { documentId: "d1", locale: "fr" }), [["review", "fr", "rejected"]]);
  assert.deepEqual(await run("delete", { documentId: "d1", locale: "*" }), [["delete", null, null]], "the unit goes with its results");
  assert.deepEqual(await run("delete", { documentId: "d1" }), [["delete", null, null]]);
  assert.deepEqual(await run("unpublish", { documentId: "d1", locale: "en" }), []);
  assert.deepEqual(await run("create", {}, { documentId: "d2" }, "api::page.page"), [], "types not translated are left alone");
});
