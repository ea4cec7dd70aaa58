/**
 * The deployed environments of wrangler.toml (docs/decisions.md "Going live"): staging and production
 * each declare their own bindings (wrangler's [env.X] sections inherit almost nothing), the mail
 * sender is restricted and set, production answers only on its custom domain, and the webhook
 * queue has its dead-letter queue and a bounded consumer.
 */
import { parse } from "smol-toml";
import { describe, expect, it } from "vitest";
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
  });
});
