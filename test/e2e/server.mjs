/**
 * A throw-away `wrangler dev --local` for the browser tests: a fresh persist directory with
 * the D1 migrations applied, its own vars (no `.dev.vars` of the developer's is read), a free
 * port on 127.0.0.1. `stop()` kills wrangler and its workerd children and removes the directory.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT, wrangler, wranglerBin, wranglerNode } from "../../scripts/seed.mjs";

export const ADMIN_TOKEN = "e2e-admin-token-0123456789abcdef0123456789";

function freePort() {
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
  // WEBHOOK_ALLOW_LOOPBACK: the webhook test's receiver listens on 127.0.0.1 over plain http (as in .dev.vars.example).
  const extra = Object.entries(vars)
    .map(([k, v]) => `${k}=${v}\n`)
    .join("");
  writeFileSync(envFile, `ADMIN_TOKEN=${ADMIN_TOKEN}\nJOB_ALARM_DELAY_MS=0\nWEBHOOK_ALLOW_LOOPBACK=true\n${extra}`);
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
