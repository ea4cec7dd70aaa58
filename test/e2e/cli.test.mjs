/**
 * The `transync` CLI end to end (`npm run test:e2e`): the built CLI (client/dist/cli/main.js)
 * in child processes against a fresh `wrangler dev --local`, on a temporary folder of Markdown
 * files. Each command is a new process with no state but the folder itself.
 */

import assert from "node:assert/strict";
import { execFile, execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { ADMIN_TOKEN, startServer } from "./server.mjs";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "../..");
const CLI = join(ROOT, "client/dist/cli/main.js");

let server;
let folder;
let key;
let orgId;
let siteId;

async function api(method, path, { token = key, body } = {}) {
  const res = await fetch(server.base + path, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { "content-type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  assert.ok(res.ok, `${method} ${path}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : null;
}
const admin = (method, path, body) => api(method, path, { token: ADMIN_TOKEN, body });

/** Runs the CLI in a new process: `{code, stdout, stderr, json}`. */
function transync(args, env = {}) {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [CLI, ...args],
      { cwd: folder, env: { PATH: process.env.PATH, TRANSYNC_URL: server.base, TRANSYNC_KEY: key, ...env }, timeout: 120_000 },
      (error, stdout, stderr) => {
        let json;
        try {
          json = JSON.parse(stdout);
        } catch {}
        resolve({ code: error ? (error.code ?? 1) : 0, stdout, stderr, json });
      },
    );
  });
}

const FILES = {
  "index.md": "---\ntitle: Home\ndate: 2024-01-01\n---\n\n# Welcome\n\nThis is the home page.\n\n<!-- todo: hero image -->\n\nRead the guide first.\n",
  "guide/install.md":
    "---\ntitle: Install\ndescription: Getting it running.\n---\n\n## Install\n\nRun the installer.\n\n```sh\nnpm install transync\n```\n\n- Node.js 20\n- A site key\n\nThen start it.\n",
  "guide/config.md": "# Configure\n\nWrite a config file.\n\n| key | meaning |\n|---|---|\n| url | the service |\n\nKeep the key secret.\n",
  "about.md": "---\ntitle: About us\n---\n\nWe translate sites.\n\nWe started in 2020.\n",
  "blog/first.md": "# First post\n\nHello, world.\n\nMore to come.\n",
};
const LANGS = ["de", "fr"];

before(async () => {
  // Always from the current sources: a stale client/dist would test yesterday's CLI.
  execFileSync("npm", ["run", "build", "--workspace", "@transync/client"], { cwd: ROOT, stdio: "ignore" });
  assert.ok(existsSync(CLI));
  server = await startServer();
  const org = await admin("POST", "/admin/v1/organizations", { name: "Static Press" });
  orgId = org.id;
  const site = await admin("POST", "/admin/v1/sites", {
    organization_id: org.id,
    name: "Static docs",
    source_language: "en",
    target_languages: LANGS.map((code) => ({ code, engine: "pseudo" })),
  });
  siteId = site.id;
  await admin("PUT", `/admin/v1/organizations/${org.id}/subscription`, { plan: "pro", status: "active", site_ids: [site.id] });
  key = (await admin("POST", `/admin/v1/sites/${site.id}/keys`, { name: "cli" })).key;
  folder = mkdtempSync(join(tmpdir(), "transync-cli-"));
  for (const [path, text] of Object.entries(FILES)) {
    mkdirSync(dirname(join(folder, "content", path)), { recursive: true });
    writeFileSync(join(folder, "content", path), text);
  }
  writeFileSync(join(folder, "transync.config.json"), JSON.stringify({ dir: "content", include: "**/*.md" }));
});

after(async () => {
  await server?.stop();
  if (folder) rmSync(folder, { recursive: true, force: true });
});

test("a refused call exits 1 with the service's explanation", async () => {
  const run = await transync(["status"], { TRANSYNC_KEY: "tsk_not_a_real_key_0000000000000000" });
  assert.equal(run.code, 1, run.stderr);
  assert.match(run.stderr, /error: 401/);
});

