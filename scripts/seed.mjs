#!/usr/bin/env node
/**
 * Local set-up shared by `npm run dev`, `npm run seed` and `npm run load`:
 *
 * - `.dev.vars` is created from `.dev.vars.example` when missing;
 * - the local D1 migrations are applied (`wrangler d1 migrations apply DB --local`), without
 *   the confirmation prompt wrangler shows on a terminal;
 * - an EMPTY control database gets a demo organization, a `scale` subscription covering a
 *   "Demo site" (en → de, fr with the offline `pseudo` engine) and an API key.
 *
 * The key is generated here exactly as the service does (src/control/keys.control.ts): `tsk_`, 32
 * random base62 characters and a 6-character base62 CRC-32 checksum; D1 holds only its SHA-256
 * hex hash and its first 10 characters. The plain key is kept in `.wrangler/demo-key`
 * (gitignored) so later runs can show it again; a saved key from before the checksum format is
 * replaced by a new one (the service refuses it).
 *
 * ADMIN_TOKEN in `.dev.vars` must have at least 32 characters (the service disables the admin
 * API otherwise): a missing or shorter one is replaced by a random token, with a notice.
 *
 * Run on its own (`npm run seed [-- --persist-to DIR]`) it does all of the above and prints the key.
 * Wrangler runs on Node.js 22: on the npm-script PATH that is the project's own `node` package.
 */
import { spawn } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
export const DEV_VARS = join(ROOT, ".dev.vars");
export const DEV_VARS_EXAMPLE = join(ROOT, ".dev.vars.example");
export const DEMO_KEY_FILE = join(ROOT, ".wrangler", "demo-key");

const DEMO = {
  organization: "Demo organization",
  site: "Demo site",
  sourceLanguage: "en",
  targets: [
    { code: "de", formality: "default", engine: "pseudo", writable: true },
    { code: "fr", formality: "default", engine: "pseudo", writable: true },
  ],
  adapters: ["wordpress", "drupal", "wagtail", "strapi"],
  engines: ["pseudo"],
  plan: "scale",
  keyName: "demo (npm run dev)",
};

// ── small terminal helpers ───────────────────────────────────────────────────────────────
const color = process.stdout.isTTY && !process.env.NO_COLOR;
const paint = (code) => (s) => (color ? `\x1b[${code}m${s}\x1b[0m` : String(s));
export const bold = paint("1");
export const dim = paint("2");
export const green = paint("32");
export const yellow = paint("33");
export const red = paint("31");
export const cyan = paint("36");

export function step(message) {
  console.log(`${cyan("▸")} ${message}`);
}

export class SetupError extends Error {}

// ── Node.js and wrangler ─────────────────────────────────────────────────────────────────

/** A Node.js ≥ 22 binary for wrangler: this one, or the project's `node` dev dependency. */
export function wranglerNode() {
  if (Number(process.versions.node.split(".")[0]) >= 22) return process.execPath;
  const bundled = join(ROOT, "node_modules", "node", "bin", process.platform === "win32" ? "node.exe" : "node");
  if (existsSync(bundled)) return bundled;
  throw new SetupError(`wrangler needs Node.js 22 or later (this is ${process.version}); run \`npm install\` so the project's own Node.js is used by npm scripts.`);
}

/** The wrangler CLI entry point of the installed package. */
export function wranglerBin() {
  const require = createRequire(join(ROOT, "package.json"));
  let pkgPath;
  try {
    pkgPath = require.resolve("wrangler/package.json");
  } catch {
    throw new SetupError("wrangler is not installed: run `npm install` first.");
  }
  const pkg = JSON.parse(readFileSync(pkgPath, "utf8"));
  const bin = typeof pkg.bin === "string" ? pkg.bin : pkg.bin?.wrangler;
  return join(dirname(pkgPath), bin);
}

/** Flags of `wrangler dev` that also select the local database, passed on to the d1 commands. */
export function d1Flags(devArgs = []) {
  const out = [];
  for (let i = 0; i < devArgs.length; i++) {
    const arg = devArgs[i];
    const name = arg.split("=")[0];
    if (["--persist-to", "--config", "-c", "--env", "-e", "--env-file"].includes(name)) {
      if (arg.includes("=")) out.push(arg);
      else if (i + 1 < devArgs.length) out.push(arg, devArgs[++i]);
    }
  }
  return out;
}

