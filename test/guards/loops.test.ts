/**
 * Every test file runs in exactly one loop (test/loops.ts, docs/decisions.md "The test loops"):
 * one project of `npm test`, one of `npm run test:slow`, or one of package.json's Node test
 * runner suites. A file no project names would never run; a file two projects name would run
 * twice, once in the wrong environment. The projects are read from the Vitest configuration
 * itself, and matched as Vitest finds files (tinyglobby, its include and exclude).
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, relative, resolve } from "node:path";
import { glob } from "tinyglobby";
import { describe, expect, it } from "vitest";
import type { TestProjectInlineConfiguration } from "vitest/config";
import { ALL_TESTS, NODE, NODE_TEST_RUNNER, SLOW } from "../loops";

const ROOT = new URL("../../", import.meta.url).pathname;

const files = (include: string[], exclude: string[] = []) => glob(include, { cwd: ROOT, ignore: exclude, dot: true, expandDirectories: false });

async function projects() {
  const config = await (await import("../../vitest.config")).default;
  const resolved = typeof config === "function" ? await config({ command: "serve", mode: "test" }) : config;
  return (resolved.test?.projects ?? []) as TestProjectInlineConfiguration[];
}

/** The .mjs suites package.json's scripts run with `node --test`. */
function nodeTestRunnerSuites(): string[] {
  const scripts = Object.values(JSON.parse(readFileSync(`${ROOT}package.json`, "utf8")).scripts as Record<string, string>);
  return [...new Set(scripts.flatMap((s) => (s.includes("node --test") ? (s.match(/test\/\S+\.test\.mjs/g) ?? []) : [])))];
}

/** The `cloudflare:` modules a file reaches through its relative imports, with the file that imports each. */
function workersImports(file: string, seen = new Set<string>()): string[] {
  if (seen.has(file)) return [];
  seen.add(file);
  const found: string[] = [];
  const text = readFileSync(file, "utf8");
  for (const [, spec] of text.matchAll(/(?:from|import)\s*\(?\s*["']([^"']+)["']/g)) {
    if (spec.startsWith("cloudflare:")) found.push(`${spec} (${relative(ROOT, file)})`);
    if (!spec.startsWith(".")) continue;
    const base = resolve(dirname(file), spec.replace(/\?raw$/, ""));
    const target = [base, `${base}.ts`, `${base}.tsx`, base.replace(/\.js$/, ".ts"), `${base}/index.ts`].find((f) => existsSync(f) && statSync(f).isFile());
    if (target && /\.(ts|tsx|js|mjs)$/.test(target)) found.push(...workersImports(target, seen));
  }
  return found;
}

describe("the test loops", () => {
  it("the Node project's files reach nothing of the Workers runtime (no cloudflare: module, directly or through what they import)", async () => {
    const reached = (await files(NODE, SLOW)).flatMap((file) => workersImports(`${ROOT}${file}`).map((m) => `${file}: ${m}`));
    expect(reached).toEqual([]);
  });

  it("run every test file of test/ exactly once: in one project of npm test or of test:slow, or in a node --test suite", async () => {
    const owners = new Map<string, string[]>();
    for (const file of await files(ALL_TESTS)) owners.set(file, []);
    for (const project of await projects()) {
      const { name, include = [], exclude = [] } = project.test ?? {};
      for (const file of await files(include, exclude)) owners.get(file)?.push(String(name));
    }
    const suites = nodeTestRunnerSuites();
    for (const file of await files(NODE_TEST_RUNNER)) if (suites.includes(file)) owners.get(file)?.push("node --test");
    const wrong = [...owners].filter(([, names]) => names.length !== 1).map(([file, names]) => `${file}: ${names.length ? names.join(", ") : "no loop"}`);
    expect(wrong).toEqual([]);
  });

  it("npm test leaves the slow- projects to npm run test:slow, which runs only them", async () => {
    const scripts = JSON.parse(readFileSync(`${ROOT}package.json`, "utf8")).scripts as Record<string, string>;
    expect(scripts.test).toBe("vitest run --project '!slow-*'");
    expect(scripts["test:slow"]).toBe("vitest run --project 'slow-*'");
    const names = (await projects()).map((p) => String(p.test?.name));
    expect(names.filter((n) => n.startsWith("slow-")).length).toBeGreaterThan(0);
    expect(new Set(names).size).toBe(names.length);
  });
});
