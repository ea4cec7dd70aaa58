/**
 * The plugin end to end: a real WordPress 6.5.5 with Polylang 3.7.8 (en, de, fr) and the plugin
 * from dist/transync.zip, against the real service (`wrangler dev --local`, pseudo engine). The
 * tests run in order and share both: each picks up where the previous one left the post. Nothing
 * here calls a pass by hand unless the test is about WP-Cron: saves start one at the end of their
 * request, the service's webhook starts the pull.
 */
import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { after, before, test } from "node:test";
import { call, freePort, startService, startSite, waitFor } from "./harness.mjs";

let service;
let wp;

const block = (name, inner) => `<!-- wp:${name} -->\n${inner}\n<!-- /wp:${name} -->`;
const P = ["The first paragraph explains the idea.", "The second paragraph shows the details.", "The third paragraph ends the story."];
const body = (ps, extra = []) =>
  [
    block("heading", '<h2 class="wp-block-heading">Getting started</h2>'),
    ...ps.map((p) => block("paragraph", `<p>${p}</p>`)),
    block("list", '<ul class="wp-block-list"><li>First item</li><li>Second <strong>item</strong></li></ul>'),
    block("image", '<figure class="wp-block-image"><img src="/a.jpg" alt=""/><figcaption class="wp-element-caption">A caption</figcaption></figure>'),
    block("code", '<pre class="wp-block-code"><code>npm install transync</code></pre>'),
    ...extra,
  ].join("\n\n");

/** The pseudo engine accents letters and lengthens text: a translation differs from its source and carries accents. */
const looksTranslated = (text, source) => text !== source && /[áéíóúñçšţ]/i.test(text);
/** The texts of <p> elements, in order. */
const paragraphs = (html) => [...html.matchAll(/<p>([\s\S]*?)<\/p>/g)].map((m) => m[1]);
/** Everything but the texts of the blocks: comments, tags, attributes (`/>` as WordPress's content filter writes it). */
const markup = (html) => html.replace(/>[^<]+</g, "><").replaceAll('"/>', '" />');

let post; // the English post's id
let unit;
let de;
let fr;

const get = async (id) => (await wp.rest("GET", `/wp/v2/posts/${id}?context=edit`)).json;
const translations = (id) => wp.php(`echo json_encode((object) pll_get_post_translations(${id}));`);
const unitStatus = async (key, include = "text,results") => service.api("GET", `/v1/units/${key}/status?include=${include}`);
const meta = (id, key) => wp.php(`echo json_encode(json_decode((string) get_post_meta(${id}, '${key}', true)));`);
const pluginState = () => wp.php("echo json_encode(\\Transync\\Rest::state());");

before(async () => {
  service = await startService();
  wp = await startSite(service);
});

after(async () => {
  if (process.env.TRANSYNC_DEBUG) console.log(JSON.stringify(pluginState(), null, 1));
  await wp?.stop();
  await service?.stop();
});