/**
 * Runs a wrangler command to completion, non-interactively (stdin closed, CI set, so
 * confirmations take their default instead of waiting for a terminal).
 * `capture`: collect stdout instead of streaming it. Resolves { code, stdout, stderr }.
 */
export function wrangler(args, { capture = false, env = {} } = {}) {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(wranglerNode(), [wranglerBin(), ...args], {
      cwd: ROOT,
      stdio: ["ignore", capture ? "pipe" : "inherit", capture ? "pipe" : "inherit"],
      env: { ...process.env, CI: "true", WRANGLER_HIDE_BANNER: "true", ...env },
    });
    let stdout = "";
    let stderr = "";
    child.stdout?.on("data", (d) => (stdout += d));
    child.stderr?.on("data", (d) => (stderr += d));
    child.on("error", reject);
    child.on("close", (code, signal) => resolvePromise({ code: code ?? 128, signal, stdout, stderr }));
  });
}

/** `wrangler d1 execute DB --local --json`; returns the result rows of each statement. */
export async function d1(sqlOrFile, { file = false, flags = [] } = {}) {
  const args = ["d1", "execute", "DB", "--local", "--json", "--yes", ...flags, file ? "--file" : "--command", sqlOrFile];
  const run = await wrangler(args, { capture: true });
  // With --json wrangler prints only JSON, but be lenient about lines before it.
  let parsed;
  for (const m of run.stdout.matchAll(/^[[{]/gm)) {
    try {
      parsed = JSON.parse(run.stdout.slice(m.index));
      break;
    } catch {
      // not the start of the JSON document
    }
  }
  if (run.code !== 0 || !Array.isArray(parsed)) {
    const detail = parsed?.error?.text ?? (run.stderr.trim() || run.stdout.trim() || `exit code ${run.code}`);
    throw new SetupError(`wrangler d1 execute failed: ${detail}`);
  }
  return parsed.map((statement) => statement.results ?? []);
}

// ── .dev.vars ───────────────────────────────────────────────────────────────────────────

/** The service's minimum (src/auth.ts): shorter admin tokens disable the admin API. */
export const ADMIN_TOKEN_MIN_LENGTH = 32;

/**
 * Creates .dev.vars from the example when missing, and makes sure its ADMIN_TOKEN is long
 * enough (a new random one otherwise). Returns true when it created the file.
 */
export function ensureDevVars() {
  let created = false;
  if (!existsSync(DEV_VARS)) {
    if (!existsSync(DEV_VARS_EXAMPLE)) throw new SetupError(".dev.vars is missing and there is no .dev.vars.example to copy it from.");
    copyFileSync(DEV_VARS_EXAMPLE, DEV_VARS);
    created = true;
  }
  ensureAdminToken(created);
  return created;
}

/** Replaces a missing or short ADMIN_TOKEN in .dev.vars with 43 random base64url characters. */
export function ensureAdminToken(fresh = false) {
  const current = readDevVars().ADMIN_TOKEN ?? "";
  if (current.length >= ADMIN_TOKEN_MIN_LENGTH) return false;
  const token = randomBytes(32).toString("base64url");
  const text = readFileSync(DEV_VARS, "utf8");
  const line = /^(?:export\s+)?ADMIN_TOKEN\s*=.*$/m;
  writeFileSync(DEV_VARS, line.test(text) ? text.replace(line, `ADMIN_TOKEN=${token}`) : `${text.replace(/\n?$/, "\n")}ADMIN_TOKEN=${token}\n`);
  if (!fresh)
    console.log(
      yellow(
        `  ! ADMIN_TOKEN in .dev.vars was ${current ? `only ${current.length} characters` : "not set"}; the admin API needs at least ${ADMIN_TOKEN_MIN_LENGTH} and refuses shorter ones.\n` +
          `    It has been replaced with a new random token (in .dev.vars). The npm scripts read it from there; anything else that used the old token needs the new one.\n` +
          `    Restart a running \`wrangler dev\` so it picks it up.`,
      ),
    );
  return true;
}

/** Parses a dotenv file (KEY=value, optional quotes, # comments). */
export function readDevVars(path = DEV_VARS) {
  if (!existsSync(path)) return {};
  const vars = {};
  for (const raw of readFileSync(path, "utf8").split(/\r?\n/)) {
    const line = raw.trim();
    if (!line || line.startsWith("#")) continue;
    const m = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$/.exec(line);
    if (!m) continue;
    let value = m[2];
    const quoted = /^(["'])(.*)\1$/.exec(value);
    if (quoted) value = quoted[1] === '"' ? quoted[2].replace(/\\n/g, "\n") : quoted[2];
    else value = value.replace(/\s+#.*$/, "");
    vars[m[1]] = value;
  }
  return vars;
}

// ── migrations and seed ─────────────────────────────────────────────────────────────────

export async function applyMigrations(flags = [], { quiet = false } = {}) {
  const run = await wrangler(["d1", "migrations", "apply", "DB", "--local", ...flags], { capture: quiet });
  if (run.code !== 0) {
    if (quiet) process.stderr.write(run.stdout + run.stderr);
    throw new SetupError(`wrangler d1 migrations apply DB --local failed (exit code ${run.code}).`);
  }
}

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function keyChecksum(body) {
  let crc = 0xffffffff;
  for (let i = 0; i < body.length; i++) crc = CRC_TABLE[(crc ^ body.charCodeAt(i)) & 0xff] ^ (crc >>> 8);
  let n = (crc ^ 0xffffffff) >>> 0;
  let out = "";
  for (let i = 0; i < 6; i++) {
    out = BASE62[n % 62] + out;
    n = Math.floor(n / 62);
  }
  return out;
}

/** Whether a key has the service's current format and a matching checksum. */
export function isCurrentKey(key) {
  return /^tsk_[0-9A-Za-z]{38}$/.test(key) && keyChecksum(key.slice(0, -6)) === key.slice(-6);
}

/** A site API key in the service's format, with what D1 stores of it. */
export function generateApiKey() {
  let random = "";
  while (random.length < 32) for (const b of randomBytes(64)) if (b < 248 && random.length < 32) random += BASE62[b % 62];
  const body = `tsk_${random}`;
  const key = body + keyChecksum(body);
  return { key, hash: createHash("sha256").update(key, "utf8").digest("hex"), prefix: key.slice(0, 10) };
}

const q = (s) => `'${String(s).replace(/'/g, "''")}'`;

export function readDemoKey() {
  if (!existsSync(DEMO_KEY_FILE)) return undefined;
  const key = readFileSync(DEMO_KEY_FILE, "utf8").trim();
  return key || undefined;
}

function writeDemoKey(key) {
  mkdirSync(dirname(DEMO_KEY_FILE), { recursive: true });
  writeFileSync(DEMO_KEY_FILE, `${key}\n`, { mode: 0o600 });
  chmodSync(DEMO_KEY_FILE, 0o600);
}

/**
 * Seeds the demo data when the control database is empty (no organization, no site).
 * Returns { seeded, key?, siteId?, note? }: the key is the demo key that works against this
 * database (new, or the saved one if it is still valid); `note` explains when there is none.
 */
export async function seedIfEmpty(flags = []) {
  const [[counts]] = await d1("SELECT (SELECT COUNT(*) FROM organizations) AS orgs, (SELECT COUNT(*) FROM sites) AS sites", { flags });
  if (counts.orgs === 0 && counts.sites === 0) {
    const { key, hash, prefix } = generateApiKey();
    const now = new Date().toISOString();
    const site = `(SELECT id FROM sites WHERE name = ${q(DEMO.site)} ORDER BY id DESC LIMIT 1)`;
    const org = `(SELECT id FROM organizations WHERE name = ${q(DEMO.organization)} ORDER BY id DESC LIMIT 1)`;
    // One file: wrangler runs it as one batch, so a failure leaves the database empty (and retried next run).
    const sql = [
      `INSERT INTO organizations (name) VALUES (${q(DEMO.organization)});`,
      `INSERT INTO sites (organization_id, name, source_language, target_languages, enabled_adapters, enabled_engines, qa_mode, review_mode)
         VALUES (${org}, ${q(DEMO.site)}, ${q(DEMO.sourceLanguage)}, ${q(JSON.stringify(DEMO.targets))}, ${q(JSON.stringify(DEMO.adapters))}, ${q(JSON.stringify(DEMO.engines))}, 'editors', 'draft');`,
      `INSERT INTO subscriptions (organization_id, plan, status, included_characters, updated_at) VALUES (${org}, ${q(DEMO.plan)}, 'active', NULL, ${q(now)});`,
      `INSERT INTO subscription_sites (organization_id, site_id) VALUES (${org}, ${site});`,
      `INSERT INTO api_keys (site_id, name, prefix, hash, created_at) VALUES (${site}, ${q(DEMO.keyName)}, ${q(prefix)}, ${q(hash)}, ${q(now)});`,
      `SELECT site_id FROM api_keys WHERE hash = ${q(hash)};`,
    ].join("\n");
    const dir = join(ROOT, ".wrangler", "tmp");
    mkdirSync(dir, { recursive: true });
    const file = join(dir, `seed-${process.pid}.sql`);
    writeFileSync(file, sql);
    let results;
    try {
      results = await d1(file, { file: true, flags });
    } finally {
      rmSync(file, { force: true });
    }
    const siteId = results.at(-1)?.[0]?.site_id;
    if (!siteId) throw new SetupError("seeding did not create the demo key (no row came back).");
    writeDemoKey(key);
    return { seeded: true, key, siteId };
  }

  const saved = readDemoKey();
  if (!saved)
    return {
      seeded: false,
      note: `The database already holds data and no demo key is saved in ${rel(DEMO_KEY_FILE)}; create a key with the admin API (POST /admin/v1/sites/{site_id}/keys).`,
    };
  const hash = createHash("sha256").update(saved, "utf8").digest("hex");
  const [rows] = await d1(`SELECT site_id, revoked_at FROM api_keys WHERE hash = ${q(hash)}`, { flags });
  if (!rows.length)
    return {
      seeded: false,
      note: `The key saved in ${rel(DEMO_KEY_FILE)} is not in this database (it was seeded into another one); create a key with the admin API, or start from an empty database.`,
    };
  if (rows[0].revoked_at) return { seeded: false, note: `The demo key saved in ${rel(DEMO_KEY_FILE)} was revoked at ${rows[0].revoked_at}; create a new key with the admin API.` };
  if (!isCurrentKey(saved)) {
    // A key from before the checksum format: the service refuses it. Replace it for the same site.
    const fresh = generateApiKey();
    const now = new Date().toISOString();
    await d1(
      `INSERT INTO api_keys (site_id, name, prefix, hash, created_at) VALUES (${Number(rows[0].site_id)}, ${q(DEMO.keyName)}, ${q(fresh.prefix)}, ${q(fresh.hash)}, ${q(now)}); ` +
        `UPDATE api_keys SET revoked_at = ${q(now)} WHERE hash = ${q(hash)};`,
      { flags },
    );
    writeDemoKey(fresh.key);
    console.log(yellow(`  ! the saved demo key had the old format (no checksum), which the service refuses: a new key replaces it (the old one is revoked).`));
    return { seeded: false, key: fresh.key, siteId: rows[0].site_id };
  }
  return { seeded: false, key: saved, siteId: rows[0].site_id };
}

// ── the demo owner's dashboard link ─────────────────────────────────────────────────────

export const DEMO_OWNER = "owner@demo.example";

/**
 * The one-click dashboard link for the demo organization's owner. The database says whether
 * the owner exists: while the demo organization has no owner, a fresh one-time invitation
 * (7 days, only its SHA-256 stored, as the service does in src/control/people.control.ts) whose page
 * asks for a password and then opens the demo site; once an owner exists, the sign-in page,
 * which also opens the demo site after signing in. Undefined when there is no demo organization.
 */
export async function demoDashboardLink(flags = []) {
  const [[demo]] = await d1(
    `SELECT o.id AS org_id, (SELECT s.id FROM sites s WHERE s.organization_id = o.id ORDER BY s.id LIMIT 1) AS site_id,
            (SELECT u.email FROM memberships m JOIN users u ON u.id = m.user_id WHERE m.organization_id = o.id AND m.role = 'owner' ORDER BY m.created_at LIMIT 1) AS owner
     FROM organizations o WHERE o.name = ${q(DEMO.organization)} ORDER BY o.id LIMIT 1`,
    { flags },
  );
  if (!demo) return undefined;
  const next = demo.site_id ? `/dashboard/sites/${demo.site_id}` : "/dashboard";
  if (demo.owner) return { kind: "sign-in", email: demo.owner, path: `/dashboard?next=${encodeURIComponent(next)}` };
  const token = randomBytes(32).toString("base64url");
  const hash = createHash("sha256").update(token, "utf8").digest("hex");
  const now = new Date();
  const expires = new Date(now.getTime() + 7 * 86_400_000);
  await d1(
    `INSERT INTO invitations (organization_id, email, role, token_hash, invited_by, created_at, expires_at)
     VALUES (${demo.org_id}, ${q(DEMO_OWNER)}, 'owner', ${q(hash)}, NULL, ${q(now.toISOString())}, ${q(expires.toISOString())})`,
    { flags },
  );
  // The token in the fragment, as the service's own links carry it (never in a request line: docs/decisions.md).
  return { kind: "invitation", email: DEMO_OWNER, path: `/dashboard/invitations?next=${encodeURIComponent(next)}#${token}` };
}

/** The block with the dashboard link. */
export function printDashboardLink(link, baseUrl) {
  if (!link) return;
  console.log(bold("Dashboard"));
  if (link.kind === "invitation")
    console.log(`  ${green(baseUrl + link.path)}\n  ${dim(`one click: choose a password for the demo owner ${link.email} and you are in the demo site`)}`);
  else console.log(`  ${green(baseUrl + link.path)}\n  ${dim(`sign in as ${link.email} (the demo owner)`)}`);
  // DEV_MAILBOX=true (.dev.vars.example): mails (invitations, resets, sign-up links) land here instead of being sent.
  console.log(`  ${dim("mails (DEV_MAILBOX=true in .dev.vars):")} ${baseUrl}/dashboard/dev/mail`);
  console.log("");
}

export function rel(path) {
  return path.startsWith(`${ROOT}/`) ? path.slice(ROOT.length + 1) : path;
}

/** .dev.vars, migrations and seed, with progress lines. Returns the seed outcome. */
export async function prepareLocal(flags = []) {
  if (ensureDevVars()) step(`created ${bold(".dev.vars")} from .dev.vars.example (edit it to add engine credentials)`);
  else step(`using existing ${bold(".dev.vars")}`);
  step("applying local D1 migrations (wrangler d1 migrations apply DB --local)");
  await applyMigrations(flags);
  step("checking the local control database for demo data");
  const seed = await seedIfEmpty(flags);
  if (seed.seeded) step(green(`seeded: ${DEMO.organization}, ${DEMO.plan} subscription, "${DEMO.site}" (site ${seed.siteId}, en → de, fr, engine pseudo) and an API key`));
  else step("the database already holds data: not seeding");
  return seed;
}

/** The block that shows the demo key and a ready-to-paste curl line. */
export function printKey(seed, baseUrl, { insecure = false } = {}) {
  console.log("");
  if (seed.key) {
    console.log(`${bold("Demo site API key")} ${dim(`(site ${seed.siteId}; saved in ${rel(DEMO_KEY_FILE)})`)}`);
    console.log(`  ${green(seed.key)}`);
    console.log(bold("Try it:"));
    console.log(`  curl ${insecure ? "-k " : ""}-H "Authorization: Bearer ${seed.key}" ${baseUrl}/v1/site`);
    console.log(dim(`  npm run demo${baseUrl === "http://127.0.0.1:8787" ? "" : ` -- --url ${baseUrl}`}   # plays a connector against it`));
  } else console.log(yellow(`No demo key: ${seed.note}`));
  console.log("");
}

// ── standalone: npm run seed ────────────────────────────────────────────────────────────
if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    const flags = d1Flags(process.argv.slice(2));
    const seed = await prepareLocal(flags);
    printKey(seed, "http://127.0.0.1:8787");
  } catch (err) {
    console.error(red(`seed: ${err instanceof SetupError ? err.message : (err?.stack ?? err)}`));
    process.exit(1);
  }
}
