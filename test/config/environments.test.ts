/**
 * The deployed environments of wrangler.toml (docs/decisions.md "Going live"): staging and production
 * each declare their own bindings (wrangler's [env.X] sections inherit almost nothing), the mail
 * sender is restricted and set, production answers only on its custom domain, and the webhook
 * queue has its dead-letter queue and a bounded consumer.
 */
import { parse } from "smol-toml";
import { describe, expect, it } from "vitest";
import devVars from "../../.dev.vars.example?raw";
import backups from "../../docs/ops/backups.md?raw";
import deploy from "../../docs/ops/deploy.md?raw";
import observability from "../../docs/ops/observability.md?raw";
import runbook from "../../docs/runbook.md?raw";
import example from "../../secrets.example.json?raw";
import toml from "../../wrangler.toml?raw";

type Config = Record<string, any>;
const config = parse(toml) as Config;
const envs = config.env as Record<string, Config>;

describe("environments", () => {
  it("staging and production each have their own D1, R2, queues, rate-limit namespaces, dataset and name", () => {
    const [staging, production] = [envs.staging, envs.production];
    for (const key of ["d1_databases", "r2_buckets", "analytics_engine_datasets"]) {
      expect(staging[key], key).toHaveLength(1);
      expect(production[key], key).toHaveLength(1);
    }
    expect(staging.d1_databases[0].database_id).not.toBe(production.d1_databases[0].database_id);
    expect(staging.d1_databases[0].migrations_dir).toBe("migrations/control");
    expect(staging.r2_buckets[0].bucket_name).not.toBe(production.r2_buckets[0].bucket_name);
    expect(staging.queues.producers[0].queue).not.toBe(production.queues.producers[0].queue);
    expect(staging.analytics_engine_datasets[0]).toMatchObject({ binding: "METRICS" });
    expect(staging.name).not.toBe(production.name);
    // Rate-limit namespaces are unique in an account: no two alike anywhere in the file.
    const namespaces = [config, staging, production].flatMap((c) => c.ratelimits.map((r: Config) => r.namespace_id));
    expect(new Set(namespaces).size).toBe(namespaces.length);
    for (const e of [staging, production]) {
      expect(e.ratelimits.map((r: Config) => [r.name, r.simple])).toEqual(config.ratelimits.map((r: Config) => [r.name, r.simple]));
      expect(e.durable_objects.bindings.map((b: Config) => b.name)).toEqual(["SITE", "ORG_MEMORY"]);
      expect(e.observability).toMatchObject({ enabled: true });
      expect(e.version_metadata).toEqual({ binding: "VERSION" });
      expect(e.triggers.crons).toEqual(config.triggers.crons);
      expect(e.routes[0]).toMatchObject({ custom_domain: true });
      expect(e.vars.DASHBOARD_URL).toMatch(/^https:\/\//);
    }
  });

  it("production answers only on its custom domain: no workers.dev address, no preview URLs", () => {
    expect(envs.production.workers_dev).toBe(false);
    expect(envs.production.preview_urls).toBe(false);
  });

  it("the mail sender is restricted, and EMAIL_FROM is set in each environment and is one of the allowed senders; never at the top level", () => {
    expect(config.vars.EMAIL_FROM).toBeUndefined();
    for (const name of ["staging", "production"]) {
      const e = envs[name];
      expect(e.send_email, name).toHaveLength(1);
      expect(e.send_email[0].name).toBe("EMAIL");
      expect(e.send_email[0].allowed_sender_addresses, name).toEqual([e.vars.EMAIL_FROM]);
      expect(e.vars.EMAIL_FROM, name).toMatch(/^[^@\s]+@[^@\s]+$/);
      // Development switches never reach a deployed environment.
      expect(e.vars.DEV_MAILBOX).toBeUndefined();
      expect(e.vars.WEBHOOK_ALLOW_LOOPBACK).toBeUndefined();
    }
  });

  it("the webhook queue has a dead-letter queue with its own consumer, and bounded concurrency, everywhere", () => {
    for (const c of [config, envs.staging, envs.production]) {
      const [main, dead] = c.queues.consumers as Config[];
      expect(main.queue).toBe(c.queues.producers[0].queue);
      expect(main.dead_letter_queue).toBe(`${main.queue}-dlq`);
      expect(main.max_concurrency).toBeGreaterThan(0);
      expect(main.max_concurrency).toBeLessThanOrEqual(10);
      expect(dead.queue).toBe(main.dead_letter_queue);
      expect(dead.max_concurrency).toBe(1);
    }
  });

  it("secrets.example.json lists the secrets `wrangler secret bulk` takes, every value a placeholder", () => {
    const secrets = JSON.parse(example) as Record<string, string>;
    expect(Object.keys(secrets)).toEqual(expect.arrayContaining(["ADMIN_TOKENS", "STRIPE_SECRET_KEY", "STRIPE_WEBHOOK_SECRET"]));
    for (const value of Object.values(secrets)) expect(value).toMatch(/^$|<|\.\.\./);
    // The local example shows the named tokens the deployed environments use, beside the single one.
    expect(devVars).toMatch(/^ADMIN_TOKEN=$/m);
    expect(devVars).toMatch(/^# ADMIN_TOKENS=\{"alice":"<[^>]+>"\}$/m);
  });

  it("each environment repeats [observability.logs] (wrangler replaces the block per environment) and has the three crons the docs describe", () => {
    for (const c of [config, envs.staging, envs.production]) {
      expect(c.observability).toMatchObject({ enabled: true, head_sampling_rate: 1, logs: { invocation_logs: true } });
      expect(c.triggers.crons).toEqual(["20 0 * * *", "*/15 * * * *", "40 3 * * *"]);
    }
    expect(runbook).toContain("the three crons");
    for (const cron of config.triggers.crons) expect(runbook).toContain(`\`${cron}\``);
    for (const doc of [runbook, observability]) expect(doc).not.toMatch(/both crons/);
  });
});

/** The docs' commands and queries name what wrangler.toml deploys (docs/runbook.md, docs/ops/). */
describe("the operator docs against wrangler.toml", () => {
  const docs = { "docs/runbook.md": runbook, "docs/ops/deploy.md": deploy, "docs/ops/backups.md": backups, "docs/ops/observability.md": observability };
  const commands = Object.entries(docs).flatMap(([file, text]) =>
    // Commands are written `npx wrangler …` (in code); prose names wrangler alone.
    [...text.matchAll(/npx wrangler ([^`\n|]+)/g)].map((m) => ({ file, command: m[1].replace(/\s+#.*$/, "").trim() })).filter((c) => !c.command.startsWith("dev")),
  );

  it("every wrangler command that reads the configuration names its environment", () => {
    // Account-level creations name their resource themselves; `dev` is local.
    const configFree = /^(d1 create|r2 bucket|queues create|tail --help)/;
    const checked = commands.filter((c) => !configFree.test(c.command));
    expect(checked.length).toBeGreaterThan(15);
    for (const { file, command } of checked) expect(command, `${file}: wrangler ${command}`).toMatch(/--env (staging|production)\b/);
  });

  it("D1 commands name the database of the environment they run in", () => {
    const d1 = commands.filter((c) => /^d1 (execute|export|time-travel (info|restore)|migrations apply) /.test(c.command));
    expect(d1.length).toBeGreaterThan(5);
    for (const { file, command } of d1) {
      const env = /--env (staging|production)/.exec(command)![1];
      const name = command
        .split(" ")
        .find((w, i, all) => i > 0 && !w.startsWith("-") && !["execute", "export", "info", "restore", "apply", "time-travel", "migrations"].includes(w) && all[i - 1] !== "--env")!;
      expect([envs[env].d1_databases[0].database_name, "DB"], `${file}: wrangler ${command}`).toContain(name);
    }
  });

  it("the dashboard's SQL reads the deployed datasets, and the runbook's table of names is wrangler.toml's", () => {
    const datasets = [envs.staging, envs.production].map((e) => e.analytics_engine_datasets[0].dataset);
    const from = [...(observability + runbook).matchAll(/\bFROM (\w+)/g)].map((m) => m[1]);
    expect(from.length).toBeGreaterThan(5);
    for (const name of from) expect(datasets).toContain(name);
    for (const [env, column] of [
      ["staging", 0],
      ["production", 1],
    ] as const) {
      const e = envs[env];
      const names = [e.name, e.d1_databases[0].database_name, e.analytics_engine_datasets[0].dataset, e.queues.producers[0].queue, e.r2_buckets[0].bucket_name];
      const rows = runbook.split("\n").filter((l) => /^\| (Worker|D1 database|Analytics Engine dataset|webhook queue|R2 bucket)/.test(l));
      expect(rows).toHaveLength(5);
      rows.forEach((row, i) => expect(row.split("|")[2 + column], row).toContain(`\`${names[i]}\``));
    }
    for (const name of datasets) expect(observability).toContain(`\`${name}\``);
  });
});
