/**
 * @transync/client as a connector author gets it: `npm pack` on client/ (its prepack builds
 * dist/), the tarball installed into a fresh project outside this repository, then a consumer
 * file type-checked with `moduleResolution` `nodenext` and `bundler`, `skipLibCheck` off, and
 * imported at run time. A file with a deliberate type error must fail the check, so the types
 * cannot have silently become `any`.
 *
 * Run by `npm run test:package` (CI: .ci/run). Needs npm's cache or the registry for the
 * package's two dependencies (`--prefer-offline`).
 */
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "../..");
const TSC = join(ROOT, "node_modules/typescript/bin/tsc");
const npm = (args, cwd) => execFileSync("npm", [...args, "--no-audit", "--no-fund", "--loglevel=error"], { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });

/** What a connector writes: every helper and the types it needs. */
const CONSUMER = `
import { ack, createTransyncClient, editorReviews, isAdapter, pendingResults, previousSegments, pushUnits, review, runJob, splitMarkdown, translatedDocument, TransyncError, unitStatusWithTexts, verifyWebhook, type Adapter, type Schemas, type WebhookEvent } from "@transync/client";

const api = createTransyncClient({ baseUrl: "http://127.0.0.1:8787", key: "tsk_example" });
const units: Schemas["UnitSnapshotIn"][] = [{ external_key: "page:1", adapter: "wordpress", segments: [{ key: "title", text: "Hello" }] }];

export async function sync(): Promise<number> {
  const pushed = await pushUnits(api, units, { onProgress: ({ done, total }) => console.log(done, total) });
  for (const failure of pushed.failed) console.warn(failure.external_key, failure.error);
  try {
    const job: Schemas["JobOut"] = await runJob(api, { type: "delta" }, { confirm: (estimate) => estimate.overage_cents < 100 });
    console.log(job.status, job.done_segments);
  } catch (error) {
    if (error instanceof TransyncError && error.code === "confirmation_required") console.log(error.estimate?.characters, error.detail, error.status);
    else throw error;
  }
  let acknowledged = 0;
  for await (const page of pendingResults(api, { unit: "page:1" })) {
    const ids: string[] = page.map((result) => result.id);
    acknowledged += await ack(api, ids);
  }
  const decided = await review(api, [{ id: "1", outcome: "approved", text: "Hallo" }]);
  const health = await api.GET("/v1/health");
  return acknowledged + decided.updated + decided.ignored.length + (health.data?.api_version.length ?? 0);
}

/** A whole-file connector: keys lined up with the service's segments, a translated file rebuilt whole. */
export async function wholeFile(source: string): Promise<string | null> {
  const { data: site } = await api.GET("/v1/site");
  const adapter: Adapter | undefined = site?.enabled_adapters.find(isAdapter);
  if (!adapter) return null;
  const previous = await previousSegments(api, ["docs:intro.md"]);
  await pushUnits(api, [{ external_key: "docs:intro.md", adapter, segments: splitMarkdown(source, { previous: previous.get("docs:intro.md") }).segments }]);
  const status = await unitStatusWithTexts(api, "docs:intro.md");
  await review(api, editorReviews(status, "de", { outcome: "approved", edited: splitMarkdown(source) }));
  const { document, complete, unacknowledged } = await translatedDocument(api, "docs:intro.md", "de", source, { draft: true });
  if (complete) await ack(api, unacknowledged);
  return complete ? document : null;
}

export function receive(secret: string, headers: Headers, body: string): WebhookEvent["type"] {
  return verifyWebhook(secret, headers, body).type;
}
`;

/** Must not compile: a count is not a string, a unit key is not a number, and no such path. */
const WRONG = `
import { ack, createTransyncClient, pushUnits } from "@transync/client";
const api = createTransyncClient({ baseUrl: "http://127.0.0.1:8787" });
export const count: Promise<string> = ack(api, ["1"]);
export const pushed = pushUnits(api, [{ external_key: 42, adapter: "wordpress", segments: [] }]);
export const missing = api.GET("/v1/no-such-path");
`;

const RESOLUTIONS = {
  nodenext: { module: "NodeNext", moduleResolution: "NodeNext" },
  bundler: { module: "ESNext", moduleResolution: "Bundler" },
};

