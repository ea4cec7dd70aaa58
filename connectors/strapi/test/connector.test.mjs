/**
 * The connector end to end: a real Strapi 5 (test/app, booted here on a temporary SQLite file)
 * with the plugin, against the real service (`wrangler dev --local`, pseudo engine). The tests
 * run in order and share the two: each picks up where the previous one left the article.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { call, freePort, startService, startStrapi, waitFor } from "./harness.mjs";

let service;
let cms;

const BODY = "# Getting started\n\nThe first paragraph explains the idea.\n\nThe second paragraph shows the details.\n\nThe third paragraph ends the story.\n";
const BLOCKS = [
  { type: "heading", level: 2, children: [{ type: "text", text: "Blocks heading" }] },
  {
    type: "paragraph",
    children: [
      { type: "text", text: "A paragraph with " },
      { type: "text", text: "bold words", bold: true },
      { type: "text", text: " and a " },
      { type: "link", url: "https://example.com/a?b=1&c=2", children: [{ type: "text", text: "link" }] },
      { type: "text", text: "." },
    ],
  },
  {
    type: "list",
    format: "unordered",
    children: [
      { type: "list-item", children: [{ type: "text", text: "First item" }] },
      { type: "list-item", children: [{ type: "text", text: "Second item" }] },
    ],
  },
  { type: "code", children: [{ type: "text", text: "npm install @transync/strapi" }] },
];

const paragraphs = (markdown) => markdown.split(/\n\n+/).map((p) => p.trim());
/** The pseudo engine accents letters and lengthens text: translated text differs from its source and carries accents. */
const looksTranslated = (text, source) => text !== source && /[áéíóúñçšţ]/i.test(text);

let article; // documentId of the first article
let unitKey;

async function draft(documentId, locale) {
  const { status, json } = await cms.rest("GET", `/api/articles/${documentId}?locale=${locale}&status=draft`);
  return status === 200 ? json.data : null;
}
const published = async (documentId, locale) => (await cms.rest("GET", `/api/articles/${documentId}?locale=${locale}&status=published`)).json?.data ?? null;
const unitStatus = async (key, include = "text,results") => service.api("GET", `/v1/units/${key}/status?include=${include}`);

before(async () => {
  service = await startService();
  cms = await startStrapi(service);
});

after(async () => {
  await cms?.stop();
  await service?.stop();
});

test("an English article gets German and French drafts with translated text, not published", async () => {
  const created = await cms.rest("POST", "/api/articles", { data: { title: "Hello world", body: BODY, blocks: BLOCKS, slug: "hello-world" } }, 201);
  article = created.json.data.documentId;
  unitKey = `api_article_article:${article}`;
  // Only the cron task and the webhook move it along: no explicit sync here.
  for (const locale of ["de", "fr"]) {
    const d = await waitFor(`the ${locale} draft`, () => draft(article, locale));
    assert.ok(looksTranslated(d.title, "Hello world"), d.title);
    assert.equal(d.publishedAt, null);
    assert.equal(await published(article, locale), null, `${locale} must not be published`);
    const [sourceParas, ourParas] = [paragraphs(BODY), paragraphs(d.body)];
    assert.equal(ourParas.length, sourceParas.length);
    assert.ok(ourParas[0].startsWith("# "), ourParas[0]);
    ourParas.forEach((p, i) => assert.ok(looksTranslated(p, sourceParas[i]), p));
    // Blocks: the same structure, the texts translated, marks and links kept, the code block as it was.
    assert.deepEqual(
      d.blocks.map((b) => b.type),
      ["heading", "paragraph", "list", "code"],
    );
    assert.ok(looksTranslated(d.blocks[0].children[0].text, "Blocks heading"));
    const inline = d.blocks[1].children;
    assert.ok(
      inline.some((c) => c.bold && looksTranslated(c.text, "bold words")),
      JSON.stringify(inline),
    );
    const link = inline.find((c) => c.type === "link");
    assert.equal(link.url, "https://example.com/a?b=1&c=2");
    assert.ok(looksTranslated(link.children[0].text, "link"));
    assert.equal(d.blocks[2].children.length, 2);
    assert.ok(looksTranslated(d.blocks[2].children[1].children[0].text, "Second item"));
    assert.deepEqual(d.blocks[3], BLOCKS[3]);
    // Strapi's copy rules: the non-localized slug is the source's.
    assert.equal(d.slug, "hello-world");
  }
  // The handshake declared Strapi's locales, the plugin's version and whole units.
  const site = await service.admin("GET", `/admin/v1/sites/${service.siteId}`);
  assert.match(site.connector.connector_version, /^transync-strapi\/\d+\.\d+\.\d+$/);
  assert.deepEqual([...site.connector.languages].sort(), ["de", "fr"]);
  assert.ok(site.connector.capabilities.includes("whole_unit"));
  assert.deepEqual(site.connector.adapters, ["strapi"]);
  // Acknowledged once written: in review, waiting for an editor.
  const unit = await waitFor("the acknowledgements", async () => {
    const { json } = await unitStatus(unitKey);
    return json.segments.every((s) => ["de", "fr"].every((l) => s.states[l] === "review" && s.results[l].status === "pending_review")) && json;
  });
  assert.equal(unit.adapter, "strapi");
  assert.equal(unit.label, "Hello world");
  assert.match(unit.path, new RegExp(`^/admin/content-manager/collection-types/api::article.article/${article}\\?`));
  assert.ok(unit.segments.some((s) => s.key === "title"));
});

