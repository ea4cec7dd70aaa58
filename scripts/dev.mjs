#!/usr/bin/env node
/**
 * `npm run dev [-- <wrangler dev arguments>]`: the local development contract (README "The two commands").
 *
 * 1. creates `.dev.vars` from `.dev.vars.example` when missing;
 * 2. applies the local D1 migrations (non-interactively);
 * 3. on an empty database seeds the demo organization, subscription, site and API key
 *    (scripts/seed.mjs), and prints the key with a ready-to-paste curl line (again on
 *    later runs, from `.wrangler/demo-key`);
 * 3b. prints a one-click dashboard link for the demo owner: a one-time invitation while the
 *    demo organization has no owner (a fresh database), the sign-in page after; both open
 *    the demo site (scripts/seed.mjs `demoDashboardLink`);
 * 4. runs `wrangler dev --local`: local mode, because the `[ai]` binding otherwise opens a
 *    remote session that needs a Cloudflare token and fails offline.
 *
 * Extra arguments go to `wrangler dev` unchanged (`npm run dev -- --port 8790`). Without
 * `--ip` the server listens on 127.0.0.1 only; without `--port` it takes 8787, or the next
 * free port when 8787 is taken. `--persist-to`, `--config` and `--env` also select the
 * database that is migrated and seeded. With `--remote` nothing local is prepared.
 *
 * wrangler's output is streamed as is (stdio inherited: colours and hotkeys keep working),
 * SIGINT/SIGTERM/SIGHUP are forwarded to it (and it is stopped when this script's parent
 * goes away), and its exit code becomes this script's.
 */
import { spawn } from "node:child_process";
import { createServer } from "node:net";
import { constants } from "node:os";
import {
  bold,
  d1Flags,
  demoDashboardLink,
  dim,
  green,
  prepareLocal,
  printDashboardLink,
  printKey,
  ROOT,
  red,
  SetupError,
  step,
  wranglerBin,
  wranglerNode,
  yellow,
} from "./seed.mjs";

const DEFAULT_PORT = 8787;
const READY_TIMEOUT_MS = 120_000;

/** The value of `--name value` / `--name=value` (first of the aliases found), or undefined. */
function flagValue(args, ...names) {
  for (let i = 0; i < args.length; i++) {
    for (const name of names) {
      if (args[i] === name && i + 1 < args.length) return args[i + 1];
      if (args[i].startsWith(`${name}=`)) return args[i].slice(name.length + 1);
    }
  }
  return undefined;
}

const hasFlag = (args, ...names) => args.some((a) => names.includes(a.split("=")[0]));

function portIsFree(port, host) {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen({ port, host, exclusive: true }, () => server.close(() => resolve(true)));
  });
}

async function choosePort(host) {
  for (let port = DEFAULT_PORT; port < DEFAULT_PORT + 20; port++) if (await portIsFree(port, host)) return port;
  return 0; // let wrangler pick
}

/** Polls /v1/health until the server answers (or wrangler exits, or time runs out). */
async function waitUntilReady(baseUrl, child) {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline && child.exitCode === null && child.signalCode === null) {
    try {
      const res = await fetch(`${baseUrl}/v1/health`, { signal: AbortSignal.timeout(10_000) });
      if (res.ok) return true;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  return false;
}

async function main() {
  const passThrough = process.argv.slice(2);
  const remote = hasFlag(passThrough, "--remote", "-r");
  const devArgs = ["dev", ...passThrough];

  let seed;
  let dashboardLink;
  let baseUrl;
  let insecure = false;
  if (remote) {
    console.log(yellow("--remote: using remote resources; skipping the local migrations and seed."));
  } else {
    seed = await prepareLocal(d1Flags(passThrough));
    dashboardLink = await demoDashboardLink(d1Flags(passThrough));
    if (!hasFlag(passThrough, "--local", "-l")) devArgs.push("--local");
    let ip = flagValue(passThrough, "--ip");
    if (ip === undefined) devArgs.push("--ip", (ip = "127.0.0.1"));
    const host = ["0.0.0.0", "::", "*"].includes(ip) ? "127.0.0.1" : ip;
    let port = Number(flagValue(passThrough, "--port"));
    if (!port) {
      port = await choosePort(host);
      if (port && port !== DEFAULT_PORT) console.log(yellow(`Port ${DEFAULT_PORT} is taken; using ${port}.`));
      if (port) devArgs.push("--port", String(port));
    }
    insecure = flagValue(passThrough, "--local-protocol") === "https";
    baseUrl = port ? `${insecure ? "https" : "http"}://${host.includes(":") ? `[${host}]` : host}:${port}` : undefined;
    printKey(seed, baseUrl ?? "http://127.0.0.1:<port>", { insecure });
    printDashboardLink(dashboardLink, baseUrl ?? "http://127.0.0.1:<port>");
  }

  step(`starting ${bold(`wrangler ${devArgs.join(" ")}`)}`);
  const child = spawn(wranglerNode(), [wranglerBin(), ...devArgs], {
    cwd: ROOT,
    stdio: "inherit",
    // The service never reads request.cf; not fetching it keeps start-up quiet offline.
    env: { CLOUDFLARE_CF_FETCH_ENABLED: "false", ...process.env },
  });

  const forward = (signal) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
  };
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(signal, () => forward(signal));
  // `npm run` puts a shell between npm and this script; a SIGTERM sent to npm alone stops npm
  // and the shell but never reaches us. Being re-parented means our parent is gone: stop too.
  const parent = process.ppid;
  if (parent > 1) setInterval(() => process.ppid !== parent && forward("SIGTERM"), 1_000).unref();

  child.on("error", (err) => {
    console.error(red(`dev: could not start wrangler: ${err.message}`));
    process.exit(1);
  });
  child.on("exit", (code, signal) => {
    process.exitCode = code ?? 128 + (constants.signals[signal] ?? 1);
  });

  if (baseUrl && !insecure && (await waitUntilReady(baseUrl, child))) {
    if (seed?.key) console.log(green(`\n✔ transync is ready at ${baseUrl}`) + dim(`   curl -H "Authorization: Bearer ${seed.key}" ${baseUrl}/v1/site`));
    // Printed again once the server answers, so the link is the last thing on screen.
    if (dashboardLink) console.log(`${bold("Dashboard:")} ${green(baseUrl + dashboardLink.path)}\n`);
  }
}

main().catch((err) => {
  console.error(red(`dev: ${err instanceof SetupError ? err.message : (err?.stack ?? err)}`));
  process.exit(1);
});
