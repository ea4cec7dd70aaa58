#!/usr/bin/env node
/**
 * `npm run vendor:scalar [-- <version>]`: refreshes public/vendor/scalar/standalone.js, the
 * browser bundle of Scalar's API reference (@scalar/api-reference, MIT licence) that the page at
 * /v1/docs loads. It is served from this Worker's static assets, so the page works without a
 * CDN (offline development, strict networks). Fetched with `npm pack` (the tarball only: the
 * package's own dependencies are not needed for the self-contained bundle) and committed.
 */
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT } from "./seed.mjs";

const VERSION = process.argv[2] ?? "1.72.1";
const target = join(ROOT, "public/vendor/scalar");
const dir = mkdtempSync(join(tmpdir(), "scalar-"));
try {
  const tarball = execFileSync("npm", ["pack", `@scalar/api-reference@${VERSION}`, "--silent"], { cwd: dir, encoding: "utf8" })
    .trim()
    .split("\n")
    .pop();
  execFileSync("tar", ["xzf", tarball, "package/dist/browser/standalone.js"], { cwd: dir });
  mkdirSync(target, { recursive: true });
  copyFileSync(join(dir, "package/dist/browser/standalone.js"), join(target, "standalone.js"));
  writeFileSync(
    join(target, "NOTICE.txt"),
    `@scalar/api-reference ${VERSION}, dist/browser/standalone.js\nCopyright (c) Scalar (https://github.com/scalar/scalar), MIT License.\nRefreshed with \`npm run vendor:scalar\`; loaded by the reference page at /v1/docs.\n`,
  );
  console.log(`public/vendor/scalar/standalone.js: @scalar/api-reference ${VERSION}, ${statSync(join(target, "standalone.js")).size} bytes`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