let dir;
before(() => {
  dir = mkdtempSync(join(tmpdir(), "transync-package-"));
  const packed = JSON.parse(npm(["pack", "--json", "--pack-destination", dir], join(ROOT, "client")));
  const tarball = join(dir, packed[0].filename);
  const project = join(dir, "consumer");
  mkdirSync(project);
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "consumer", private: true, type: "module" }));
  npm(["install", "--prefer-offline", "--no-package-lock", tarball], project);
  writeFileSync(join(project, "consumer.ts"), CONSUMER);
  writeFileSync(join(project, "wrong.ts"), WRONG);
  for (const [name, resolution] of Object.entries(RESOLUTIONS)) {
    for (const file of ["consumer", "wrong"]) {
      const compilerOptions = { ...resolution, target: "ES2022", lib: ["ES2022", "DOM", "DOM.Iterable"], types: [], strict: true, skipLibCheck: false, noEmit: true };
      writeFileSync(join(project, `tsconfig.${name}.${file}.json`), JSON.stringify({ compilerOptions, files: [`${file}.ts`] }));
    }
  }
});
after(() => rmSync(dir, { recursive: true, force: true }));

const tsc = (config) => spawnSync(process.execPath, [TSC, "-p", config], { cwd: join(dir, "consumer"), encoding: "utf8" });

describe("the packed @transync/client", () => {
  it("ships the built code, its declarations and the OpenAPI document, not the sources", () => {
    const files = readdirSync(join(dir, "consumer/node_modules/@transync/client"), { recursive: true }).map(String);
    for (const file of ["dist/index.js", "dist/index.d.ts", "dist/helpers.d.ts", "dist/schema.d.ts", "openapi.json", "README.md", "package.json"])
      assert.ok(files.includes(file), `${file} is in the tarball`);
    assert.ok(!files.some((file) => file.startsWith("src/") || file.endsWith("tsconfig.json")), "sources are not shipped");
  });

  for (const name of Object.keys(RESOLUTIONS)) {
    it(`type-checks a consumer with moduleResolution ${name} and skipLibCheck off`, () => {
      const run = tsc(`tsconfig.${name}.consumer.json`);
      assert.equal(run.status, 0, run.stdout + run.stderr);
    });

    it(`refuses a consumer's type errors with moduleResolution ${name} (the types are not any)`, () => {
      const run = tsc(`tsconfig.${name}.wrong.json`);
      assert.notEqual(run.status, 0);
      assert.match(run.stdout, /wrong\.ts\(4,14\): error TS2322/, run.stdout);
      assert.match(run.stdout, /wrong\.ts\(5,\d+\): error TS2322/, run.stdout);
      assert.match(run.stdout, /wrong\.ts\(6,\d+\): error TS2554/, run.stdout);
    });
  }

  it("installs the transync command (the package's bin), which runs", () => {
    const run = spawnSync(process.execPath, [join(dir, "consumer/node_modules/.bin/transync"), "--help"], { cwd: join(dir, "consumer"), encoding: "utf8" });
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /transync/);
    assert.match(run.stdout, /sync/);
  });

  it("runs: the exports load in Node and a helper calls through the given fetch", () => {
    const script = `
      import * as client from "@transync/client";
      const names = ["createTransyncClient", "verifyWebhook", "TransyncError", "pushUnits", "runJob", "pendingResults", "ack", "review"];
      for (const name of names) if (typeof client[name] !== "function") throw new Error(name + " is not exported");
      const fetch = async (request) => new Response(JSON.stringify({ acknowledged: (await request.json()).ids.length }), { headers: { "content-type": "application/json" } });
      const api = client.createTransyncClient({ baseUrl: "http://transync.invalid", key: "tsk_x", fetch });
      console.log(await client.ack(api, ["1", "2"]));
    `;
    const run = spawnSync(process.execPath, ["--input-type=module", "-e", script], { cwd: join(dir, "consumer"), encoding: "utf8" });
    assert.equal(run.status, 0, run.stderr);
    assert.equal(run.stdout.trim(), "2");
  });
});
