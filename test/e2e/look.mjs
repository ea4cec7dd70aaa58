/**
 * What every browser test does on a page it reaches: a full-page screenshot under
 * test/e2e/screenshots/ (to look at), and axe, where a serious or critical violation fails;
 * and where the browser is.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import AxeBuilder from "@axe-core/playwright";

export const SHOTS = join(import.meta.dirname, "screenshots");

/** The system's Chromium (Debian's `chromium`), or CHROMIUM_PATH. */
export function chromiumPath() {
  if (process.env.CHROMIUM_PATH) return process.env.CHROMIUM_PATH;
  try {
    return execFileSync("sh", ["-c", "command -v chromium || command -v chromium-browser"], { encoding: "utf8" }).trim();
  } catch {
    throw new Error("chromium is not installed: apt-get install -y chromium (or set CHROMIUM_PATH).");
  }
}

export async function lookAt(page, name) {
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
  const results = await new AxeBuilder({ page }).analyze();
  const bad = results.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  const describe = (v) =>
    `${v.id} (${v.impact}): ${v.help} — ${v.nodes
      .map((n) => n.target.join(" "))
      .slice(0, 3)
      .join(", ")}`;
  assert.deepEqual(bad.map(describe), [], `accessibility violations on ${name}`);
}
