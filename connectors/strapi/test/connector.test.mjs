/**
 * The connector end to end: a real Strapi 5 (test/app, booted here on a temporary SQLite file)
 * with the plugin installed from its packed tarball, against the real service (`wrangler dev
 * --local`, pseudo engine). The tests run in order and share the two: each picks up where the
 * previous one left the article. The cron task never fires: a test runs the passes it needs
 * (cms.pass, cms.settle), except the first, which measures the prompt path (publish → push after
 * `pushDelay` → job → webhook → drafts).
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { Webhook } from "standardwebhooks";
import { call, freePort, startGate, startService, startStrapi, waitFor } from "./harness.mjs";

let service;
let cms;
let admin; // a super admin's JWT

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
const entryState = async (documentId, jwt = admin) => (await cms.admin(jwt, "GET", `/transync/entries/api::article.article/${documentId}`)).json;
const overview = async (jwt = admin) => (await cms.admin(jwt, "GET", "/transync/overview")).json;

before(async () => {
  service = await startService();
  cms = await startStrapi(service);
  admin = (await cms.adminUser("super")).jwt;
});

after(async () => {
  await cms?.stop();
  await service?.stop();
});

test("a published English article gets German and French drafts within seconds, with no cron tick: pushed after pushDelay, results on the webhook", async (t) => {
  cms.strapi.config.set("plugin::transync.pushDelay", 2000); // the default
  try {
    const started = Date.now();
    const created = await cms.rest("POST", "/api/articles", { data: { title: "Hello world", body: BODY, blocks: BLOCKS, slug: "hello-world" } }, 201);
    article = created.json.data.documentId;
    unitKey = `api_article_article:${article}`;
    // No pass is run here: the change's prompt pass pushes it and starts the job; the webhook's deliveries bring the results.
    await waitFor("both drafts", async () => (await draft(article, "de")) && (await draft(article, "fr")), 30_000);
    const ms = Date.now() - started;
    t.diagnostic(`publish → German and French drafts: ${ms} ms (pushDelay 2000 ms)`);
    assert.ok(ms < 20_000, `${ms} ms`);
  } finally {
    cms.strapi.config.set("plugin::transync.pushDelay", 600_000);
  }
  await cms.sync().idle();
  for (const locale of ["de", "fr"]) {
    const d = await draft(article, locale);
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
  // The edit view's panel: both locales in review.
  const entry = await entryState(article);
  assert.deepEqual(
    entry.locales.map((l) => [l.locale, l.state]),
    [
      ["de", "in_review"],
      ["fr", "in_review"],
    ],
  );
});

test("editing one paragraph makes exactly that segment stale and retranslates it; the other paragraphs' drafts are untouched", async () => {
  const before = await unitStatus(unitKey);
  const lastJob = Math.max(...(await service.api("GET", "/v1/jobs")).json.map((j) => j.id));
  const deBefore = await draft(article, "de");
  const frBefore = await draft(article, "fr");
  const edited = BODY.replace("The second paragraph shows the details.", "The second paragraph now shows other details.");
  await cms.rest("PUT", `/api/articles/${article}`, { data: { body: edited } }, 200);
  assert.equal((await entryState(article)).locales[0].state, "translating", "queued for the service");
  await cms.settle();
  // Same keys as before (the edited block keeps its key), one segment whose source changed.
  const after = (await unitStatus(unitKey)).json;
  assert.deepEqual(after.segments.map((s) => s.key).sort(), before.json.segments.map((s) => s.key).sort());
  const changed = after.segments.filter((s) => s.text !== before.json.segments.find((b) => b.key === s.key).text);
  assert.equal(changed.length, 1);
  // The job that followed the edit translated that segment only, in both languages.
  const job = (await service.api("GET", "/v1/jobs")).json.find((j) => j.id > lastJob);
  assert.equal(job.status, "succeeded");
  assert.equal(job.estimated_segments, 2, JSON.stringify(job));
  for (const [locale, old] of [
    ["de", deBefore],
    ["fr", frBefore],
  ]) {
    const d = await draft(article, locale);
    const [was, now] = [paragraphs(old.body), paragraphs(d.body)];
    assert.ok(looksTranslated(now[2], "The second paragraph now shows other details."));
    assert.notEqual(now[2], was[2]);
    assert.equal(now[0], was[0]);
    assert.equal(now[1], was[1]);
    assert.equal(now[3], was[3]);
    assert.equal(d.title, old.title);
    assert.deepEqual(d.blocks, old.blocks);
    assert.equal(d.publishedAt, null);
  }
});

test("an editor's saved German correction survives a later source edit; a new machine text for it is a conflict the editor resolves", async () => {
  const mine = "Der dritte Absatz, von der Redaktion korrigiert.";
  const de = await draft(article, "de");
  const fr = await draft(article, "fr");
  const deParas = paragraphs(de.body);
  // The editor corrects the last paragraph in German and saves (not publishes).
  await cms.rest("PUT", `/api/articles/${article}?locale=de&status=draft`, { data: { body: `${[...deParas.slice(0, 3), mine].join("\n\n")}\n` } }, 200);
  // Then a paragraph is inserted into the English entry, which is published.
  const english = (await cms.rest("GET", `/api/articles/${article}?locale=en`)).json.data.body;
  const inserted = english.replace("The third paragraph", "A new paragraph arrives in the middle.\n\nThe third paragraph");
  await cms.rest("PUT", `/api/articles/${article}`, { data: { body: inserted } }, 200);
  await cms.settle();
  const de2 = paragraphs((await draft(article, "de")).body);
  assert.equal(de2.length, 5);
  assert.deepEqual(de2.slice(0, 3), deParas.slice(0, 3), "untouched paragraphs stay as they were");
  assert.ok(looksTranslated(de2[3], "A new paragraph arrives in the middle."), de2[3]);
  assert.equal(de2[4], mine, "the editor's correction is kept");
  const fr2 = paragraphs((await draft(article, "fr")).body);
  assert.deepEqual([...fr2.slice(0, 3), fr2[4]], paragraphs(fr.body));
  assert.ok(looksTranslated(fr2[3], "A new paragraph arrives in the middle."));
  assert.deepEqual((await entryState(article)).locales.find((l) => l.locale === "de").conflicts, []);

  // The English last paragraph changes: its new machine text meets the editor's correction.
  await cms.rest("PUT", `/api/articles/${article}`, { data: { body: inserted.replace("ends the story.", "ends the story, differently.") } }, 200);
  await cms.settle();
  const de3 = paragraphs((await draft(article, "de")).body);
  assert.equal(de3[4], mine, "still the editor's");
  const fr3 = paragraphs((await draft(article, "fr")).body);
  assert.ok(looksTranslated(fr3[4], "The third paragraph ends the story, differently."));
  assert.notEqual(fr3[4], fr2[4], "French, which no editor touched, gets the new text");
  const entry = await entryState(article);
  const deState = entry.locales.find((l) => l.locale === "de");
  assert.equal(deState.state, "conflict");
  assert.equal(deState.conflicts.length, 1);
  const [conflict] = deState.conflicts;
  assert.equal(conflict.mine, mine);
  assert.ok(looksTranslated(conflict.theirs, "The third paragraph ends the story, differently."), conflict.theirs);
  assert.match(conflict.key, /^body\.p\./);
  assert.equal(entry.locales.find((l) => l.locale === "fr").state, "in_review");
  // The page lists it too.
  assert.deepEqual(
    (await overview()).conflicts.map((c) => [c.unit, c.locale, c.count]),
    [[unitKey, "de", 1]],
  );
  // "Take the new one".
  const taken = await cms.admin(admin, "POST", `/transync/entries/api::article.article/${article}/conflicts`, { locale: "de", target: conflict.key, choice: "take" });
  assert.equal(taken.status, 200, JSON.stringify(taken.json));
  const de4 = paragraphs((await draft(article, "de")).body);
  assert.equal(de4[4], conflict.theirs);
  assert.deepEqual(de4.slice(0, 4), de3.slice(0, 4));
  assert.equal((await entryState(article)).locales.find((l) => l.locale === "de").state, "in_review");
  assert.equal((await cms.admin(admin, "POST", `/transync/entries/api::article.article/${article}/conflicts`, { locale: "de", target: conflict.key, choice: "keep" })).status, 404);
});

test("an editor who changes the German draft and publishes it: approved, origin human, and the memory holds the text", async () => {
  const d = await draft(article, "de");
  const mine = "Hallo Welt, von der Redaktion";
  await cms.rest("PUT", `/api/articles/${article}?locale=de&status=draft`, { data: { title: mine } }, 200);
  // Publishing through REST: an update without status=draft publishes the locale.
  await cms.rest("PUT", `/api/articles/${article}?locale=de`, { data: { title: mine, body: d.body } }, 200);
  assert.ok(await published(article, "de"));
  await cms.settle();
  const unit = (await unitStatus(unitKey)).json;
  assert.ok(
    unit.segments.every((s) => s.states.de === "ok"),
    JSON.stringify(unit.segments.map((s) => s.states)),
  );
  const title = unit.segments.find((s) => s.key === "title");
  assert.equal(title.results.de.text, mine);
  assert.equal(title.results.de.origin, "human");
  assert.equal(title.results.de.status, "approved");
  const body = unit.segments.find((s) => s.key !== "title");
  assert.notEqual(body.results.de.origin, "human", "unchanged texts are approved as delivered");
  // French was not published: still waiting for an editor.
  assert.ok(unit.segments.every((s) => s.states.fr === "review"));
  assert.equal((await entryState(article)).locales.find((l) => l.locale === "de").state, "up_to_date");
  // The memory: a second article with the same title gets the editor's text as an exact match.
  const second = (await cms.rest("POST", "/api/articles", { data: { title: "Hello world", body: "Another text." } }, 201)).json.data.documentId;
  await cms.settle();
  assert.equal((await draft(second, "de")).title, mine);
  const { json: unit2 } = await unitStatus(`api_article_article:${second}`);
  assert.equal(unit2.segments.find((s) => s.key === "title").results.de.origin, "tm_exact");
  // Deleting its French locale (the editor discards the translation) reports a rejection: missing again.
  assert.ok(await draft(second, "fr"));
  await cms.rest("DELETE", `/api/articles/${second}?locale=fr`, undefined, 204);
  await cms.pass();
  const { json: unit3 } = await unitStatus(`api_article_article:${second}`);
  assert.ok(unit3.segments.every((s) => s.states.fr === "missing"));
});

test("GET /api/transync/status needs a token and shows the site's counts and the units with work", async () => {
  const anonymous = await call(cms.base, "GET", "/api/transync/status");
  assert.equal(anonymous.status, 401);
  const { status, json } = await cms.rest("GET", "/api/transync/status");
  assert.equal(status, 200, JSON.stringify(json));
  assert.equal(json.queue.pending, 0);
  const fr = json.site.languages.find((l) => l.code === "fr");
  assert.ok(fr.review > 0, JSON.stringify(json.site));
  assert.ok(json.units.some((u) => u.external_key === unitKey && u.label === "Hello world"));
});

test("the webhook route: the service's deliveries are accepted, a forged one is refused, the same delivery again starts no pass", async () => {
  const { json } = await service.api("GET", "/v1/webhook/deliveries?limit=50");
  assert.ok(
    json.deliveries.some((d) => ["results.available", "job.finished"].includes(d.event) && d.status_code === 204),
    JSON.stringify(json.deliveries),
  );
  const body = JSON.stringify({ type: "results.available", timestamp: new Date().toISOString(), data: { pending: 1, languages: ["de"] } });
  const forged = await fetch(`${cms.base}/api/transync/webhook`, {
    method: "POST",
    headers: { "content-type": "application/json", "webhook-id": "msg_1", "webhook-timestamp": String(Math.floor(Date.now() / 1000)), "webhook-signature": "v1,AAAA" },
    body,
  });
  assert.equal(forged.status, 401);
  // A delivery signed with the registered secret, sent twice (a replay within its five minutes).
  const { secret } = await cms.sync().webhookSettings();
  const id = `msg_replay_${Date.now()}`;
  const at = new Date();
  const headers = {
    "content-type": "application/json",
    "webhook-id": id,
    "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
    "webhook-signature": new Webhook(secret).sign(id, at, body),
  };
  // Which deliveries start a pass: the route's calls of run() while each request is answered (the
  // service's own deliveries may arrive at any time and start passes of their own).
  const sync = cms.sync();
  const run = sync.run;
  const send = async () => {
    const calls = [];
    sync.run = (kind) => {
      calls.push(kind);
      return run.call(sync, kind);
    };
    try {
      const res = await fetch(`${cms.base}/api/transync/webhook`, { method: "POST", headers, body });
      return { status: res.status, calls };
    } finally {
      sync.run = run;
    }
  };
  const since = cms.logs.length;
  assert.deepEqual(await send(), { status: 204, calls: ["prompt"] }, "the delivery starts a pass");
  assert.deepEqual(await send(), { status: 204, calls: [] }, "the replay starts none");
  assert.equal(cms.logs.slice(since).filter((l) => l.message === "transync: a webhook delivery seen before was ignored").length, 1);
  await sync.idle();
});

test("a wrong key: a clear error in Strapi's log and on the Transync page, the change kept and sent once the key is right", async () => {
  const good = process.env.TRANSYNC_KEY;
  process.env.TRANSYNC_KEY = "tsk_wrong_0000000000000000000000000000";
  const since = cms.logs.length;
  try {
    await cms.rest("PUT", `/api/articles/${article}`, { data: { title: "Hello again, world" } }, 200);
    await cms.pass();
    assert.ok(cms.logs.slice(since).some((l) => l.level === "error" && /refused the API key \(401\).*TRANSYNC_KEY/.test(l.message)));
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
    const page = await overview();
    assert.equal(page.connection.state, "wrong_key");
    assert.match(page.connection.message, /refused the API key \(401\): check the key in TRANSYNC_KEY/);
    assert.match(page.errors[0].message, /refused the API key/);
    assert.equal(page.queue.pending, 1);
    assert.equal((await entryState(article)).locales[0].state, "translating");
  } finally {
    process.env.TRANSYNC_KEY = good;
  }
  await cms.settle();
  assert.equal((await unitStatus(unitKey)).json.label, "Hello again, dear world");
  assert.ok(looksTranslated((await draft(article, "de")).title, "Hello again, dear world"));
  assert.equal((await overview()).connection.state, "ok");
});

test("an unreachable service: a clear error in Strapi's log and on the page, nothing lost, retried later", async () => {
  const url = cms.strapi.config.get("plugin::transync.url");
  const closed = await freePort();
  cms.strapi.config.set("plugin::transync.url", `http://127.0.0.1:${closed}`);
  const since = cms.logs.length;
  try {
    await cms.rest("PUT", `/api/articles/${article}`, { data: { title: "Hello, unreachable world" } }, 200);
    await cms.pass();
    assert.ok(cms.logs.slice(since).some((l) => l.level === "error" && /is unreachable \(ECONNREFUSED\)/.test(l.message)));
    const page = await overview();
    assert.equal(page.connection.state, "unreachable");
    assert.match(page.connection.message, /unreachable \(ECONNREFUSED\)/);
  } finally {
    cms.strapi.config.set("plugin::transync.url", url);
  }
  await cms.settle();
  assert.equal((await unitStatus(unitKey)).json.label, "Hello, unreachable world");
});

test("an edit made while a pass sends the entry stays queued, and a later pass sends it", async () => {
  const url = cms.strapi.config.get("plugin::transync.url");
  const gate = await startGate(url);
  cms.strapi.config.set("plugin::transync.url", gate.url);
  try {
    await cms.rest("PUT", `/api/articles/${article}`, { data: { title: "Edited before the pass" } }, 200);
    const held = gate.hold("PUT", "/v1/units/batch");
    const passing = cms.pass();
    const { release, body } = await held; // the pass has read the task and is sending the entry
    assert.equal(JSON.parse(body).units[0].label, "Edited before the pass");
    await cms.rest("PUT", `/api/articles/${article}`, { data: { title: "Edited while the pass runs" } }, 200);
    release();
    await passing;
    // The pass removed the task only if it had not changed since it was read: the edit waits for the next pass
    // (the job's webhook may already have started it), and is not lost.
    await cms.settle();
  } finally {
    cms.strapi.config.set("plugin::transync.url", url);
    await gate.close();
  }
  assert.equal((await unitStatus(unitKey)).json.label, "Edited while the pass runs");
  assert.ok(looksTranslated((await draft(article, "de")).title, "Edited while the pass runs"));
  assert.equal((await cms.sync().store.all()).length, 0);
});

test("jobs on demand: a change is pushed but translated only when POST /api/transync/jobs asks", async () => {
  cms.strapi.config.set("plugin::transync.jobs", "on_demand");
  try {
    const id = (await cms.rest("POST", "/api/articles", { data: { title: "Translated on demand" } }, 201)).json.data.documentId;
    const key = `api_article_article:${id}`;
    await cms.rest("POST", "/api/transync/sync", undefined, 200); // a whole pass: pushed, no job
    const { json } = await unitStatus(key);
    assert.ok(
      json.segments.every((s) => s.states.de === "missing"),
      JSON.stringify(json.segments),
    );
    assert.equal(await draft(id, "de"), null);
    const started = await cms.rest("POST", "/api/transync/jobs", undefined, 202);
    assert.ok(started.json.job.id);
    await cms.settle();
    assert.ok(await draft(id, "de"));
  } finally {
    cms.strapi.config.set("plugin::transync.jobs", "on_change");
  }
});

test("locales: a Strapi locale the site lacks is warned about on the page; once the site has it, a job back-fills it", async () => {
  await cms.strapi.plugin("i18n").service("locales").create({ code: "es", name: "Spanish (es)" });
  await cms.pass();
  let page = await overview();
  assert.ok(
    page.handshake.warnings.some((w) => /language es that is not a target language/.test(w)),
    JSON.stringify(page.handshake.warnings),
  );
  assert.deepEqual(
    page.locales.targets.map((l) => [l.locale, l.atSite, l.writable]),
    [
      ["de", true, true],
      ["fr", true, true],
      ["es", false, false],
    ],
  );
  assert.equal(await draft(article, "es"), null);
  // The site's owner adds Spanish: the next scheduled pass sees it in the handshake's answer and starts a delta job for it.
  const lastJob = Math.max(...(await service.api("GET", "/v1/jobs")).json.map((j) => j.id));
  await service.admin("PATCH", `/admin/v1/sites/${service.siteId}`, { target_languages: ["de", "fr", "es"].map((code) => ({ code, engine: "pseudo" })) });
  await cms.settle();
  const jobs = (await service.api("GET", "/v1/jobs")).json.filter((j) => j.id > lastJob);
  assert.deepEqual(
    jobs.map((j) => [j.type, j.languages]),
    [["delta", ["es"]]],
  );
  const es = await draft(article, "es");
  assert.ok(looksTranslated(es.title, "Edited while the pass runs"), es.title);
  page = await overview();
  assert.deepEqual(page.handshake.warnings, []);
  assert.deepEqual(page.backfill, []);
  assert.ok(cms.logs.some((l) => /the site now translates into es: a job back-fills it/.test(l.message)));
  assert.deepEqual(page.locales.notInStrapi, []);
  // The other way round: a language of the site this Strapi has no locale for is named for the page.
  await service.admin("PATCH", `/admin/v1/sites/${service.siteId}`, { target_languages: ["de", "fr", "es", "it"].map((code) => ({ code, engine: "pseudo" })) });
  await cms.pass();
  assert.deepEqual((await overview()).locales.notInStrapi, ["it"]);
  await service.admin("PATCH", `/admin/v1/sites/${service.siteId}`, { target_languages: ["de", "fr", "es"].map((code) => ({ code, engine: "pseudo" })) });
  await cms.pass();
  assert.deepEqual((await overview()).locales.notInStrapi, []);
});

test("deleting a source: its target drafts stay (onSourceDelete unlink) or the never-published ones go (delete), logged either way", async () => {
  const keepId = (await cms.rest("POST", "/api/articles", { data: { title: "Source deleted, drafts kept" } }, 201)).json.data.documentId;
  const goId = (await cms.rest("POST", "/api/articles", { data: { title: "Source deleted, drafts deleted" } }, 201)).json.data.documentId;
  await cms.settle();
  for (const id of [keepId, goId]) for (const l of ["de", "fr", "es"]) assert.ok(await draft(id, l), `${id} ${l}`);
  await cms.rest("PUT", `/api/articles/${goId}?locale=fr`, { data: { title: "Publié par la rédaction" } }, 200); // French published
  const since = cms.logs.length;
  await cms.rest("DELETE", `/api/articles/${keepId}?locale=en`, undefined, 204);
  await cms.settle();
  assert.equal((await unitStatus(`api_article_article:${keepId}`)).status, 404);
  for (const l of ["de", "fr", "es"]) assert.ok(await draft(keepId, l), `the ${l} draft stays`);
  assert.ok(
    cms.logs
      .slice(since)
      .some((l) => /unit api_article_article:\S+ deleted .*its de, fr, es versions stay as they are, no longer translated \(onSourceDelete: "unlink"\)/.test(l.message)),
    JSON.stringify(cms.logs.slice(since)),
  );
  cms.strapi.config.set("plugin::transync.onSourceDelete", "delete");
  try {
    await cms.rest("DELETE", `/api/articles/${goId}?locale=en`, undefined, 204);
    await cms.settle();
  } finally {
    cms.strapi.config.set("plugin::transync.onSourceDelete", "unlink");
  }
  assert.equal((await unitStatus(`api_article_article:${goId}`)).status, 404);
  assert.equal(await draft(goId, "de"), null);
  assert.equal(await draft(goId, "es"), null);
  assert.equal((await published(goId, "fr"))?.title, "Publié par la rédaction", "a published version is never deleted");
  assert.ok(
    cms.logs.slice(since).some((l) => /its never-published de, es versions were deleted \(onSourceDelete: "delete"\); its fr version stays as it is/.test(l.message)),
    JSON.stringify(cms.logs.slice(since)),
  );
});

test("the admin routes: the panel's own session, the plugin's permissions checked (read, start jobs) and the content manager's for conflicts", async () => {
  const path = `/transync/entries/api::article.article/${article}`;
  assert.equal((await call(cms.base, "GET", "/transync/overview")).status, 401);
  // Editors have no Transync permission until a role grants it.
  const editor = (await cms.adminUser("editor")).jwt;
  assert.equal((await cms.admin(editor, "GET", "/transync/overview")).status, 403);
  assert.equal((await cms.admin(editor, "GET", path)).status, 403);
  // A role that may read, not start jobs nor edit articles.
  const readerRole = await cms.role("Transync readers", ["plugin::transync.read"]);
  const reader = (await cms.adminUser(readerRole, "reader@example.com")).jwt;
  const page = await cms.admin(reader, "GET", "/transync/overview");
  assert.equal(page.status, 200);
  assert.equal(page.json.canStartJobs, false);
  const entry = await cms.admin(reader, "GET", path);
  assert.equal(entry.status, 200);
  assert.equal(entry.json.canStartJobs, false);
  assert.equal(entry.json.canEdit, false);
  assert.equal((await cms.admin(reader, "POST", `${path}/translate`, {})).status, 403);
  assert.equal((await cms.admin(reader, "POST", "/transync/jobs", {})).status, 403);
  assert.equal((await cms.admin(reader, "POST", `${path}/conflicts`, { locale: "de", target: "title", choice: "keep" })).status, 403);
  // A role that may start jobs.
  const starterRole = await cms.role("Transync starters", ["plugin::transync.read", "plugin::transync.jobs"]);
  const starter = (await cms.adminUser(starterRole, "starter@example.com")).jwt;
  const translated = await cms.admin(starter, "POST", `${path}/translate`, { locales: ["fr"] });
  assert.equal(translated.status, 202, JSON.stringify(translated.json));
  assert.equal(translated.json.job.type, "translate");
  assert.deepEqual(translated.json.job.units, [unitKey]);
  assert.deepEqual(translated.json.job.languages, ["fr"]);
  assert.equal((await cms.admin(starter, "POST", `${path}/translate`, { locales: ["xx"] })).status, 400);
  await cms.settle();
});

test("nothing is lost on a restart: a change queued while the service is unreachable is sent after Strapi starts again", async () => {
  cms.strapi.config.set("plugin::transync.url", `http://127.0.0.1:${await freePort()}`);
  const id = (await cms.rest("POST", "/api/articles", { data: { title: "Written before the restart" } }, 201)).json.data.documentId;
  await cms.pass();
  assert.equal((await cms.rest("GET", "/api/transync/status")).json.queue.pending, 1);
  const { dir } = cms;
  await cms.stop({ keep: true });
  cms = await startStrapi(service, {}, { dir }); // the same database; the plugin's settings from config/plugins.js again
  await cms.settle();
  assert.equal((await unitStatus(`api_article_article:${id}`)).status, 200);
  assert.ok(await draft(id, "de"));
});
