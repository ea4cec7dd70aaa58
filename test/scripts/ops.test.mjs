/**
 * scripts/ops.mjs, the on-call commands of docs/runbook.md, against a recording fake of the admin
 * API (node:http on a free port): each command sends the documented request, and `restore` always
 * shows its dry run first and restores only with --yes.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { createServer } from "node:http";
import { join } from "node:path";
import { after, before, beforeEach, describe, it } from "node:test";

const OPS = join(import.meta.dirname, "../../scripts/ops.mjs");
const TOKEN = "ops-test-token-0123456789abcdefghijklmnop";

let server;
let base;
/** Requests the fake received: method, path, body (parsed), authorization. */
let seen = [];
/** The fake's answers, by "METHOD path" (the path with its query). */
let answers = {};

before(async () => {
  server = createServer((req, res) => {
    let text = "";
    req.on("data", (c) => (text += c));
    req.on("end", () => {
      seen.push({ method: req.method, path: req.url, body: text ? JSON.parse(text) : undefined, auth: req.headers.authorization, type: req.headers["content-type"] });
      const [status, body] = answers[`${req.method} ${req.url}`] ?? [200, {}];
      res.writeHead(status, { "content-type": "application/json", "x-request-id": "req-1" });
      res.end(JSON.stringify(body));
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${server.address().port}`;
});
after(() => server.close());
beforeEach(() => {
  seen = [];
  answers = {};
});

function ops(...args) {
  return new Promise((resolve) => {
    execFile(process.execPath, [OPS, ...args], { env: { ...process.env, TRANSYNC_URL: base, ADMIN_TOKEN: TOKEN } }, (err, stdout, stderr) =>
      resolve({ code: err ? err.code : 0, stdout, stderr }),
    );
  });
}

describe("ops", () => {
  it("key: the whole key, or its 10-character prefix as log lines show it", async () => {
    await ops("key", "tsk_Zk3q9v");
    await ops("key", "tsk_Zk3q9vJ0bYp2XwR7mN5sT1aL8cD4eF6gH2jK4l");
    assert.deepEqual(
      seen.map((r) => [r.method, r.path, r.body, r.auth]),
      [
        ["POST", "/admin/v1/keys/lookup", { prefix: "tsk_Zk3q9v" }, `Bearer ${TOKEN}`],
        ["POST", "/admin/v1/keys/lookup", { key: "tsk_Zk3q9vJ0bYp2XwR7mN5sT1aL8cD4eF6gH2jK4l" }, `Bearer ${TOKEN}`],
      ],
    );
  });

  it("cancel: with a reason (the words after the ids), or none", async () => {
    await ops("cancel", "42", "7", "Cancelled by support:", "a runaway job.");
    await ops("cancel", "42", "8");
    assert.deepEqual(seen[0], {
      method: "POST",
      path: "/admin/v1/sites/42/jobs/7/cancel",
      body: { reason: "Cancelled by support: a runaway job." },
      auth: `Bearer ${TOKEN}`,
      type: "application/json",
    });
    assert.equal(seen[1].path, "/admin/v1/sites/42/jobs/8/cancel");
    assert.equal(seen[1].body, undefined);
    assert.equal(seen[1].type, undefined);
  });

  it("webhook, redeliver and dead-letters (--redeliver sends each one again)", async () => {
    answers["GET /admin/v1/webhook/dead-letters?site_id=42"] = [
      200,
      {
        dead_letters: [
          { id: "msg_a", site_id: 42 },
          { id: "msg_b", site_id: 42 },
        ],
      },
    ];
    answers["POST /admin/v1/sites/42/webhook/deliveries/msg_a/redeliver"] = [202, { id: "msg_a" }];
    answers["POST /admin/v1/sites/42/webhook/deliveries/msg_b/redeliver"] = [202, { id: "msg_b" }];
    await ops("webhook", "42", "failed");
    await ops("redeliver", "42", "msg_a");
    const all = await ops("dead-letters", "42", "--redeliver");
    assert.deepEqual(
      seen.map((r) => `${r.method} ${r.path}`),
      [
        "GET /admin/v1/sites/42/webhook/deliveries?status=failed",
        "POST /admin/v1/sites/42/webhook/deliveries/msg_a/redeliver",
        "GET /admin/v1/webhook/dead-letters?site_id=42",
        "POST /admin/v1/sites/42/webhook/deliveries/msg_a/redeliver",
        "POST /admin/v1/sites/42/webhook/deliveries/msg_b/redeliver",
      ],
    );
    assert.deepEqual(JSON.parse(all.stdout), { redelivered: ["msg_a", "msg_b"] });
    seen = [];
    await ops("dead-letters");
    assert.deepEqual(
      seen.map((r) => r.path),
      ["/admin/v1/webhook/dead-letters"],
    );
  });

  it("credit: month, characters and the reason", async () => {
    answers["POST /admin/v1/organizations/3/credits"] = [201, { id: 1 }];
    const res = await ops("credit", "3", "2026-11", "1800000", "A runaway job", "on 22 November.");
    assert.equal(res.code, 0);
    assert.deepEqual(seen[0].body, { month: "2026-11", characters: 1_800_000, reason: "A runaway job on 22 November." });
    const bad = await ops("credit", "3", "November", "10", "x");
    assert.equal(bad.code, 2);
    assert.equal(seen.length, 1);
  });

  it("restore: the dry run first; without --yes nothing more; with --yes the restore; a site that cannot be restored stops after the dry run", async () => {
    const preview = { site_id: 42, at: "2027-01-05T10:00:00.000Z", dry_run: true, restorable: true, at_time: { units: 10, jobs: 3, results: 40 }, cancelled_on_restore: [7] };
    answers["POST /admin/v1/sites/42/restore"] = [200, preview];
    const dry = await ops("restore", "42", "2027-01-05T10:00:00Z");
    assert.equal(dry.code, 0);
    assert.deepEqual(
      seen.map((r) => r.body),
      [{ at: "2027-01-05T10:00:00Z", dry_run: true }],
    );
    assert.match(dry.stdout, /"cancelled_on_restore"/);
    assert.match(
      dry.stderr,
      /dry run only: nothing changed\. To restore site 42 to 2027-01-05T10:00:00.000Z, repeat with --yes \(npm run ops -- restore 42 2027-01-05T10:00:00Z --yes\)\./,
    );

    seen = [];
    await ops("restore", "42", "2027-01-05T10:00:00Z", "--yes");
    assert.deepEqual(
      seen.map((r) => r.body),
      [{ at: "2027-01-05T10:00:00Z", dry_run: true }, { at: "2027-01-05T10:00:00Z" }],
    );

    seen = [];
    answers["POST /admin/v1/sites/42/restore"] = [200, { ...preview, restorable: false, bookmark: null, detail: "Point-in-time recovery is not available here" }];
    const cannot = await ops("restore", "42", "2027-01-05T10:00:00Z", "--yes");
    assert.equal(cannot.code, 1);
    assert.equal(seen.length, 1);
    assert.match(cannot.stderr, /cannot be restored here: Point-in-time recovery is not available here/);
  });

  it("an error answer: its status, request id and body on stderr, exit 1", async () => {
    answers["POST /admin/v1/organizations/3/credits"] = [409, { detail: "2026-09 is closed for organization 3" }];
    const res = await ops("credit", "3", "2026-09", "10", "late");
    assert.equal(res.code, 1);
    assert.match(res.stderr, /POST \/admin\/v1\/organizations\/3\/credits → 409 \(request id req-1\)/);
    assert.match(res.stderr, /2026-09 is closed/);
  });
});
