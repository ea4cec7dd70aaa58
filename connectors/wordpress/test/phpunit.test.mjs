/**
 * PHPUnit (Debian's phpunit): the PHP splitter against the kit's cases, the mapping of posts to
 * units and its merge, the webhook check. Run here so `npm test` runs every test of the connector.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { test } from "node:test";
import { ROOT } from "./harness.mjs";

test("PHPUnit: the splitter, the mapping and the webhook check", () => {
  const run = spawnSync("phpunit", ["-c", "phpunit.xml", "--colors=never"], { cwd: ROOT, encoding: "utf8" });
  if (run.error) throw new Error(`phpunit could not run (${run.error.message}): apt-get install -y phpunit php-mbstring php-intl`);
  const summary = `${run.stdout}`.trim().split("\n").slice(-3).join("\n");
  console.log(summary);
  assert.equal(run.status, 0, `${run.stdout}\n${run.stderr}`);
  assert.match(run.stdout, /OK \((\d{3,}) tests/);
});
