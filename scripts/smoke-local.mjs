#!/usr/bin/env node
/**
 * CI's smoke run (.ci/run): a throw-away `wrangler dev --local` (test/e2e/server.mjs, the browser
 * tests' server), a smoke site set up through the admin API (an organization, a subscription,
 * a site with a `pseudo` target language, a key), then scripts/smoke.mjs against it with that
 * key and the admin token; the server is stopped whatever happens. Exit code: the smoke test's.
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { ADMIN_TOKEN, startServer } from "../test/e2e/server.mjs";
import { ROOT } from "./seed.mjs";

const server = await startServer();
let code = 1;
try {
  const admin = async (method, path, body, expected) => {
    const res = await fetch(server.base + path, {
      method,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    const json = await res.json();
    if (res.status !== expected) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  };
  const org = await admin("POST", "/admin/v1/organizations", { name: "Smoke" }, 201);
  const site = await admin(
    "POST",
    "/admin/v1/sites",
    { organization_id: org.id, name: "Smoke site", source_language: "en", target_languages: [{ code: "de", engine: "pseudo" }] },
    201,
  );
  await admin("PUT", `/admin/v1/organizations/${org.id}/subscription`, { plan: "pro", status: "active", site_ids: [site.id] }, 200);
  const { key } = await admin("POST", `/admin/v1/sites/${site.id}/keys`, { name: "smoke" }, 201);
  const child = spawn(process.execPath, [join(ROOT, "scripts", "smoke.mjs"), server.base], {
    stdio: "inherit",
    env: { ...process.env, TRANSYNC_KEY: key, ADMIN_TOKEN },
  });
  code = await new Promise((resolve) => child.once("exit", (c) => resolve(c ?? 1)));
} catch (err) {
  console.error(`smoke set-up failed: ${err.message}\n${server.log()}`);
} finally {
  await server.stop();
}
process.exit(code);
