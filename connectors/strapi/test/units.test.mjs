/**
 * The plugin's pure parts, on the build (build/internals.js, the server's modules): settings checks, fields by default, unit keys,
 * blocks ↔ HTML, an entry's split and join with the kit (keys lined up with the previous push).
 */
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { test } from "node:test";

const require = createRequire(import.meta.url);
const internals = require("../build/internals.js");
const { validateConfig, DEFAULTS, resolveTypes, unitKey, adminPath, blocksToHtml, readBlocksHtml, replaceInline, splitEntry, joinEntry, editorTexts, loadKit } = internals;
const { composeDraft, RecentIds } = internals;

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
    [{ ...ok, pushDelay: -1 }, /config\.pushDelay must be a number of milliseconds from 0 to 600000/],
    [{ ...ok, onSourceDelete: "orphan" }, /config\.onSourceDelete must be "unlink" or "delete", not "orphan"/],
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
  const { Sync } = internals;
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
  const { documentMiddleware } = internals;
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

test("a draft: new machine texts where the editor changed nothing, the editor's text and a conflict where they meet", async () => {
  const kit = await loadKit();
  const [type] = resolveTypes(ok, { [ARTICLE.uid]: ARTICLE }).values();
  const source = { title: "Hello", body: "One.\n\nTwo.\n\nThree.\n" };
  const split = splitEntry(kit, type, source);
  const [title, one, two, three] = split.segments.map((s) => s.key);
  const machine = new Map([
    [title, "Hallo"],
    [one, "Eins."],
    [two, "Zwei."],
    [three, "Drei."],
  ]);
  const first = composeDraft({ kit, split, draft: null, record: null, results: machine, earlier: new Map(), now: "t" });
  assert.deepEqual(first.data, { title: "Hallo", body: "Eins.\n\nZwei.\n\nDrei.\n" });
  assert.deepEqual(first.conflicts, []);
  // The editor changes "Drei." and saves; new machine texts come for "Zwei." and "Drei.".
  const saved = { ...first.data, body: "Eins.\n\nZwei.\n\nDrei, korrigiert.\n" };
  const second = composeDraft({
    kit,
    split,
    draft: saved,
    record: first.record,
    results: new Map([
      [two, "Zwei neu."],
      [three, "Drei neu."],
    ]),
    earlier: new Map(),
    now: "t",
  });
  assert.deepEqual(second.data, { body: "Eins.\n\nZwei neu.\n\nDrei, korrigiert.\n" }, "only the changed field is written, the editor's paragraph kept");
  assert.deepEqual(second.written, [two]);
  assert.deepEqual(second.conflicts, [{ field: "body", key: three, mine: "Drei, korrigiert.", theirs: "Drei neu.", at: "t" }]);
  // Nothing new: nothing written, the conflict stays open.
  const after = { ...saved, body: "Eins.\n\nZwei neu.\n\nDrei, korrigiert.\n" };
  const idle = composeDraft({ kit, split, draft: after, record: second.record, results: new Map(), earlier: new Map(), now: "t" });
  assert.deepEqual(idle.data, {});
  assert.equal(idle.record.conflicts.length, 1);
  // "Take the new one".
  const taken = composeDraft({ kit, split, draft: after, record: second.record, results: new Map([[three, "Drei neu."]]), earlier: new Map(), take: new Set([three]), now: "t" });
  assert.deepEqual(taken.data, { body: "Eins.\n\nZwei neu.\n\nDrei neu.\n" });
  assert.deepEqual(taken.record.conflicts, []);
  // An editor who adds a paragraph: the field no longer lines up, it is kept whole and a new text for it is a conflict of the field.
  const longer = { ...after, body: "Eins.\n\nZwei neu.\n\nMein Absatz.\n\nDrei, korrigiert.\n" };
  const whole = composeDraft({ kit, split, draft: longer, record: second.record, results: new Map([[one, "Eins neu."]]), earlier: new Map(), now: "t" });
  assert.deepEqual(whole.data, {});
  assert.equal(whole.conflicts.length, 1);
  assert.equal(whole.conflicts[0].key, null);
  assert.equal(whole.conflicts[0].field, "body");
  assert.equal(whole.conflicts[0].theirsValue, "Eins neu.\n\nZwei neu.\n\nDrei.\n", "the new text with the others as last written");
  assert.equal(whole.conflicts[0].mine, longer.body);
  assert.deepEqual(whole.record.order, second.record.order, "the field's keys stay as last written");
});

test("webhook ids: a delivery seen within five minutes is a replay; later, or another id, is not", () => {
  let now = 0;
  const ids = new RecentIds(300_000, 3, () => now);
  assert.equal(ids.add("msg_1"), true);
  assert.equal(ids.add("msg_1"), false);
  now = 299_999;
  assert.equal(ids.add("msg_1"), false);
  assert.equal(ids.add("msg_2"), true);
  now = 600_000;
  assert.equal(ids.add("msg_1"), true, "its signature has expired anyway: the service's retry is a new delivery");
  // Bounded: the oldest ids go first.
  assert.equal(ids.add("msg_3"), true);
  assert.equal(ids.add("msg_4"), true);
  assert.equal(ids.add("msg_5"), true);
  assert.equal(ids.add("msg_5"), false);
});
