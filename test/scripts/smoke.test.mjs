/**
 * scripts/smoke.mjs pinned to a version of a gradual deployment (`--version <worker>=<id>`): every
 * request carries `Cloudflare-Workers-Version-Overrides: <worker>="<id>"` (a Dictionary Structured
 * Header whose value is a String, as Cloudflare's "Version overrides" page gives it), and the deep
 * health must name the pinned version. Against a small fake of the API (node:http on a free port).
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { createServer } from "node:http";
import { join } from "node:path";
import { after, before, beforeEach, describe, it } from "node:test";

const SMOKE = join(import.meta.dirname, "../../scripts/smoke.mjs");
const VERSION = "00000002-1111-4222-8333-444455556666";
let server;
let base;
let seen = [];
let answering = VERSION;

const ROUTES = {
  "GET /v1/health": [200, { status: "ok", api_version: "1" }],
  "GET /v1/site": [200, { id: 1, source_language: "en", target_languages: [{ code: "de", engine: "pseudo" }] }],
  "POST /v1/handshake": [200, { target_languages: [{ code: "de", writable: true }] }],
  "PUT /v1/units": [200, { added: 1 }],
  "POST /v1/jobs": [202, { id: 5, status: "succeeded" }],
  "GET /v1/results": [200, { results: [{ id: "r_1", language: "de" }] }],
  "POST /v1/results/ack": [200, { acknowledged: 1 }],
};

before(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      const path = req.url.split("?")[0];
      seen.push({ method: req.method, path, override: req.headers["cloudflare-workers-version-overrides"] });
      let [status, body] = ROUTES[`${req.method} ${path}`] ?? [404, { detail: "no" }];
      if (req.method === "DELETE") [status, body] = [204, null];
      if (path === "/admin/v1/health") [status, body] = [200, { d1: "ok", site_object: "ok", version: { id: answering, tag: null } }];
      res.writeHead(status, { "content-type": "application/json" });
      res.end(body === null ? "" : JSON.stringify(body));
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${server.address().port}`;
});
after(() => server.close());
beforeEach(() => {
  seen = [];
  answering = VERSION;
});

const smoke = (...args) =>
  new Promise((resolve) =>
    execFile(process.execPath, [SMOKE, ...args], { env: { ...process.env, TRANSYNC_KEY: "tsk_smoke", ADMIN_TOKEN: "admin-token" } }, (err, stdout, stderr) =>
      resolve({ code: err ? err.code : 0, stdout, stderr }),
    ),
  );

describe("the smoke test pinned to a version", () => {
  it("sends the override on every request, and checks the pinned version answered", async () => {
    const res = await smoke(base, "--version", `transync=${VERSION}`);
    assert.equal(res.code, 0, res.stderr);
    assert.ok(seen.length >= 9);
    for (const r of seen) assert.equal(r.override, `transync="${VERSION}"`, `${r.method} ${r.path}`);
    assert.match(res.stdout, new RegExp(`deep health \\(.*version ${VERSION}\\)`));
  });

  it("fails when another version answered (the override was not applied)", async () => {
    answering = "00000001-1111-4222-8333-444455556666";
    const res = await smoke(base, "--version", `transync=${VERSION}`);
    assert.equal(res.code, 1);
    assert.match(res.stderr, /the version override was not applied: "00000001-1111-4222-8333-444455556666" answered/);
    // The clean-up still ran.
    assert.equal(seen.at(-1).method, "DELETE");
  });

  it("unpinned: no override header; a malformed --version is a usage error", async () => {
    assert.equal((await smoke(base)).code, 0);
    assert.ok(seen.every((r) => r.override === undefined));
    assert.equal((await smoke(base, "--version", "Transync=abc")).code, 2);
  });
});