test("publishing an English post gives German and French drafts, linked by Polylang, with translated text", async () => {
  const started = Date.now();
  const created = await wp.rest("POST", "/wp/v2/posts", { title: "Hello world", content: body(P), excerpt: "A short summary.", status: "publish" }, 201);
  post = created.json.id;
  unit = `post:${post}`;
  const linked = await waitFor("the German and French drafts", () => {
    const t = translations(post);
    return t.de && t.fr && t;
  });
  const ms = Date.now() - started;
  console.log(`publish → German and French drafts: ${ms} ms`);
  ({ de, fr } = linked);
  assert.equal(linked.en, post);
  for (const id of [de, fr]) {
    const d = await get(id);
    assert.equal(d.status, "draft", "never published by the plugin");
    assert.ok(looksTranslated(d.title.raw, "Hello world"), d.title.raw);
    assert.ok(looksTranslated(d.excerpt.raw, "A short summary."), d.excerpt.raw);
    const ps = paragraphs(d.content.raw);
    assert.equal(ps.length, 3);
    ps.forEach((p, i) => assert.ok(looksTranslated(p, P[i]), p));
    // The block markup is the source's: comments, classes, the image; the code block as it was.
    assert.equal(markup(d.content.raw).replace(/<!-- [^>]*-->/g, ""), markup(body(P)).replace(/<!-- [^>]*-->/g, ""));
    assert.ok(d.content.raw.includes("<!-- wp:paragraph -->"));
    assert.ok(d.content.raw.includes("<code>npm install transync</code>"));
    assert.match(d.content.raw, /<figcaption class="wp-element-caption">[^<]*[áéíóú][^<]*<\/figcaption>/);
  }
  assert.deepEqual(wp.php(`echo json_encode([pll_get_post_language(${de}), pll_get_post_language(${fr})]);`), ["de", "fr"]);
  // The handshake: Polylang's languages, the plugin's version, whole units.
  const site = await service.admin("GET", `/admin/v1/sites/${service.siteId}`);
  assert.match(site.connector.connector_version, /^transync-wordpress\/\d+\.\d+\.\d+$/);
  assert.deepEqual([...site.connector.languages].sort(), ["de", "fr"]);
  assert.deepEqual(site.connector.adapters, ["wordpress"]);
  assert.ok(site.connector.capabilities.includes("whole_unit"));
  // Acknowledged once written: in review, waiting for an editor.
  const status = await waitFor("the acknowledgements", async () => {
    const { json } = await unitStatus(unit);
    return json.segments.every((s) => ["de", "fr"].every((l) => s.states[l] === "review" && s.results[l].status === "pending_review")) && json;
  });
  console.log(`acks seen: ${Date.now() - started} ms`);
  assert.equal(status.adapter, "wordpress");
  assert.equal(status.label, "Hello world");
  assert.equal(status.path, new URL(created.json.link).pathname);
  assert.deepEqual(
    status.segments.map((s) => s.key).filter((k) => !k.startsWith("content.")),
    ["title", "excerpt"],
  );
  assert.equal(status.segments.filter((s) => s.key.startsWith("content.")).length, 7); // h2, 3 p, 2 li, figcaption; not the code
  // What editors see: in review in both languages.
  await waitFor("the states", () => {
    const states = wp.php(`echo json_encode(\\Transync\\Content::states(get_post(${post})));`);
    return states.de.state === "review" && states.fr.state === "review";
  });
});

test("editing one paragraph retranslates exactly that segment; the drafts' other paragraphs are untouched", async () => {
  const before = (await unitStatus(unit)).json;
  const jobs = (await service.api("GET", "/v1/jobs")).json;
  const lastJob = Math.max(...jobs.map((j) => j.id));
  const deBefore = (await get(de)).content.raw;
  const frBefore = (await get(fr)).content.raw;
  // The French draft unlinked behind the plugin's back (two saves of Polylang's group at once):
  // its result is written into it all the same, and it is linked again; no second draft.
  wp.php(`pll_save_post_translations(['en' => ${post}, 'de' => ${de}]); echo 1;`);
  assert.deepEqual(translations(post), { en: post, de });
  const edited = [P[0], "The second paragraph now shows other details.", P[2]];
  await wp.rest("POST", `/wp/v2/posts/${post}`, { content: body(edited) }, 200);
  const after = await waitFor("the edit pushed", async () => {
    const { json } = await unitStatus(unit);
    return json.segments.some((s) => s.text.includes("other details")) && json;
  });
  assert.deepEqual(after.segments.map((s) => s.key).sort(), before.segments.map((s) => s.key).sort(), "the edited paragraph keeps its key");
  const changed = after.segments.filter((s) => s.text !== before.segments.find((b) => b.key === s.key).text);
  assert.equal(changed.length, 1);
  const job = await waitFor("the job after the edit", async () => (await service.api("GET", "/v1/jobs")).json.find((j) => j.id > lastJob && j.status === "succeeded"));
  assert.equal(job.estimated_segments, 2, JSON.stringify(job));
  for (const [id, old] of [
    [de, deBefore],
    [fr, frBefore],
  ]) {
    const now = await waitFor("the new paragraph", async () => {
      const c = (await get(id)).content.raw;
      return paragraphs(c)[1] !== paragraphs(old)[1] && c;
    });
    assert.ok(looksTranslated(paragraphs(now)[1], edited[1]));
    // Everything else byte for byte as it was.
    assert.equal(now.replace(paragraphs(now)[1], "§"), old.replace(paragraphs(old)[1], "§"));
    assert.equal((await get(id)).status, "draft");
  }
  assert.deepEqual(translations(post), { en: post, de, fr });
  assert.deepEqual(wp.php(`echo json_encode(\\Transync\\Content::own_drafts(${post}));`), { de, fr });
});