test("editing one paragraph makes exactly that segment stale and retranslates it; the other paragraphs' drafts are untouched", async () => {
  const before = await unitStatus(unitKey);
  const lastJob = Math.max(...(await service.api("GET", "/v1/jobs")).json.map((j) => j.id));
  const deBefore = await draft(article, "de");
  const frBefore = await draft(article, "fr");
  const edited = BODY.replace("The second paragraph shows the details.", "The second paragraph now shows other details.");
  await cms.rest("PUT", `/api/articles/${article}`, { data: { body: edited } }, 200);
  // Same keys as before (the edited block keeps its key), one segment whose source changed.
  const after = await waitFor("the edit pushed", async () => {
    const { json } = await unitStatus(unitKey);
    return json.segments.some((s) => s.text.includes("other details")) && json;
  });
  assert.deepEqual(after.segments.map((s) => s.key).sort(), before.json.segments.map((s) => s.key).sort());
  const changed = after.segments.filter((s) => s.text !== before.json.segments.find((b) => b.key === s.key).text);
  assert.equal(changed.length, 1);
  // The job that followed the edit translated that segment only, in both languages.
  const job = await waitFor("the job after the edit", async () => {
    const { json } = await service.api("GET", "/v1/jobs");
    return json.find((j) => j.id > lastJob && j.status === "succeeded");
  });
  assert.equal(job.estimated_segments, 2, JSON.stringify(job));
  for (const [locale, old] of [
    ["de", deBefore],
    ["fr", frBefore],
  ]) {
    const d = await waitFor(`the new ${locale} paragraph`, async () => {
      const now = await draft(article, locale);
      return paragraphs(now.body)[2] !== paragraphs(old.body)[2] && now;
    });
    const [was, now] = [paragraphs(old.body), paragraphs(d.body)];
    assert.ok(looksTranslated(now[2], "The second paragraph now shows other details."));
    assert.equal(now[0], was[0]);
    assert.equal(now[1], was[1]);
    assert.equal(now[3], was[3]);
    assert.equal(d.title, old.title);
    assert.deepEqual(d.blocks, old.blocks);
    assert.equal(d.publishedAt, null);
  }
});