test("usage errors exit 2: no key, no command, approve without --lang", async () => {
  assert.equal((await transync(["push"], { TRANSYNC_KEY: "" })).code, 2);
  assert.equal((await transync([])).code, 2);
  assert.equal((await transync(["approve", "content/index.md"])).code, 2);
  writeFileSync(join(folder, "transync.config.json"), JSON.stringify({ dir: "content", key: "tsk_x" }));
  const withKey = await transync(["status"]);
  assert.equal(withKey.code, 2);
  assert.match(withKey.stderr, /must not hold the key/);
  writeFileSync(join(folder, "transync.config.json"), JSON.stringify({ dir: "content", include: "**/*.md" }));
});

test("one sync turns the folder into drafts for every target language", async () => {
  const run = await transync(["sync", "--json"]);
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.json.push.units, 5);
  assert.equal(run.json.push.failed.length, 0);
  assert.equal(run.json.translate.jobs.length, 1);
  assert.equal(run.json.translate.jobs[0].status, "succeeded");
  assert.equal(run.json.pull.written.length, 5 * LANGS.length, JSON.stringify(run.json.pull));
  for (const lang of LANGS) {
    for (const path of Object.keys(FILES)) {
      const out = readFileSync(join(folder, "content", lang, path), "utf8");
      assert.match(out, /^---\n[\s\S]*draft: true\n---\n/, `${lang}/${path} is a draft`);
    }
    const install = readFileSync(join(folder, "content", lang, "guide/install.md"), "utf8");
    // Code and comments are kept as they were; translated blocks differ from the source.
    assert.ok(install.includes("```sh\nnpm install transync\n```"));
    assert.ok(!install.includes("Run the installer.\n"), install);
    assert.ok(readFileSync(join(folder, "content", lang, "index.md"), "utf8").includes("<!-- todo: hero image -->"));
  }
  // The drafts are not pushed back as sources, and the unit keys come from the paths.
  const status = await api("GET", "/v1/status");
  assert.equal(status.units_total, 5);
  const unit = await api("GET", "/v1/units/content:guide:install.md/status");
  assert.equal(unit.path, "content/guide/install.md");
  assert.equal((await api("GET", "/v1/results")).results.length, 0, "everything written was acknowledged");
});

test("a second sync starts no job and writes nothing", async () => {
  const jobs = (await api("GET", "/v1/jobs")).length;
  const run = await transync(["sync", "--json"]);
  assert.equal(run.code, 0, run.stderr);
  assert.deepEqual(run.json.translate.jobs, []);
  assert.equal(run.json.pull.written.length, 0);
  assert.equal((await api("GET", "/v1/jobs")).length, jobs);
});

