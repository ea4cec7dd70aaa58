/**
 * scripts/rollout.mjs (the deploy workflow's rollout, docs/ops/deploy.md) against a fake `wrangler`
 * first on PATH (test/scripts/fake-bin/wrangler, speaking wrangler 4's output shapes), a fake smoke
 * test, and a fake Analytics Engine SQL API (node:http on a free port): the split names both
 * versions, the smoke test is pinned to the new one, the watch reads both versions' 5xx rates, a
 * failed check goes back, a refused upload stops (never a full deploy), a split left half-way
 * stops, and a deploy always names its environment.
 */
import assert from "node:assert/strict";
import { execFile, execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { after, before, beforeEach, describe, it } from "node:test";

const ROOT = join(import.meta.dirname, "../..");
const FAKE_BIN = join(import.meta.dirname, "fake-bin");
const OLD = "00000001-1111-4222-8333-444455556666";
const NEW = "00000002-1111-4222-8333-444455556666";

let dir;
let analytics;
let base;
/** What the fake Analytics Engine answers: version → [requests, errors]; and the queries it got. */
let rates = {};
let queries = [];

before(async () => {
  analytics = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      queries.push({ path: req.url, auth: req.headers.authorization, body });
      // The SQL API's JSON format: {meta, data, rows}; 64-bit sums come as strings.
      const data = Object.entries(rates).map(([version, [requests, errors]]) => ({ version, requests: String(requests), errors: String(errors) }));
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          meta: [
            { name: "version", type: "String" },
            { name: "requests", type: "UInt64" },
            { name: "errors", type: "UInt64" },
          ],
          data,
          rows: data.length,
        }),
      );
    });
  });
  await new Promise((resolve) => analytics.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${analytics.address().port}/client/v4`;
});
after(() => analytics.close());
beforeEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = mkdtempSync(join(tmpdir(), "rollout-test-"));
  rates = {};
  queries = [];
  state({ deployment: [{ version_id: OLD, percentage: 100 }], versions: [OLD] });
});

const state = (value) => writeFileSync(join(dir, "state.json"), JSON.stringify(value));
const deployment = () => JSON.parse(readFileSync(join(dir, "state.json"), "utf8")).deployment;
const lines = (file) => {
  try {
    return readFileSync(join(dir, file), "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l));
  } catch {
    return [];
  }
};
const calls = () => lines("wrangler.log").map((c) => c.args.join(" "));

function rollout(args, env = {}) {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [join(ROOT, "scripts/rollout.mjs"), ...args],
      {
        cwd: ROOT,
        env: {
          PATH: `${FAKE_BIN}${delimiter}${process.env.PATH}`,
          FAKE_WRANGLER_STATE: join(dir, "state.json"),
          FAKE_WRANGLER_LOG: join(dir, "wrangler.log"),
          SMOKE_SCRIPT: join(import.meta.dirname, "fake-smoke.mjs"),
          FAKE_SMOKE_LOG: join(dir, "smoke.log"),
          CLOUDFLARE_API_BASE_URL: base,
          CLOUDFLARE_ACCOUNT_ID: "acct123",
          CLOUDFLARE_API_TOKEN: "cf-token",
          GITHUB_OUTPUT: join(dir, "github-output"),
          ...env,
        },
      },
      (err, stdout, stderr) => resolve({ code: err ? err.code : 0, stdout, stderr }),
    );
  });
}

const PROD = ["--env", "production", "--url", "https://api.transync.example", "--tag", "abc1234", "--watch", "0.3", "--interval", "0.1"];

describe("the fake wrangler speaks wrangler 4's rule", () => {
  it("refuses a split whose shares do not add up to 100 (the old workflow's `<new>@10%` alone)", () => {
    state({ deployment: [{ version_id: OLD, percentage: 100 }], versions: [OLD, NEW] });
    const env = { ...process.env, FAKE_WRANGLER_STATE: join(dir, "state.json"), FAKE_WRANGLER_LOG: join(dir, "wrangler.log") };
    assert.throws(
      () => execFileSync(join(FAKE_BIN, "wrangler"), ["versions", "deploy", `${NEW}@10%`, "--env", "production", "-y"], { env, stdio: "pipe" }),
      (err) => {
        assert.match(String(err.stderr), /add up to 10%, but must total exactly 100%/);
        return true;
      },
    );
  });
});

describe("the rollout", () => {
  it("uploads, splits 10/90 naming both versions, smoke-tests the new one pinned, watches both error rates, then 100 %", async () => {
    rates = { [NEW]: [1_000, 2], [OLD]: [9_000, 9] };
    const res = await rollout(PROD);
    assert.equal(res.code, 0, res.stderr);
    assert.deepEqual(calls(), [
      "deployments status --env production --json",
      "versions upload --env production --tag abc1234",
      `versions deploy ${NEW}@10% ${OLD}@90% --env production --message rollout abc1234: 10 % -y`,
      `versions deploy ${NEW}@100% --env production --message rollout abc1234: 100 % -y`,
    ]);
    assert.deepEqual(deployment(), [{ version_id: NEW, percentage: 100 }]);
    // The smoke test ran against the split, pinned to the new version (the worker's name in wrangler.toml's [env.production]).
    assert.deepEqual(lines("smoke.log"), [["https://api.transync.example", "--version", `transync=${NEW}`]]);
    // The watch asked the environment's dataset about both versions' http.request points, with the token.
    assert.ok(queries.length >= 1);
    assert.equal(queries[0].path, "/client/v4/accounts/acct123/analytics_engine/sql");
    assert.equal(queries[0].auth, "Bearer cf-token");
    assert.match(queries[0].body, /FROM transync_production/);
    assert.match(queries[0].body, new RegExp(`blob1 = 'http.request' AND blob5 IN \\('${NEW}', '${OLD}'\\)`));
    assert.match(res.stdout, /new 2\/1000 \(0\.20 %\), current 9\/9000 \(0\.10 %\)/);
    assert.equal(readFileSync(join(dir, "github-output"), "utf8"), `version=${NEW}\nprevious=${OLD}\n`);
  });

  it("goes back to the current version when the pinned smoke test fails", async () => {
    const res = await rollout(PROD, { FAKE_SMOKE_EXIT: "1" });
    assert.equal(res.code, 1);
    assert.match(res.stderr, new RegExp(`rolled back to ${OLD}: the smoke test pinned to the new version failed`));
    assert.deepEqual(calls().slice(2), [
      `versions deploy ${NEW}@10% ${OLD}@90% --env production --message rollout abc1234: 10 % -y`,
      `versions deploy ${OLD}@100% --env production --message rollback: the smoke test pinned to the new version failed -y`,
    ]);
    assert.deepEqual(deployment(), [{ version_id: OLD, percentage: 100 }]);
    assert.equal(queries.length, 0);
  });

  it("goes back when the new version's 5xx rate passes the limit and twice the current one's", async () => {
    rates = { [NEW]: [400, 40], [OLD]: [3_600, 4] };
    const res = await rollout(PROD);
    assert.equal(res.code, 1);
    assert.match(res.stderr, /rolled back to .*: the new version's 5xx rate is 10\.00 % over 400 requests \(the current version's: 0\.11 %\)/);
    assert.ok(!calls().includes(`versions deploy ${NEW}@100% --env production --message rollout abc1234: 100 % -y`));
    assert.deepEqual(deployment(), [{ version_id: OLD, percentage: 100 }]);
  });

  it("goes on when both versions fail alike (an outage going back would not fix), and when too few requests reached the new one", async () => {
    rates = { [NEW]: [400, 40], [OLD]: [3_600, 400] };
    assert.equal((await rollout(PROD)).code, 0);
    beforeEachReset();
    rates = { [NEW]: [10, 5], [OLD]: [90, 0] };
    const quiet = await rollout(PROD);
    assert.equal(quiet.code, 0, quiet.stderr);
    assert.match(quiet.stdout, /only 10 requests reached the new version while watching \(fewer than 50\)/);
    assert.deepEqual(deployment(), [{ version_id: NEW, percentage: 100 }]);
  });

  it("goes back when the step to 100 % fails", async () => {
    state({ deployment: [{ version_id: OLD, percentage: 100 }], versions: [OLD], fail_deploy: `${NEW}@100%` });
    rates = { [NEW]: [1_000, 0], [OLD]: [9_000, 0] };
    const res = await rollout(PROD);
    assert.equal(res.code, 1);
    assert.match(res.stderr, /rolled back to /);
    assert.deepEqual(deployment(), [{ version_id: OLD, percentage: 100 }]);
  });

  it("a refused upload stops and says why; a pending Durable Object migration names its own path (exit 3); never a full deploy", async () => {
    state({ deployment: [{ version_id: OLD, percentage: 100 }], versions: [OLD], refuse_upload: "migration" });
    const migration = await rollout(PROD);
    assert.equal(migration.code, 3);
    assert.match(migration.stderr, /pending Durable Object migration/);
    assert.match(migration.stderr, /nothing was deployed\. Take the migration path in a quiet hour \(docs\/ops\/deploy\.md "A release with a Durable Object migration"\)/);
    assert.deepEqual(calls(), ["deployments status --env production --json", "versions upload --env production --tag abc1234"]);
    assert.deepEqual(deployment(), [{ version_id: OLD, percentage: 100 }]);

    beforeEachReset();
    state({ deployment: [{ version_id: OLD, percentage: 100 }], versions: [OLD], refuse_upload: "other" });
    const other = await rollout(PROD);
    assert.equal(other.code, 1);
    assert.match(other.stderr, /versions upload failed \(nothing was deployed\): A request to the Cloudflare API .* Authentication error/);
    assert.ok(!calls().some((c) => c.startsWith("deploy ")));
    assert.ok(!calls().some((c) => c.startsWith("versions deploy")));
  });

  it("stops before uploading when a split is already under way, or the Worker was never deployed", async () => {
    state({
      deployment: [
        { version_id: OLD, percentage: 60 },
        { version_id: NEW, percentage: 40 },
      ],
      versions: [OLD, NEW],
    });
    const split = await rollout(PROD);
    assert.equal(split.code, 1);
    assert.match(split.stderr, new RegExp(`transync is split between versions \\(${OLD}@60% ${NEW}@40%\\)`));
    assert.deepEqual(calls(), ["deployments status --env production --json"]);

    beforeEachReset();
    state({ deployment: [], versions: [] });
    const first = await rollout(PROD);
    assert.equal(first.code, 3);
    assert.match(first.stderr, /has no deployment yet: .* npm run deploy -- --env production --durable-object-migration/);
  });

  it("the migration path: a plain deploy of the environment, then the smoke test unpinned", async () => {
    const res = await rollout(["--env", "staging", "--url", "https://api.staging.transync.example", "--durable-object-migration"]);
    assert.equal(res.code, 0, res.stderr);
    assert.deepEqual(calls(), ["deploy --env staging"]);
    assert.deepEqual(lines("smoke.log"), [["https://api.staging.transync.example"]]);
  });

  it("a deploy names its environment: none, or one wrangler.toml does not have, is a usage error; the watch needs its credentials before anything changes", async () => {
    const none = await rollout([]);
    assert.equal(none.code, 2);
    assert.match(none.stderr, /--env is required/);
    const unknown = await rollout(["--env", "prod"]);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /wrangler\.toml has no \[env\.prod\] \(it has staging, production\)/);
    const blind = await rollout(PROD, { CLOUDFLARE_ACCOUNT_ID: "" });
    assert.equal(blind.code, 1);
    assert.match(blind.stderr, /the watch needs CLOUDFLARE_ACCOUNT_ID/);
    assert.deepEqual(calls(), []);
    // package.json's deploy goes through the rollout, which refuses to run without --env.
    assert.equal(JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).scripts.deploy, "node scripts/rollout.mjs");
  });
});

/** A fresh state within one test (the beforeEach hook's work). */
function beforeEachReset() {
  rmSync(join(dir, "wrangler.log"), { force: true });
  rmSync(join(dir, "smoke.log"), { force: true });
  queries = [];
  state({ deployment: [{ version_id: OLD, percentage: 100 }], versions: [OLD] });
}
