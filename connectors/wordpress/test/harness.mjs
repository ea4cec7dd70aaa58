/**
 * The real things the connector's tests run against:
 * - the service: `wrangler dev --local` on a fresh database (the repository's test/e2e/server.mjs),
 *   a site translating en → de, fr with the pseudo engine, and its key;
 * - WordPress 6.5.5 on SQLite (from @wp-playground/wordpress-builds) with Polylang 3.7.8 (en, de,
 *   fr), installed without wp-cli, served by `php -S` on a free port, the plugin unpacked from
 *   dist/transync.zip and activated over REST.
 * The unpacked WordPress + Polylang is kept in .cache/ between runs (a template each site copies).
 * Polylang comes from TRANSYNC_POLYLANG_TGZ, by default ../shared/wordpress/polylang-3.7.8.tar.gz
 * beside the repository.
 */
import { execFileSync, spawn } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { unzipSync } from "fflate";
import { ADMIN_TOKEN, call, freePort, startSiteService, waitFor } from "../../../test/e2e/server.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));
export const ROOT = resolve(HERE, "..");
const REPO = resolve(ROOT, "..", "..");
const BUILDS = join(ROOT, "node_modules", "@wp-playground", "wordpress-builds");
export const ZIP = join(ROOT, "dist", "transync.zip");
export const POLYLANG = process.env.TRANSYNC_POLYLANG_TGZ ?? resolve(REPO, "..", "shared", "wordpress", "polylang-3.7.8.tar.gz");
export const ADMIN_PASSWORD = "a-long-admin-password-for-tests";

export { ADMIN_TOKEN, call, freePort, waitFor };

/** The service with one site (en → de, fr, pseudo engine) and its key. */
export const startService = () => startSiteService("WordPress");