test("after one paragraph is inserted and another edited: one segment missing, one stale (its translation kept), and the job bills just those two", async () => {
  const inserted = "A new first paragraph.";
  const index = join(folder, "content/index.md");
  writeFileSync(index, readFileSync(index, "utf8").replace("# Welcome\n\n", `# Welcome\n\n${inserted}\n\n`));
  const about = join(folder, "content/about.md");
  writeFileSync(about, readFileSync(about, "utf8").replace("We started in 2020.", "We started in 2019."));
  const before = await api("POST", "/v1/units/texts", { body: { keys: ["content:about.md"] } });
  const editedKey = before.units[0].segments.find((s) => s.text === "We started in 2020.").key;

  const pushed = await transync(["push", "--json"]);
  assert.equal(pushed.code, 0, pushed.stderr);
  // The edited paragraph kept its key (the CLI read the units' segments from the service first).
  assert.equal(pushed.json.added, 1);
  assert.equal(pushed.json.changed, 1);
  assert.equal(pushed.json.removed, 0);
  assert.equal(pushed.json.stale_translations, LANGS.length);
  const status = await transync(["status", "--json"]);
  assert.equal(status.code, 0, status.stderr);
  for (const lang of LANGS) {
    const counts = status.json.languages.find((l) => l.code === lang);
    assert.deepEqual([counts.missing, counts.stale, counts.attention], [1, 1, 0], `${lang}: ${JSON.stringify(counts)}`);
  }
  // The service agrees: GET /v1/status, and only the two files have work.
  for (const l of (await api("GET", "/v1/status")).languages) assert.deepEqual([l.missing, l.stale], [1, 1]);
  assert.deepEqual(
    status.json.units
      .filter((u) => u.languages.some((l) => l.missing > 0 || l.stale > 0))
      .map((u) => u.path)
      .sort(),
    ["content/about.md", "content/index.md"],
  );
  // The stale segment's earlier translation is still listed beside its new source.
  const unit = await api("GET", "/v1/units/content:about.md/status?include=text,results");
  const stale = unit.segments.find((s) => s.key === editedKey);
  assert.equal(stale.text, "We started in 2019.");
  for (const lang of LANGS) {
    assert.equal(stale.states[lang], "stale");
    assert.ok(stale.results[lang].text.length > 0, JSON.stringify(stale.results));
  }

  const run = await transync(["sync", "--json"]);
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.json.translate.jobs.length, 1);
  const job = await api("GET", `/v1/jobs/${run.json.translate.jobs[0].id}`);
  assert.equal(job.estimated_segments, 2 * LANGS.length);
  assert.equal(job.characters, LANGS.length * ([...inserted].length + [..."We started in 2019."].length));
  assert.deepEqual(run.json.pull.written.map((w) => w.path).sort(), ["content/de/about.md", "content/de/index.md", "content/fr/about.md", "content/fr/index.md"]);
  for (const l of (await api("GET", "/v1/status")).languages) assert.deepEqual([l.missing, l.stale], [0, 0]);
});

test("approve and reject in fresh processes find the results through the service", async () => {
  const approve = await transync(["approve", "content/guide/install.md", "--lang", "de", "--json"]);
  assert.equal(approve.code, 0, approve.stderr);
  // title, description, heading, paragraph, two list items, last paragraph.
  assert.equal(approve.json.updated, 7);
  assert.deepEqual(approve.json.ignored, []);
  const unit = await api("GET", "/v1/units/content:guide:install.md/status");
  for (const s of unit.segments) assert.equal(s.states.de, "ok");

  // With the editor's version of the file: the changed block is sent as the approved text.
  const draft = readFileSync(join(folder, "content/de/blog/first.md"), "utf8");
  const edited = draft.replace(/\n\n([^\n]+)\n$/, "\n\nMehr folgt bald.\n");
  assert.notEqual(edited, draft);
  writeFileSync(join(folder, "edited.md"), edited);
  const withText = await transync(["approve", "content/blog/first.md", "--lang", "de", "--text-from", "edited.md", "--json"]);
  assert.equal(withText.code, 0, withText.stderr);
  assert.equal(withText.json.updated, 3);
  assert.equal(withText.json.edited, 1);
  const first = await api("GET", "/v1/units/content:blog:first.md/status?include=text,results");
  assert.ok(first.segments.some((s) => s.results.de.text === "Mehr folgt bald." && s.results.de.origin === "human"));

  const reject = await transync(["reject", "content/about.md", "--lang", "fr", "--json"]);
  assert.equal(reject.code, 0, reject.stderr);
  assert.equal(reject.json.updated, 3);
  const about = await api("GET", "/v1/units/content:about.md/status");
  for (const s of about.segments) assert.equal(s.states.fr, "missing");
});

test("a job over the plan's volume needs --yes: exit 3 with the estimate, then it runs", async () => {
  await admin("PUT", `/admin/v1/organizations/${orgId}/subscription`, { plan: "pro", status: "active", site_ids: [siteId], included_characters: 1 });
  const asked = await transync(["translate", "--json"]);
  assert.equal(asked.code, 3, asked.stderr);
  assert.equal(asked.json.needs_confirmation, true);
  assert.ok(asked.json.estimate.cost.requires_confirmation);
  const confirmed = await transync(["sync", "--yes", "--json"]);
  assert.equal(confirmed.code, 0, confirmed.stderr);
  assert.equal(confirmed.json.translate.jobs.length, 1);
});
