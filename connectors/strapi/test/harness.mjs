/**
 * The two real things the connector's tests run against: the service (`wrangler dev --local` on
 * a fresh database, test/e2e/server.mjs of the repository, with a site whose languages are de
 * and fr on the pseudo engine and a key for it) and Strapi 5 (test/app booted in this process on
 * a temporary SQLite file, listening on a free port, with a full-access API token).
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { createServer as createHttpServer } from "node:http";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { call, freePort, startSiteService, waitFor } from "../../../test/e2e/server.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));
export const APP = join(HERE, "app");
// The CommonJS build: the ESM one does a directory import (lodash/fp) Node rejects.
const require = createRequire(import.meta.url);

export { call, freePort, waitFor };

/** The service with one site (en → de, fr, pseudo engine) and its key. */
export const startService = () => startSiteService("Strapi");

/**
 * Boots test/app with the plugin, pointed at `service`. `logs` collects what Strapi logs at
 * warn and error level (the tests read the connector's errors there). `dir`: the folder of an
 * earlier boot's database, to start again on it (a restart); `stop({ keep: true })` keeps it.
 * `admin`: serve the admin panel.
 */
export async function startStrapi(service, env = {}, { dir, admin = false } = {}) {
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
    // The cron task never fires during a test (1 January, midnight): the tests run passes themselves (cms.pass, cms.settle).
    TRANSYNC_CRON: "0 0 0 1 1 *",
    // Changes wait 10 minutes for their prompt push unless a test shortens it: a pass runs when a test asks for one.
    TRANSYNC_PUSH_DELAY: "600000",
    TRANSYNC_WEBHOOK_BASE: `http://127.0.0.1:${port}`,
    ...env,
  });
  for (const [name, value] of Object.entries(env)) if (value === undefined) delete process.env[name];
  const { createStrapi } = require("@strapi/strapi");
  // With `admin`, the admin panel built by `npm run build:admin` (test/app/build) is served at /admin.
  process.env.SERVE_ADMIN_PANEL = String(admin);
  const strapi = createStrapi({ appDir: APP, distDir: APP, autoReload: false, serveAdminPanel: admin });
  const logs = [];
  for (const level of ["info", "warn", "error"]) {
    const original = strapi.log[level].bind(strapi.log);
    strapi.log[level] = (message, ...rest) => {
      if (level !== "info" || String(message).startsWith("transync:")) logs.push({ level, message: String(message) });
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
  const sync = () => strapi.plugin("transync").service("sync");
  const cms = {
    strapi,
    base,
    token,
    logs,
    stop,
    dir: tmp,
    sync,
    rest: (method, path, body, expect) => call(base, method, path, { token, body, expect }),
    /** One scheduled pass (handshake, back-fill, push, job, pull, reviews), as the cron task runs it. */
    pass: () => sync().run("scheduled"),
    /** Passes until nothing is left to do: no task due, no job queued or running at the service, no result waiting. */
    async settle(ms = 60_000) {
      const deadline = Date.now() + ms;
      for (;;) {
        await cms.pass();
        const due = await sync().store.due(["push", "delete", "review"]);
        const active = (await service.api("GET", "/v1/jobs?active=true")).json;
        const results = (await service.api("GET", "/v1/results?limit=1")).json;
        if (!due.length && Array.isArray(active) && !active.length && results?.results?.length === 0) return;
        if (Date.now() > deadline) throw new Error(`not settled: ${due.length} tasks due, ${JSON.stringify(active)?.slice(0, 200)} active jobs`);
        await new Promise((r) => setTimeout(r, 150));
      }
    },
    /** An admin of the panel with `role` ("super", "editor", "author", or a role id), signed in: its JWT. */
    async adminUser(role = "super", email = `admin-${role}-${Date.now()}@example.com`) {
      const roles = strapi.service("admin::role");
      const roleId = role === "super" ? (await roles.getSuperAdmin()).id : typeof role === "number" ? role : (await roles.findOne({ code: `strapi-${role}` })).id;
      const password = "Correct-Horse-9";
      await strapi.service("admin::user").create({ email, firstname: "Anna", lastname: role === "super" ? "Admin" : "Editor", password, isActive: true, roles: [roleId] });
      const { status, json } = await call(base, "POST", "/admin/login", { body: { email, password } });
      if (status !== 200) throw new Error(`admin login: ${status} ${JSON.stringify(json)}`);
      return { email, password, jwt: json.data.token };
    },
    /** A role with only these admin permissions (actions, each on no subject or [action, subject]). */
    async role(name, actions) {
      const role = await strapi.service("admin::role").create({ name, description: name });
      await strapi.service("admin::role").assignPermissions(
        role.id,
        actions.map((a) =>
          Array.isArray(a) ? { action: a[0], subject: a[1], properties: a[2] ?? {}, conditions: [] } : { action: a, subject: null, properties: {}, conditions: [] },
        ),
      );
      return role.id;
    },
    /** A call to the admin panel's API (/transync/…) with an admin's JWT. */
    admin: (jwt, method, path, body) => call(base, method, path, { token: jwt, body }),
  };
  return cms;
}

/**
 * A proxy in front of the service that can hold one request: `hold(method, path)` answers, once
 * such a request arrives, its body and `release`, which lets it through. The request is held
 * before the service sees it.
 */
export async function startGate(target) {
  let waiting = null;
  const server = createHttpServer(async (req, res) => {
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    const body = Buffer.concat(chunks);
    if (waiting && req.method === waiting.method && req.url.split("?")[0] === waiting.path) {
      const w = waiting;
      waiting = null;
      await new Promise((release) => w.arrived({ release, body: body.toString() }));
    }
    const headers = Object.fromEntries(Object.entries(req.headers).filter(([k]) => !["host", "connection", "content-length"].includes(k)));
    const upstream = await fetch(target + req.url, { method: req.method, headers, body: body.length ? body : undefined });
    const out = Object.fromEntries([...upstream.headers].filter(([k]) => !["content-encoding", "content-length", "transfer-encoding", "connection"].includes(k)));
    res.writeHead(upstream.status, out);
    res.end(Buffer.from(await upstream.arrayBuffer()));
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    hold: (method, path) => new Promise((arrived) => (waiting = { method, path, arrived })),
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}
