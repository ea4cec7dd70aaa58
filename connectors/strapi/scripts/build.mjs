// Builds the plugin as Strapi's plugin SDK lays it out (package.json `exports`: ./strapi-server,
// ./strapi-admin), with esbuild:
// - dist/server/index.js: the server part, CommonJS (Strapi requires it), with @transync/client
//   (from this repository's client/) and its dependencies bundled in, so the package installs with
//   no dependency of its own (the client is not on the registry) and no folder link;
// - dist/admin/index.mjs and index.js: the admin panel's part, ESM and CommonJS, for the project's
//   `strapi build`; React, the router, styled-components and Strapi's admin packages stay imports
//   (the project's own copies, which the admin must share);
// - build/internals.js: the server's modules for the unit tests (not packed).
import { readFileSync, rmSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
const define = { TRANSYNC_STRAPI_VERSION: JSON.stringify(pkg.version) };
rmSync("dist", { recursive: true, force: true });
rmSync("build", { recursive: true, force: true });

// The kit from this repository's client/ (its TypeScript source; its dependencies from the root's node_modules).
const alias = { "@transync/client": fileURLToPath(new URL("../../../client/src/index.ts", import.meta.url)) };
const server = { bundle: true, platform: "node", target: "node20", format: "cjs", define, alias, legalComments: "eof", logLevel: "warning" };
await build({ ...server, entryPoints: ["server/src/index.ts"], outfile: "dist/server/index.js" });
await build({ ...server, entryPoints: ["server/src/internals.ts"], outfile: "build/internals.js" });

const shared = ["react", "react-dom", "react/jsx-runtime", "react-router-dom", "react-intl", "styled-components", "@strapi/*"];
for (const [format, ext] of [
  ["esm", "mjs"],
  ["cjs", "js"],
])
  await build({
    entryPoints: ["admin/src/index.tsx"],
    outfile: `dist/admin/index.${ext}`,
    bundle: true,
    platform: "browser",
    target: "es2020",
    format,
    jsx: "automatic",
    external: shared,
    define,
    logLevel: "warning",
  });
console.log(`built @transync/strapi ${pkg.version}: dist/server, dist/admin`);
