#!/usr/bin/env node
/**
 * `node scripts/docs-browser.mjs [screenshot.png] [--url http://127.0.0.1:8787]`: checks the API
 * reference page as a person sees it. Starts `wrangler dev --local` on a free loopback port
 * (fresh state directory) unless --url names a running one, opens
 * /v1/docs in headless Chromium (playwright-core; `chromium` from the system, as the dashboard's
 * end-to-end tests use), waits until the operations of the served document are rendered, fails
 * if the page asked any other host for anything (it must work without a CDN) or its
 * Content-Security-Policy blocked anything, and saves a
 * screenshot (default .wrangler/docs.png). Stops the server it started.
 */
import { execFileSync, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { chromium } from "playwright-core";
import { ROOT, wranglerBin, wranglerNode } from "./seed.mjs";

const args = process.argv.slice(2);
const urlAt = args.indexOf("--url");
const given = urlAt >= 0 ? args.splice(urlAt, 2)[1] : undefined;
const shot = resolve(args[0] ?? join(ROOT, ".wrangler/docs.png"));
const executablePath = process.env.CHROMIUM ?? execFileSync("sh", ["-c", "command -v chromium || command -v chromium-browser"], { encoding: "utf8" }).trim();

const freePort = () =>
  new Promise((ok, fail) => {
    const server = createServer();
    server.once("error", fail);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => ok(port));
    });
  });

const state = mkdtempSync(join(tmpdir(), "transync-docs-"));
const port = given ? 0 : await freePort();
const base = given?.replace(/\/+$/, "") ?? `http://127.0.0.1:${port}`;
const child = given
  ? undefined
  : spawn(
      wranglerNode(),
      [wranglerBin(), "dev", "--local", "--ip", "127.0.0.1", "--port", String(port), "--inspector-port", String(await freePort()), "--persist-to", state, "--log-level", "warn"],
      { cwd: ROOT, detached: true, stdio: "ignore", env: { ...process.env, CLOUDFLARE_CF_FETCH_ENABLED: "false", WRANGLER_SEND_METRICS: "false" } },
    );
const stop = () => {
  try {
    if (child) process.kill(-child.pid, "SIGTERM");
  } catch {
    // gone
  }
};
process.on("exit", stop);

let browser;
try {
  const deadline = Date.now() + 120_000;
  for (;;) {
    try {
      if ((await fetch(`${base}/v1/health`)).ok) break;
    } catch {
      // not up yet
    }
    if (Date.now() > deadline) throw new Error(`wrangler dev did not answer on ${base}`);
    await new Promise((r) => setTimeout(r, 300));
  }
  browser = await chromium.launch({ executablePath, args: ["--no-sandbox", "--headless", "--disable-gpu"] });
  const page = await (await browser.newContext({ viewport: { width: 1400, height: 900 } })).newPage();
  const foreign = [];
  page.on("request", (req) => {
    const url = new URL(req.url());
    if (!["127.0.0.1", "localhost"].includes(url.hostname) && !url.protocol.startsWith("data") && !url.protocol.startsWith("blob")) foreign.push(req.url());
  });
  const errors = [];
  page.on("pageerror", (err) => errors.push(String(err)));
  // The page's Content-Security-Policy (src/page-headers.ts) must not block anything it needs.
  const blocked = [];
  page.on("console", (msg) => {
    if (/Content Security Policy/i.test(msg.text())) blocked.push(msg.text());
  });
  page.on("response", (r) => {
    if (r.status() >= 400) errors.push(`${r.status()} ${r.url()}`);
  });
  const res = await page.goto(`${base}/v1/docs`, { waitUntil: "networkidle" });
  if (res?.status() !== 200) throw new Error(`/v1/docs answered ${res?.status()}`);
  // The document's title and its first tag's operations (the first tag is open by default).
  await page.getByText("Transync: hosted translation synchronisation").first().waitFor({ timeout: 60_000 });
  await page.getByText("Introduce the connector").first().waitFor({ timeout: 60_000 });
  await page.waitForTimeout(1_000);
  mkdirSync(dirname(shot), { recursive: true });
  await page.screenshot({ path: shot });
  const title = await page.title();
  console.log(`/v1/docs rendered ("${title}"); screenshot ${shot}`);
  if (errors.length) console.log(`page errors: ${errors.join("; ")}`);
  if (blocked.length) throw new Error(`the Content-Security-Policy blocked: ${[...new Set(blocked)].join("; ")}`);
  console.log("nothing blocked by the Content-Security-Policy");
  if (foreign.length) throw new Error(`the page requested other hosts: ${[...new Set(foreign)].join(", ")}`);
  console.log("no request left this machine");
} finally {
  await browser?.close();
  stop();
  rmSync(state, { recursive: true, force: true });
}