test("an editor's saved change to the German draft survives the next English edits; where both changed, the new text waits beside it", async () => {
  const deText = (await get(de)).content.raw;
  const mine = "Dieser dritte Absatz wurde von der Redaktion korrigiert.";
  const corrected = deText.replace(paragraphs(deText)[2], mine);
  await wp.rest("POST", `/wp/v2/posts/${de}`, { content: corrected }, 200); // saved, still a draft
  // English: a new paragraph at the top, and the first one edited.
  const lastJob = Math.max(...(await service.api("GET", "/v1/jobs")).json.map((j) => j.id));
  const english = ["A new opening paragraph.", "The first paragraph explains the idea again.", "The second paragraph now shows other details.", P[2]];
  await wp.rest("POST", `/wp/v2/posts/${post}`, { content: body(english) }, 200);
  await waitFor("the job", async () => (await service.api("GET", "/v1/jobs")).json.find((j) => j.id > lastJob && j.status === "succeeded"));
  const now = await waitFor("the German draft with the new paragraph", async () => {
    const c = (await get(de)).content.raw;
    return paragraphs(c).length === 4 && c;
  });
  const ps = paragraphs(now);
  assert.ok(looksTranslated(ps[0], english[0]), ps[0]);
  assert.ok(looksTranslated(ps[1], english[1]), ps[1]);
  assert.equal(ps[3], mine, "the editor's correction is kept");
  assert.equal(meta(de, "_transync_conflicts"), null, "no conflict: the editor's paragraph's source did not change");
  const frNow = await waitFor("the French draft with the new paragraph", async () => {
    const c = (await get(fr)).content.raw;
    return paragraphs(c).length === 4 && c;
  });
  assert.ok(looksTranslated(paragraphs(frNow)[3], P[2]));

  // English now changes the paragraph the editor corrected in German.
  const lastJob2 = Math.max(...(await service.api("GET", "/v1/jobs")).json.map((j) => j.id));
  english[3] = "The third paragraph ends the story differently.";
  await wp.rest("POST", `/wp/v2/posts/${post}`, { content: body(english) }, 200);
  await waitFor("the job", async () => (await service.api("GET", "/v1/jobs")).json.find((j) => j.id > lastJob2 && j.status === "succeeded"));
  const conflicts = await waitFor("the conflict", () => meta(de, "_transync_conflicts"));
  const [key, waiting] = Object.entries(conflicts)[0];
  assert.match(key, /^content\.p\./);
  assert.ok(looksTranslated(waiting.text, english[3]), waiting.text);
  assert.equal(paragraphs((await get(de)).content.raw)[3], mine, "the editor's text stays in the post");
  await waitFor(
    "the French paragraph",
    async () => looksTranslated(paragraphs((await get(fr)).content.raw)[3], english[3]) && !paragraphs((await get(fr)).content.raw)[3].includes("ţĥé šţôŕý."),
  );
  const states = wp.php(`echo json_encode(\\Transync\\Content::states(get_post(${post})));`);
  assert.equal(states.de.state, "conflict");
  // The editor keeps their text: the conflict goes, the text stays.
  wp.php(`\\Transync\\Content::resolve(get_post(${de}), 'keep'); echo json_encode(true);`);
  assert.equal(meta(de, "_transync_conflicts"), null);
  assert.equal(paragraphs((await get(de)).content.raw)[3], mine);
});

test("publishing the German draft reports it approved, the editor's paragraph with origin human", async () => {
  await wp.rest("POST", `/wp/v2/posts/${de}`, { status: "publish" }, 200);
  const status = await waitFor("the approval", async () => {
    const { json } = await unitStatus(unit);
    return json.segments.every((s) => s.states.de === "ok") && json;
  });
  const corrected = status.segments.filter((s) => s.results.de.origin === "human");
  assert.equal(corrected.length, 1);
  assert.equal(corrected[0].results.de.text, "Dieser dritte Absatz wurde von der Redaktion korrigiert.");
  assert.equal(corrected[0].results.de.status, "approved");
  assert.ok(status.segments.filter((s) => s.key !== corrected[0].key).every((s) => s.results.de.origin !== "human" && s.results.de.status === "approved"));
  assert.ok(
    status.segments.every((s) => s.states.fr === "review"),
    "French was not published",
  );
  await waitFor("German up to date", () => wp.php(`echo json_encode(\\Transync\\Content::states(get_post(${post})));`).de.state === "ok");
});

test("trashing the French draft reports it rejected", async () => {
  await wp.rest("DELETE", `/wp/v2/posts/${fr}`, undefined, 200); // to the trash
  await waitFor("the rejection", async () => (await unitStatus(unit)).json.segments.every((s) => s.states.fr === "missing"));
});