test("an editor who changes the German draft and publishes it: approved, origin human, and the memory holds the text", async () => {
  const d = await draft(article, "de");
  const mine = "Hallo Welt, von der Redaktion";
  await cms.rest("PUT", `/api/articles/${article}?locale=de&status=draft`, { data: { title: mine } }, 200);
  // Publishing through REST: an update without status=draft publishes the locale.
  await cms.rest("PUT", `/api/articles/${article}?locale=de`, { data: { title: mine, body: d.body } }, 200);
  assert.ok(await published(article, "de"));
  const unit = await waitFor("the approval", async () => {
    const { json } = await unitStatus(unitKey);
    return json.segments.every((s) => s.states.de === "ok") && json;
  });
  const title = unit.segments.find((s) => s.key === "title");
  assert.equal(title.results.de.text, mine);
  assert.equal(title.results.de.origin, "human");
  assert.equal(title.results.de.status, "approved");
  const body = unit.segments.find((s) => s.key !== "title");
  assert.notEqual(body.results.de.origin, "human", "unchanged texts are approved as delivered");
  // French was not published: still waiting for an editor.
  assert.ok(unit.segments.every((s) => s.states.fr === "review"));
  // The memory: a second article with the same title gets the editor's text as an exact match.
  const second = (await cms.rest("POST", "/api/articles", { data: { title: "Hello world", body: "Another text." } }, 201)).json.data.documentId;
  const d2 = await waitFor("the second article's German draft", () => draft(second, "de"));
  assert.equal(d2.title, mine);
  const { json: unit2 } = await unitStatus(`api_article_article:${second}`);
  assert.equal(unit2.segments.find((s) => s.key === "title").results.de.origin, "tm_exact");
  // Deleting its French locale (the editor discards the translation) reports a rejection: missing again.
  await waitFor("the second article's French draft", () => draft(second, "fr"));
  await cms.rest("DELETE", `/api/articles/${second}?locale=fr`, undefined, 204);
  await waitFor("the rejection", async () => {
    const { json } = await unitStatus(`api_article_article:${second}`);
    return json.segments.every((s) => s.states.fr === "missing");
  });
});

test("GET /api/transync/status needs a token and shows the site's counts and the units with work", async () => {
  const anonymous = await call(cms.base, "GET", "/api/transync/status");
  assert.ok(anonymous.status === 401 || anonymous.status === 403, String(anonymous.status));
  const { status, json } = await cms.rest("GET", "/api/transync/status");
  assert.equal(status, 200, JSON.stringify(json));
  assert.equal(json.queue.pending, 0);
  const fr = json.site.languages.find((l) => l.code === "fr");
  assert.ok(fr.review > 0, JSON.stringify(json.site));
  assert.ok(json.units.some((u) => u.external_key === unitKey && u.label === "Hello world"));
});

test("the webhook route: the service's deliveries are accepted, a forged one is refused", async () => {
  await waitFor("a delivery the plugin accepted", async () => {
    const { json } = await service.api("GET", "/v1/webhook/deliveries?limit=50");
    return json.deliveries.some((d) => ["results.available", "job.finished"].includes(d.event) && d.status_code === 204);
  });
  const forged = await fetch(`${cms.base}/api/transync/webhook`, {
    method: "POST",
    headers: { "content-type": "application/json", "webhook-id": "msg_1", "webhook-timestamp": String(Math.floor(Date.now() / 1000)), "webhook-signature": "v1,AAAA" },
    body: JSON.stringify({ type: "results.available", timestamp: new Date().toISOString(), data: { pending: 1, languages: ["de"] } }),
  });
  assert.equal(forged.status, 401);
});

