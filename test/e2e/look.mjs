/**
 * What every browser test does on a page it reaches: a full-page screenshot under
 * test/e2e/screenshots/ (to look at), and axe, where a serious or critical violation fails.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import AxeBuilder from "@axe-core/playwright";

export const SHOTS = join(import.meta.dirname, "screenshots");

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