test("the webhook: the service's deliveries are accepted; a forged or replayed one is refused", async () => {
  await waitFor("a delivery the plugin accepted", async () => {
    const { json } = await service.api("GET", "/v1/webhook/deliveries?limit=50");
    return json.deliveries.some((d) => ["results.available", "job.finished"].includes(d.event) && d.status_code === 204);
  });
  const url = `${wp.base}/wp-json/transync/v1/webhook`;
  const payload = JSON.stringify({ type: "results.available", timestamp: new Date().toISOString(), data: { pending: 1, languages: ["de"] } });
  const now = String(Math.floor(Date.now() / 1000));
  const forged = await call(url, "POST", "", { body: payload, headers: { "webhook-id": "msg_forged", "webhook-timestamp": now, "webhook-signature": "v1,AAAA" } });
  assert.equal(forged.status, 401);
  // Signed with the endpoint's secret (as the service signs), once accepted, then replayed.
  const secret = wp.php("echo json_encode(get_option('transync_webhook')['secret']);");
  const sign = (id, ts, text) =>
    `v1,${createHmac("sha256", Buffer.from(secret.replace(/^whsec_/, ""), "base64"))
      .update(`${id}.${ts}.${text}`)
      .digest("base64")}`;
  const headers = { "webhook-id": "msg_test_1", "webhook-timestamp": now, "webhook-signature": sign("msg_test_1", now, payload) };
  assert.equal((await call(url, "POST", "", { body: payload, headers })).status, 204);
  assert.equal((await call(url, "POST", "", { body: payload, headers })).status, 409, "a replayed webhook-id is refused");
  // An old timestamp, correctly signed, is refused too.
  const old = String(Math.floor(Date.now() / 1000) - 3600);
  assert.equal(
    (await call(url, "POST", "", { body: payload, headers: { "webhook-id": "msg_test_2", "webhook-timestamp": old, "webhook-signature": sign("msg_test_2", old, payload) } }))
      .status,
    401,
  );
});

test("a wrong key: a clear admin notice, the changes kept as one, sent once the key is right", async () => {
  const deTitle = (await get(de)).title.raw;
  wp.configure({ url: service.base, key: "tsk_wrong_0000000000000000000000000000" });
  try {
    await wp.rest("POST", `/wp/v2/posts/${post}`, { title: "Hello again, world" }, 200);
    await waitFor("the wrong key seen", () => pluginState().connection.state === "wrong_key");
    const notice = wp.php("\\Transync\\Admin::notice();");
    assert.match(notice, /refused the API key \(401\): check TRANSYNC_KEY in wp-config\.php/);
    assert.match(notice, /Nothing is lost: 1 change waits/);
    assert.ok(!notice.includes("tsk_wrong"), "the key is not shown");
    // A second change before the service takes the first: still one task.
    await wp.rest("POST", `/wp/v2/posts/${post}`, { title: "Hello again, dear world" }, 200);
    const state = pluginState();
    assert.equal(state.queue.length, 1);
    assert.equal(state.queue[0].kind, "push");
    assert.ok(!JSON.stringify(state).includes("tsk_wrong") && !wp.debugLog().includes("tsk_wrong"), "the key is never stored or logged");
  } finally {
    wp.configure({ url: service.base, key: service.key });
  }
  wp.cron(); // The next minute's WP-Cron (a new key resets the wait)
  await waitFor("the change at the service", async () => (await unitStatus(unit)).json.label === "Hello again, dear world");
  assert.equal(pluginState().connection.state, "ok");
  assert.equal(wp.php("\\Transync\\Admin::notice();"), "");
  // German is published: the new title waits beside it; French was trashed: a new draft.
  const waiting = await waitFor("the German title waiting", () => meta(de, "_transync_conflicts")?.title);
  assert.ok(looksTranslated(waiting.text, "Hello again, dear world"), waiting.text);
  assert.equal((await get(de)).title.raw, deTitle, "the published German post is not written to");
  const fr2 = await waitFor("a new French draft", () => {
    const t = translations(post);
    return t.fr && t.fr !== fr && t.fr;
  });
  assert.ok(looksTranslated((await get(fr2)).title.raw, "Hello again, dear world"));
  fr = fr2;
});

