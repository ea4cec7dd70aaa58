/**
 * The deploy workflow (.github/workflows/deploy.yml; docs/ops/deploy.md): only `main` deploys, each
 * environment with its own secrets, the Cloudflare token only in the steps that run wrangler (never
 * in an install, which runs without package scripts), actions pinned by commit, and the rollout
 * through scripts/rollout.mjs, never a plain deploy outside the migration path.
 */
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import text from "../../.github/workflows/deploy.yml?raw";
import pkg from "../../package.json";

type Step = { name?: string; uses?: string; run?: string; if?: string; with?: Record<string, unknown>; env?: Record<string, string> };
type Job = { if?: string; environment?: string; env?: Record<string, string>; needs?: string; steps: Step[] };
const workflow = parse(text) as { on: Record<string, any>; env?: Record<string, string>; permissions?: Record<string, string>; jobs: Record<string, Job> };
const deployJobs = ["staging", "production"] as const;
const secretsIn = (values: Record<string, string> | undefined) => Object.values(values ?? {}).filter((v) => String(v).includes("secrets."));

describe("the deploy workflow", () => {
  it("deploys only from main: every job checks the ref, even when started by hand", () => {
    expect(workflow.on.push).toEqual({ branches: ["main"] });
    expect(Object.keys(workflow.on)).toEqual(["push", "workflow_dispatch"]);
    for (const [name, job] of Object.entries(workflow.jobs)) expect(job.if, name).toContain("github.ref == 'refs/heads/main'");
  });

  it("each deployed environment is a job of its own with the GitHub environment of that name; production follows staging", () => {
    for (const name of deployJobs) expect(workflow.jobs[name].environment).toBe(name);
    expect(workflow.jobs.production.needs).toBe("staging");
    expect(workflow.jobs.test.environment).toBeUndefined();
  });

  it("holds no secret at the workflow or job level: the token is only in the environment of the steps that run wrangler", () => {
    expect(secretsIn(workflow.env)).toEqual([]);
    expect(workflow.permissions).toEqual({ contents: "read" });
    for (const [name, job] of Object.entries(workflow.jobs)) {
      expect(secretsIn(job.env), name).toEqual([]);
      for (const step of job.steps) {
        const holdsToken = Object.keys(step.env ?? {}).includes("CLOUDFLARE_API_TOKEN");
        const runsWrangler = /\bwrangler\b|npm run deploy\b/.test(step.run ?? "");
        expect(holdsToken, `${name}: ${step.name ?? step.run ?? step.uses}`).toBe(runsWrangler);
        if (holdsToken) expect(step.env!.CLOUDFLARE_API_TOKEN).toBe("${{ secrets.CLOUDFLARE_API_TOKEN }}");
      }
    }
    // The test job sees no secret at all.
    expect(workflow.jobs.test.steps.flatMap((s) => secretsIn(s.env))).toEqual([]);
  });

  it("installs without package scripts, then rebuilds only the packages package.json allows", () => {
    const allowed = Object.keys(pkg.allowScripts).sort();
    for (const [name, job] of Object.entries(workflow.jobs)) {
      const runs = job.steps.map((s) => s.run ?? "");
      const install = runs.filter((r) => /\bnpm (ci|install|i)\b/.test(r));
      expect(install, name).toEqual(["npm ci --ignore-scripts --no-audit --no-fund"]);
      const rebuild = runs.find((r) => r.startsWith("npm rebuild "));
      expect(rebuild?.split("&&")[0].trim().split(" ").slice(2).sort(), name).toEqual(allowed);
      // Nothing installs or rebuilds before the install step (the token steps come after).
      expect(runs.indexOf(install[0]), name).toBeLessThan(runs.indexOf(rebuild!));
    }
  });

  it("pins every action by a full commit SHA, and checks out without keeping credentials", () => {
    const uses = Object.values(workflow.jobs).flatMap((j) => j.steps.filter((s) => s.uses));
    expect(uses.length).toBeGreaterThan(0);
    for (const step of uses) {
      expect(step.uses).toMatch(/^[\w.-]+\/[\w.-]+@[0-9a-f]{40}$/);
      if (step.uses!.startsWith("actions/checkout@")) expect(step.with?.["persist-credentials"]).toBe(false);
    }
    // A version comment beside each pin says which release it is.
    for (const line of text.split("\n").filter((l) => l.includes("uses: "))) expect(line).toMatch(/@[0-9a-f]{40} # v\d+\.\d+\.\d+$/);
    // The deploy jobs keep no package cache that a test run could have written.
    for (const name of deployJobs) {
      const setup = workflow.jobs[name].steps.find((s) => s.uses?.startsWith("actions/setup-node@"))!;
      expect(setup.with?.cache).toBeUndefined();
      expect(setup.with?.["package-manager-cache"]).toBe(false);
    }
  });

  it("rolls out through scripts/rollout.mjs with the environment named; a plain deploy only on the migration path, chosen by hand", () => {
    expect(pkg.scripts.deploy).toBe("node scripts/rollout.mjs");
    expect(workflow.on.workflow_dispatch.inputs.durable_object_migration).toMatchObject({ type: "boolean", default: false });
    for (const name of deployJobs) {
      const runs = workflow.jobs[name].steps.filter((s) => /npm run deploy|wrangler (deploy|versions|rollback)/.test(s.run ?? ""));
      expect(runs.map((s) => s.if)).toEqual(["inputs.durable_object_migration", "${{ !inputs.durable_object_migration }}"]);
      expect(runs[0].run).toContain(`npm run deploy -- --env ${name} `);
      expect(runs[0].run).toContain("--durable-object-migration");
      expect(runs[1].run).toContain(`npm run deploy -- --env ${name} `);
      expect(runs[1].run).not.toContain("--durable-object-migration");
      expect(runs[1].run).toMatch(/--watch \d+/);
      // The rollout's smoke test and watch get what they need.
      expect(Object.keys(runs[1].env!).sort()).toEqual(["ADMIN_TOKEN", "CLOUDFLARE_ACCOUNT_ID", "CLOUDFLARE_API_TOKEN", "SMOKE_URL", "TRANSYNC_KEY"]);
    }
    // No raw wrangler deploy or versions command anywhere (the rollout runs them and goes back when a check fails).
    const commands = Object.values(workflow.jobs).flatMap((j) => j.steps.map((s) => s.run ?? ""));
    for (const command of commands) expect(command).not.toMatch(/wrangler (deploy|versions|rollback)/);
  });
});