test("a wrong key: a clear error in Strapi's log, the change kept and sent once the key is right", async () => {
  const good = process.env.TRANSYNC_KEY;
  process.env.TRANSYNC_KEY = "tsk_wrong_0000000000000000000000000000";
  const since = cms.logs.length;
  try {
    await cms.rest("PUT", `/api/articles/${article}`, { data: { title: "Hello again, world" } }, 200);
    await waitFor("the 401 in the log", () => cms.logs.slice(since).some((l) => l.level === "error" && /refused the API key \(401\).*TRANSYNC_KEY/.test(l.message)));
    const logged = cms.logs
      .slice(since)
      .map((l) => l.message)
      .join("\n");
    assert.ok(!logged.includes("tsk_wrong"), "the key is not logged");
    assert.ok(!logged.includes("Hello again"), "texts are not logged");
    // A second change of the same article before the service takes the first: still one task (coalesced).
    await cms.rest("PUT", `/api/articles/${article}`, { data: { title: "Hello again, dear world" } }, 200);
    const { json } = await cms.rest("GET", "/api/transync/status");
    assert.equal(json.queue.pending, 1, "the changes are kept, as one task");
  } finally {
    process.env.TRANSYNC_KEY = good;
  }
  await waitFor("the retried push", async () => {
    const { json } = await unitStatus(unitKey);
    return json.label === "Hello again, dear world";
  });
  await waitFor(
    "the new German title",
    async () => looksTranslated((await draft(article, "de")).title, "Hello again, dear world") && /ð+é+á+ŕ+/.test((await draft(article, "de")).title),
  );
});

test("an unreachable service: a clear error in Strapi's log, nothing lost, retried later", async () => {
  const url = cms.strapi.config.get("plugin::transync.url");
  const closed = await freePort();
  cms.strapi.config.set("plugin::transync.url", `http://127.0.0.1:${closed}`);
  const since = cms.logs.length;
  try {
    await cms.rest("PUT", `/api/articles/${article}`, { data: { title: "Hello, unreachable world" } }, 200);
    await waitFor("the unreachable error in the log", () => cms.logs.slice(since).some((l) => l.level === "error" && /is unreachable \(ECONNREFUSED\)/.test(l.message)), 30_000);
  } finally {
    cms.strapi.config.set("plugin::transync.url", url);
  }
  await waitFor("the retried push", async () => (await unitStatus(unitKey)).json.label === "Hello, unreachable world");
});

test("jobs on demand: a change is pushed but translated only when POST /api/transync/jobs asks", async () => {
  cms.strapi.config.set("plugin::transync.jobs", "on_demand");
  try {
    const id = (await cms.rest("POST", "/api/articles", { data: { title: "Translated on demand" } }, 201)).json.data.documentId;
    const key = `api_article_article:${id}`;
    await waitFor("the push", async () => (await unitStatus(key)).status === 200);
    await cms.rest("POST", "/api/transync/sync", undefined, 200); // a whole pass after the push: no job
    const { json } = await unitStatus(key);
    assert.ok(
      json.segments.every((s) => s.states.de === "missing"),
      JSON.stringify(json.segments),
    );
    assert.equal(await draft(id, "de"), null);
    const started = await cms.rest("POST", "/api/transync/jobs", undefined, 202);
    assert.ok(started.json.job.id);
    await waitFor("the on-demand draft", () => draft(id, "de"));
  } finally {
    cms.strapi.config.set("plugin::transync.jobs", "on_change");
  }
});

test("deleting the article deletes its unit", async () => {
  await cms.rest("DELETE", `/api/articles/${article}`, undefined, 204);
  await waitFor("the unit's deletion", async () => (await unitStatus(unitKey)).status === 404);
});

test("nothing is lost on a restart: a change queued while the service is unreachable is sent after Strapi starts again", async () => {
  cms.strapi.config.set("plugin::transync.url", `http://127.0.0.1:${await freePort()}`);
  const since = cms.logs.length;
  const id = (await cms.rest("POST", "/api/articles", { data: { title: "Written before the restart" } }, 201)).json.data.documentId;
  await waitFor("the unreachable error", () => cms.logs.slice(since).some((l) => l.level === "error" && /is unreachable/.test(l.message)));
  assert.equal((await cms.rest("GET", "/api/transync/status")).json.queue.pending, 1);
  const { dir } = cms;
  await cms.stop({ keep: true });
  cms = await startStrapi(service, {}, { dir }); // the same database; the plugin's settings from config/plugins.js again
  await waitFor("the unit at the service", async () => (await unitStatus(`api_article_article:${id}`)).status === 200);
  await waitFor("the German draft", () => draft(id, "de"));
});