test("an unreachable service and a restart: nothing lost, delivered later", async () => {
  wp.configure({ url: `http://127.0.0.1:${await freePort()}`, key: service.key });
  const created = await wp.rest(
    "POST",
    "/wp/v2/posts",
    { title: "Written while the service is down", content: block("paragraph", "<p>Kept in the queue.</p>"), status: "publish" },
    201,
  );
  await waitFor("the unreachable state", () => pluginState().connection.state === "unreachable");
  assert.match(wp.php("\\Transync\\Admin::notice();"), /is unreachable/);
  await wp.restart(); // WordPress stops and starts again: the queue is in its database.
  assert.equal(pluginState().queue.length, 1);
  wp.configure({ url: service.base, key: service.key });
  wp.cron();
  await waitFor("the unit at the service", async () => (await unitStatus(`post:${created.json.id}`)).status === 200);
  await waitFor("its German draft", () => translations(created.json.id).de);
});

test("a language added in Polylang and on the site is back-filled by a job, without touching the posts", async () => {
  wp.php("PLL()->model->add_language(['name' => 'Español', 'slug' => 'es', 'locale' => 'es_ES', 'rtl' => 0, 'term_group' => 3, 'flag' => 'es']); echo json_encode(true);");
  wp.cron();
  const site = await waitFor("the handshake with Spanish", async () => {
    const s = await service.admin("GET", `/admin/v1/sites/${service.siteId}`);
    return s.connector.languages.includes("es") && s;
  });
  assert.deepEqual([...site.connector.languages].sort(), ["de", "es", "fr"]);
  // Shown to the owner as the service says it (a Polylang language the site lacks), if it says so.
  const shown = pluginState().handshake.warnings;
  assert.deepEqual(shown, site.connector.warnings);
  // The owner adds Spanish to the site: the next scheduled pass starts a job for it.
  await service.admin("PATCH", `/admin/v1/sites/${service.siteId}`, { target_languages: ["de", "fr", "es"].map((code) => ({ code, engine: "pseudo" })) });
  wp.cron();
  const job = await waitFor("the job for Spanish", async () => (await service.api("GET", "/v1/jobs")).json.find((j) => j.languages.length === 1 && j.languages[0] === "es"));
  assert.equal(job.type, "delta");
  const es = await waitFor("the Spanish draft", () => translations(post).es);
  assert.ok(looksTranslated((await get(es)).title.raw, "Hello again, dear world"));
  assert.equal((await get(es)).status, "draft");
});

test("jobs on demand: a publish is sent but translated only when someone asks", async () => {
  wp.php("update_option('transync_settings', ['post_types' => ['post', 'page'], 'fields' => ['title', 'content', 'excerpt'], 'jobs' => 'on_demand']); echo 1;");
  try {
    const created = await wp.rest("POST", "/wp/v2/posts", { title: "Translated on demand", status: "publish" }, 201);
    const key = `post:${created.json.id}`;
    await waitFor("the push", async () => (await unitStatus(key)).status === 200);
    wp.cron(); // a whole scheduled pass after the push: no job
    assert.ok((await unitStatus(key)).json.segments.every((s) => s.states.de === "missing"));
    assert.equal(translations(created.json.id).de, undefined);
    // Settings → Transync → Translate now.
    const job = wp.php("echo json_encode(\\Transync\\Sync::instance()->start_job([], true));");
    assert.equal(job.type, "delta");
    await waitFor("the German draft", () => translations(created.json.id).de);
  } finally {
    wp.php("update_option('transync_settings', ['post_types' => ['post', 'page'], 'fields' => ['title', 'content', 'excerpt'], 'jobs' => 'on_publish']); echo 1;");
  }
});

test("deleting the English post deletes its unit", async () => {
  await wp.rest("DELETE", `/wp/v2/posts/${post}?force=true`, undefined, 200);
  await waitFor("the unit's deletion", async () => (await unitStatus(unit)).status === 404);
});

test("without Polylang the plugin says so in the admin and does nothing else", async () => {
  await wp.rest("POST", "/wp/v2/plugins/polylang/polylang", { status: "inactive" }, 200);
  const notices = wp.php("do_action('admin_notices');");
  assert.match(notices, /Transync needs Polylang/);
  assert.equal((await wp.rest("GET", "/transync/v1/status")).status, 404);
  await wp.rest("POST", "/wp/v2/posts", { title: "No Polylang", status: "publish" }, 201);
  assert.equal(wp.php(`global $wpdb; echo json_encode((int) $wpdb->get_var("SELECT COUNT(*) FROM {$wpdb->prefix}transync_queue"));`), 0);
});
