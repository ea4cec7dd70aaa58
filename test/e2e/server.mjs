/**
 * A throw-away `wrangler dev --local` for the browser tests and the connectors' tests: a fresh
 * persist directory with the D1 migrations applied, its own vars (no `.dev.vars` of the
 * developer's is read), a free port on 127.0.0.1. `stop()` kills wrangler and its workerd
 * children and removes the directory. Beside it, what the connectors' harnesses share: a JSON
 * call, a poll, and a service with one site and its key (`startSiteService`).
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT, wrangler, wranglerBin, wranglerNode } from "../../scripts/seed.mjs";

export const ADMIN_TOKEN = "e2e-admin-token-0123456789abcdef0123456789";

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

/** `vars`: extra vars for this server (the billing test's Stripe secrets and STRIPE_API_BASE). */
export async function startServer(vars = {}) {
  const dir = mkdtempSync(join(tmpdir(), "transync-e2e-"));
  const envFile = join(dir, "e2e.vars");
  // DASHBOARD_URL is deliberately unset: links must point at this server's own /dashboard.
  // As .dev.vars.example: mails kept in the local outbox, self-serve sign-up open, webhooks to 127.0.0.1 allowed
  // (the webhook test's receiver listens there over plain http).
  const extra = Object.entries({ DEV_MAILBOX: "true", SIGNUP: "open", WEBHOOK_ALLOW_LOOPBACK: "true", ...vars })
    .map(([k, v]) => `${k}=${v}\n`)
    .join("");
  writeFileSync(envFile, `ADMIN_TOKEN=${ADMIN_TOKEN}\nJOB_ALARM_DELAY_MS=0\n${extra}`);
  const persist = join(dir, "state");
  const migrate = await wrangler(["d1", "migrations", "apply", "DB", "--local", "--persist-to", persist], { capture: true });
  if (migrate.code !== 0) throw new Error(`migrations failed: ${migrate.stderr || migrate.stdout}`);

  const port = await freePort();
  // Its own inspector port too: the default (9229) may be taken by another wrangler on the machine.
  const inspectorPort = await freePort();
  const child = spawn(
    wranglerNode(),
    [
      wranglerBin(),
      "dev",
      "--local",
      "--ip",
      "127.0.0.1",
      "--port",
      String(port),
      "--inspector-port",
      String(inspectorPort),
      "--persist-to",
      persist,
      "--env-file",
      envFile,
      "--show-interactive-dev-session=false",
      "--log-level",
      "warn",
    ],
    { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"], detached: true, env: { ...process.env, CLOUDFLARE_CF_FETCH_ENABLED: "false", WRANGLER_SEND_METRICS: "false", CI: "true" } },
  );
  let log = "";
  child.stdout.on("data", (d) => (log += d));
  child.stderr.on("data", (d) => (log += d));

  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      try {
        process.kill(-child.pid, "SIGTERM"); // the whole group: wrangler and workerd
      } catch {}
      await new Promise((r) => {
        const t = setTimeout(() => {
          try {
            process.kill(-child.pid, "SIGKILL");
          } catch {}
          r();
        }, 5_000);
        child.once("exit", () => {
          clearTimeout(t);
          r();
        });
      });
    }
    rmSync(dir, { recursive: true, force: true });
  };

  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) {
      await stop();
      throw new Error(`wrangler dev exited early:\n${log}`);
    }
    try {
      const res = await fetch(`${base}/v1/health`, { signal: AbortSignal.timeout(5_000) });
      if (res.ok) break;
    } catch {}
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`wrangler dev did not answer within 120 s:\n${log}`);
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  return { base, stop, log: () => log };
}

/** A JSON call: `{status, json, text, headers}`; `expect` throws on another status. `body` as a string is sent as it is. */
export async function call(base, method, path, { token, basic, body, expect, headers = {} } = {}) {
  const res = await fetch(base + path, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(basic ? { authorization: `Basic ${Buffer.from(basic).toString("base64")}` } : {}),
      ...(body !== undefined ? { "content-type": "application/json" } : {}),
      ...headers,
    },
    body: body !== undefined ? (typeof body === "string" ? body : JSON.stringify(body)) : undefined,
  });
  const text = await res.text();
  let json = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {}
  if (expect !== undefined && res.status !== expect) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 2000)}`);
  return { status: res.status, json, text, headers: res.headers };
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
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what} (last: ${last instanceof Error ? last.message : JSON.stringify(last)?.slice(0, 1000)})`);
    await new Promise((r) => setTimeout(r, 300));
  }
}

/**
 * The service with one organization ("<cms> Press"), a `pro` subscription and a site (en → de, fr
 * on the pseudo engine), and a key named for the CMS: what a connector's tests start from.
 */
export async function startSiteService(cms) {
  const server = await startServer();
  const admin = async (method, path, body) => (await call(server.base, method, path, { token: ADMIN_TOKEN, body })).json;
  const org = await admin("POST", "/admin/v1/organizations", { name: `${cms} Press` });
  const site = await admin("POST", "/admin/v1/sites", {
    organization_id: org.id,
    name: `${cms} site`,
    source_language: "en",
    target_languages: ["de", "fr"].map((code) => ({ code, engine: "pseudo" })),
  });
  await admin("PUT", `/admin/v1/organizations/${org.id}/subscription`, { plan: "pro", status: "active", site_ids: [site.id] });
  const { key } = await admin("POST", `/admin/v1/sites/${site.id}/keys`, { name: cms.toLowerCase() });
  return { ...server, key, siteId: site.id, admin, api: (method, path, body) => call(server.base, method, path, { token: key, body }) };
}
