/**
 * The layering rule (.dependency-cruiser.cjs, docs/architecture.md) holds in the house: no
 * import runs back up a floor, no door imports another, no file stands outside the floors, no
 * circle, no test tool in the Worker. A small house beside this file (house/src/) breaks each rule once, so a rule that
 * stopped firing fails here too. `npm run lint:layers` prints the same verdict for people.
 */
import { cruise, type IViolation } from "dependency-cruiser";
import extractDepcruiseOptions from "dependency-cruiser/config-utl/extract-depcruise-options";
import extractTSConfig from "dependency-cruiser/config-utl/extract-ts-config";
import { describe, expect, it } from "vitest";

const ROOT = new URL("../../", import.meta.url).pathname;

async function violations(dirs: string[], baseDir = ROOT): Promise<IViolation[]> {
  const options = await extractDepcruiseOptions(`${ROOT}.dependency-cruiser.cjs`);
  const tsConfig = extractTSConfig(`${ROOT}tsconfig.json`);
  const result = await cruise(dirs, { ...options, baseDir, validate: true }, undefined, { tsConfig });
  if (typeof result.output === "string") throw new Error("dependency-cruiser answered text, not a result");
  return result.output.summary.violations;
}

const named = (list: IViolation[]) => list.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`).sort();

describe("the layering rule", () => {
  it("holds in the house: src/ and the client package", async () => {
    expect(named(await violations(["src", "client/src"]))).toEqual([]);
  }, 60_000);

  it("fails on an import that runs back up, a door importing a door, a room on no floor, a circle and a test tool in the Worker", async () => {
    const found = named(await violations(["src"], `${ROOT}test/guards/house`));
    const toTestTool = found.filter((v) => v.startsWith("service-imports-no-test-tools: src/markup/leak.ts → ") && v.includes("node_modules/vitest/"));
    expect(toTestTool).toHaveLength(1);
    expect(found.filter((v) => !toTestTool.includes(v))).toEqual([
      "door-to-door: src/routes/sync.routes.ts → src/dashboard/page.ts",
      "no-circular: src/qa/one.ts → src/qa/two.ts",
      "not-on-a-floor: src/attic/lost.ts → src/limits.ts",
      "site-back-up-from-src-site-sync: src/site/sync/sync.ts → src/site/jobs/runner.ts",
      "src-back-up-from-src-control: src/control/keys.ts → src/ops/keys.ts",
    ]);
  }, 60_000);
});
