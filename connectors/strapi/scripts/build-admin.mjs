// Builds test/app's admin panel (with the plugin installed there) as `strapi build` does: about
// 70 s and 2 GB. Not through the `strapi` CLI, which looks for a tsconfig.json in every folder
// above the project (ts.findConfigFile), finds this repository's and would compile the
// JavaScript test app as TypeScript; so Strapi's own build function is called without one.
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const require = createRequire(import.meta.url);
const app = join(dirname(fileURLToPath(import.meta.url)), "..", "test", "app");
const strapi = dirname(require.resolve("@strapi/strapi/package.json"));
const { build } = require(join(strapi, "dist/src/node/build.js"));
const { createLogger } = require(join(strapi, "dist/src/cli/utils/logger.js"));

process.env.STRAPI_TELEMETRY_DISABLED = "true";
process.chdir(app);
const started = Date.now();
await build({ cwd: app, logger: createLogger({ debug: false, silent: false, timestamp: false }), tsconfig: undefined, minify: true, sourcemap: false, stats: false, bundler: "vite" });
console.log(`admin of test/app built in ${Math.round((Date.now() - started) / 1000)} s`);
