/**
 * The two real things the connector's tests run against: the service (`wrangler dev --local` on
 * a fresh database, test/e2e/server.mjs of the repository, with a site whose languages are de
 * and fr on the pseudo engine and a key for it) and Strapi 5 (test/app booted in this process on
 * a temporary SQLite file, listening on a free port, with a full-access API token).
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { ADMIN_TOKEN, startServer } from "../../../test/e2e/server.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));
export const APP = join(HERE, "app");
// The CommonJS build: the ESM one does a directory import (lodash/fp) Node rejects.
const require = createRequire(import.meta.url);

export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

export async function call(base, method, path, { token, body, expect } = {}) {
  const res = await fetch(base + path, {
    method,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body ? { "content-type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  let json = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {}
  if (expect !== undefined && res.status !== expect) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return { status: res.status, json };
}

/** The service with one organization, subscription and site (en → de, fr on the pseudo engine), and its key. */
export async function startService() {
  const server = await startServer();
  const admin = (method, path, body) => call(server.base, method, path, { token: ADMIN_TOKEN, body }).then((r) => r.json);
  const org = await admin("POST", "/admin/v1/organizations", { name: "Strapi Press" });
  const site = await admin("POST", "/admin/v1/sites", {
    organization_id: org.id,
    name: "Strapi site",
    source_language: "en",
    target_languages: ["de", "fr"].map((code) => ({ code, engine: "pseudo" })),
  });
  await admin("PUT", `/admin/v1/organizations/${org.id}/subscription`, { plan: "pro", status: "active", site_ids: [site.id] });
  const { key } = await admin("POST", `/admin/v1/sites/${site.id}/keys`, { name: "strapi" });
  return { ...server, key, siteId: site.id, admin, api: (method, path, body) => call(server.base, method, path, { token: key, body }) };
}

/**
 * Boots test/app with the plugin, pointed at `service`. `logs` collects what Strapi logs at
 * warn and error level (the tests read the connector's errors there). `dir`: the folder of an
 * earlier boot's database, to start again on it (a restart); `stop({ keep: true })` keeps it.
 */
export async function startStrapi(service, env = {}, { dir } = {}) {
  const tmp = dir ?? mkdtempSync(join(tmpdir(), "transync-strapi-"));
  mkdirSync(join(APP, "public", "uploads"), { recursive: true }); // the upload plugin refuses to start without it
  const port = await freePort();
  Object.assign(process.env, {
    NODE_ENV: "test",
    STRAPI_TELEMETRY_DISABLED: "true",
    STRAPI_DISABLE_UPDATE_NOTIFICATION: "true",
    HOST: "127.0.0.1",
    PORT: String(port),
    APP_KEYS: "test-key-1,test-key-2",
    API_TOKEN_SALT: "test-api-token-salt",
    ADMIN_JWT_SECRET: "test-admin-jwt-secret",
    TRANSFER_TOKEN_SALT: "test-transfer-token-salt",
    JWT_SECRET: "test-jwt-secret",
    ENCRYPTION_KEY: "test-encryption-key-0123456789ab",
    DATABASE_FILENAME: join(tmp, "test.db"),
    TRANSYNC_URL: service.base,
    TRANSYNC_KEY: service.key,
    TRANSYNC_CRON: "*/2 * * * * *",
    TRANSYNC_WEBHOOK_BASE: `http://127.0.0.1:${port}`,
    ...env,
  });
  for (const [name, value] of Object.entries(env)) if (value === undefined) delete process.env[name];
  const { createStrapi } = require("@strapi/strapi");
  const strapi = createStrapi({ appDir: APP, distDir: APP, autoReload: false, serveAdminPanel: false });
  const logs = [];
  for (const level of ["warn", "error"]) {
    const original = strapi.log[level].bind(strapi.log);
    strapi.log[level] = (message, ...rest) => {
      logs.push({ level, message: String(message) });
      return original(message, ...rest);
    };
  }
  try {
    await strapi.load();
  } catch (error) {
    rmSync(tmp, { recursive: true, force: true });
    throw error;
  }
  await new Promise((resolve) => strapi.server.listen(port, "127.0.0.1", resolve));
  const token = (await strapi.service("admin::api-token").create({ name: `connector-test-${Date.now()}`, type: "full-access", kind: "content-api", lifespan: null })).accessKey;
  const base = `http://127.0.0.1:${port}`;
  const stop = async ({ keep = false } = {}) => {
    await strapi.destroy();
    if (!keep) rmSync(tmp, { recursive: true, force: true });
  };
  return { strapi, base, token, logs, stop, dir: tmp, rest: (method, path, body, expect) => call(base, method, path, { token, body, expect }) };
}

/** Polls `probe` until it answers something truthy (answered), or throws after `ms` with `what`. */
export async function waitFor(what, probe, ms = 60_000) {
  const deadline = Date.now() + ms;
  let last;
  for (;;) {
    try {
      last = await probe();
      if (last) return last;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what} (last: ${last instanceof Error ? last.message : JSON.stringify(last)})`);
    await new Promise((r) => setTimeout(r, 300));
  }
}