/** The unpacked WordPress + SQLite + Polylang every test site copies (made once, kept in .cache/). */
function template() {
  if (!existsSync(POLYLANG)) {
    throw new Error(
      `Polylang 3.7.8 is not at ${POLYLANG}. The tests need it (a dependency, not part of the project): download polylang.3.7.8.zip from the WordPress plugin directory (wordpress.org/plugins/polylang, "Advanced View" → previous versions), repack it as a .tar.gz with a polylang/ folder, and set TRANSYNC_POLYLANG_TGZ to its path.`,
    );
  }
  const version = JSON.parse(readFileSync(join(BUILDS, "package.json"), "utf8")).version;
  const dir = join(ROOT, ".cache", `site-${version}-${statSync(POLYLANG).size}`);
  if (existsSync(join(dir, "ready"))) return dir;
  rmSync(dir, { recursive: true, force: true });
  const tmp = `${dir}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  const site = join(tmp, "site");
  mkdirSync(site, { recursive: true });
  const unzipTo = (zip, to, strip) => {
    for (const [name, data] of Object.entries(unzipSync(readFileSync(zip)))) {
      if (name.endsWith("/")) continue;
      const rel = strip ? name.replace(strip, "") : name;
      const path = join(to, rel);
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, data);
    }
  };
  unzipTo(join(BUILDS, "src", "wordpress", "wp-6.5.zip"), site);
  const root = existsSync(join(site, "wordpress", "wp-settings.php")) ? join(site, "wordpress") : site;
  if (root !== site) throw new Error("unexpected layout of wp-6.5.zip");
  cpSync(join(BUILDS, "public", "wp-6.5"), site, { recursive: true }); // the static files the zip leaves out (wp-admin CSS …)
  rmSync(join(site, "wp-content", "database", ".ht.sqlite"), { force: true }); // the zip ships an installed database
  rmSync(join(site, "wp-config.php"), { force: true });
  const plugins = join(site, "wp-content", "plugins");
  unzipTo(join(BUILDS, "src", "sqlite-database-integration", "sqlite-database-integration.zip"), plugins);
  renameSync(join(plugins, "sqlite-database-integration-main"), join(plugins, "sqlite-database-integration"));
  cpSync(join(plugins, "sqlite-database-integration", "db.copy"), join(site, "wp-content", "db.php"));
  execFileSync("tar", ["xzf", POLYLANG, "-C", plugins]);
  execFileSync("composer", ["dump-autoload", "--no-dev", "--classmap-authoritative", "--quiet"], {
    cwd: join(plugins, "polylang"),
    env: { COMPOSER_HOME: join(tmpdir(), "transync-composer"), ...process.env, COMPOSER_ALLOW_SUPERUSER: "1" },
  });
  writeFileSync(join(tmp, "ready"), "");
  renameSync(tmp, dir);
  return dir;
}

const ROUTER = `<?php // php -S router: files as they are, else WordPress.
$p = parse_url($_SERVER['REQUEST_URI'], PHP_URL_PATH); $f = $_SERVER['DOCUMENT_ROOT'] . $p;
if ($p !== '/' && file_exists($f) && !is_dir($f)) { if (substr($f, -4) !== '.php') return false; $_SERVER['SCRIPT_NAME'] = $p; $_SERVER['SCRIPT_FILENAME'] = $f; chdir(dirname($f)); require $f; return; }
if (is_dir($f) && file_exists(rtrim($f, '/') . '/index.php')) { $_SERVER['SCRIPT_NAME'] = rtrim($p, '/') . '/index.php'; chdir(rtrim($f, '/')); require rtrim($f, '/') . '/index.php'; return; }
$_SERVER['SCRIPT_NAME'] = '/index.php'; require $_SERVER['DOCUMENT_ROOT'] . '/index.php';
`;

function config({ url, key }) {
  const salts = ["AUTH_KEY", "SECURE_AUTH_KEY", "LOGGED_IN_KEY", "NONCE_KEY", "AUTH_SALT", "SECURE_AUTH_SALT", "LOGGED_IN_SALT", "NONCE_SALT"]
    .map((n) => `define('${n}', '${n.toLowerCase()}-for-tests-only');`)
    .join("\n");
  return `<?php
define('DB_NAME','wp'); define('DB_USER','wp'); define('DB_PASSWORD','wp'); define('DB_HOST','localhost');
define('DB_DIR', __DIR__ . '/wp-content/database/'); define('DB_FILE', '.ht.sqlite');
${salts}
$table_prefix = 'wp_';
define('WP_ENVIRONMENT_TYPE', 'local');
define('WP_HTTP_BLOCK_EXTERNAL', true);
define('AUTOMATIC_UPDATER_DISABLED', true);
define('DISABLE_WP_CRON', true);
define('FS_METHOD', 'direct');
define('WP_DEBUG', true); define('WP_DEBUG_LOG', __DIR__ . '/debug.log'); define('WP_DEBUG_DISPLAY', false);
// Transync
${url === undefined ? "" : `define('TRANSYNC_URL', ${JSON.stringify(url)});`}
${key === undefined ? "" : `define('TRANSYNC_KEY', ${JSON.stringify(key)});`}
if (!defined('ABSPATH')) define('ABSPATH', __DIR__ . '/');
require_once ABSPATH . 'wp-settings.php';
`;
}

const INSTALL = `<?php
define('WP_INSTALLING', true);
$port = $argv[1];
$_SERVER['HTTP_HOST'] = '127.0.0.1:' . $port; $_SERVER['REQUEST_URI'] = '/';
require __DIR__ . '/site/wp-load.php';
require_once ABSPATH . 'wp-admin/includes/upgrade.php';
$r = wp_install('Test site', 'admin', 'admin@example.test', true, '', '${ADMIN_PASSWORD}');
update_option('siteurl', 'http://127.0.0.1:' . $port); update_option('home', 'http://127.0.0.1:' . $port);
update_option('permalink_structure', '/%postname%/');
list($pw) = WP_Application_Passwords::create_new_application_password($r['user_id'], ['name' => 'tests']);
file_put_contents(__DIR__ . '/app-password', $pw);
`;

const POLYLANG_SETUP = `<?php
define('WP_ADMIN', true);
$_SERVER['HTTP_HOST'] = '127.0.0.1'; $_SERVER['REQUEST_URI'] = '/wp-admin/';
require __DIR__ . '/site/wp-load.php';
wp_set_current_user(1);
$languages = [['en', 'English', 'en_US'], ['de', 'Deutsch', 'de_DE'], ['fr', 'Français', 'fr_FR']];
foreach ($languages as $i => [$slug, $name, $locale]) {
  $r = PLL()->model->add_language(['name' => $name, 'slug' => $slug, 'locale' => $locale, 'rtl' => 0, 'term_group' => $i, 'flag' => $slug === 'en' ? 'us' : $slug]);
  if (is_wp_error($r)) { fwrite(STDERR, $r->get_error_message()); exit(1); }
}
$options = get_option('polylang'); $options['default_lang'] = 'en'; update_option('polylang', $options);
`;

/**
 * A WordPress site with Polylang (en, de, fr) and the plugin from its zip, active, pointed at
 * `service` (TRANSYNC_URL and TRANSYNC_KEY in wp-config.php; `env` overrides them, undefined
 * leaves one out). `php(code)` runs a PHP script inside it (as the admin, `WP_ADMIN`).
 */
export async function startSite(service, { url = service?.base, key = service?.key, plugin = true } = {}) {
  const dir = mkdtempSync(join(tmpdir(), "transync-wp-"));
  cpSync(template(), dir, { recursive: true });
  const site = join(dir, "site");
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  writeFileSync(join(site, "wp-config.php"), config({ url, key }));
  writeFileSync(join(dir, "router.php"), ROUTER);
  writeFileSync(join(dir, "install.php"), INSTALL);
  writeFileSync(join(dir, "polylang.php"), POLYLANG_SETUP);
  const php = (file, args = []) => execFileSync("php", [join(dir, file), ...args], { cwd: dir, encoding: "utf8" });
  php("install.php", [String(port)]);
  const password = readFileSync(join(dir, "app-password"), "utf8").trim();
  const basic = `admin:${password}`;

  let server;
  const start = async () => {
    server = spawn("setsid", ["php", "-d", "opcache.revalidate_freq=0", "-S", `127.0.0.1:${port}`, "-t", site, join(dir, "router.php")], {
      cwd: dir,
      stdio: ["ignore", "ignore", "pipe"],
      env: { ...process.env, PHP_CLI_SERVER_WORKERS: "4" },
    });
    server.stderr.on("data", () => {});
    const deadline = Date.now() + 30_000;
    for (;;) {
      try {
        const res = await fetch(`${base}/wp-json/`, { signal: AbortSignal.timeout(10_000) });
        if (res.ok) break;
      } catch {}
      if (Date.now() > deadline) throw new Error("php -S did not answer");
      await new Promise((r) => setTimeout(r, 200));
    }
  };
  const stopServer = async () => {
    if (!server || server.exitCode !== null) return;
    try {
      process.kill(-server.pid, "SIGTERM"); // the group: php -S and its workers
    } catch {}
    await new Promise((r) => {
      const t = setTimeout(() => {
        try {
          process.kill(-server.pid, "SIGKILL");
        } catch {}
        r();
      }, 3000);
      server.once("exit", () => {
        clearTimeout(t);
        r();
      });
    });
  };
  await start();
  const rest = (method, path, body, expect) => call(base, method, `/wp-json${path}`, { basic, body, expect });
  // Polylang first (as a site owner installs it), with its languages.
  await rest("POST", "/wp/v2/plugins/polylang/polylang", { status: "active" }, 200);
  php("polylang.php");

  const wp = {
    dir,
    site,
    base,
    port,
    basic,
    rest,
    /** Runs PHP inside WordPress (as the admin, in an admin context); answers what it prints, JSON-decoded when it can. */
    php(code) {
      const file = join(dir, `script-${Date.now()}-${Math.random().toString(36).slice(2)}.php`);
      writeFileSync(
        file,
        `<?php\ndefine('WP_ADMIN', true);\n$_SERVER['HTTP_HOST'] = '127.0.0.1:${port}'; $_SERVER['REQUEST_URI'] = '/wp-admin/';\nrequire ${JSON.stringify(join(site, "wp-load.php"))};\nwp_set_current_user(1);\n${code}\n`,
      );
      try {
        const out = execFileSync("php", [file], { cwd: dir, encoding: "utf8", env: { ...process.env } });
        try {
          return JSON.parse(out);
        } catch {
          return out;
        }
      } finally {
        rmSync(file, { force: true });
      }
    },
    /** What WP-Cron runs once a minute: the scheduled pass (the tests call it instead of waiting). */
    cron() {
      return wp.php("do_action('transync_sync'); echo json_encode(true);");
    },
    /** Rewrites the Transync constants in wp-config.php (undefined leaves one out). */
    configure(next) {
      writeFileSync(join(site, "wp-config.php"), config(next));
    },
    debugLog() {
      const file = join(site, "debug.log");
      return existsSync(file) ? readFileSync(file, "utf8") : "";
    },
    restart: async () => {
      await stopServer();
      await start();
    },
    stop: async () => {
      await stopServer();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  if (plugin) {
    installZip(site);
    await rest("POST", "/wp/v2/plugins/transync/transync", { status: "active" }, 200);
  }
  return wp;
}

/** Unpacks dist/transync.zip into the site's plugins, as WordPress's upload does. */
export function installZip(site) {
  if (!existsSync(ZIP)) throw new Error(`${ZIP} is missing: npm run build`);
  for (const [name, data] of Object.entries(unzipSync(readFileSync(ZIP)))) {
    if (name.endsWith("/")) continue;
    const path = join(site, "wp-content", "plugins", name);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, data);
  }
}
