import path from "node:path";
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";
import { ALARMS, BILLING, NODE, SLOW, SLOW_WORKERS, STORAGE, WHOLE_DATABASE, WORKERS, WORKERS_EXCLUDE } from "./test/loops.ts";

export default defineConfig(async () => {
  const migrations = await readD1Migrations(path.join(import.meta.dirname, "migrations/control"));
  /** The Workers pool with the project's bindings, plus the given ones. */
  const workers = (bindings: Record<string, string>) =>
    cloudflareTest({
      wrangler: { configPath: "./wrangler.toml" },
      // src/index.ts's Worker and site object built with the tests' clock and sleep (test/worker.ts).
      main: "./test/worker.ts",
      remoteBindings: false,
      miniflare: {
        bindings: {
          TEST_MIGRATIONS: migrations,
          ADMIN_TOKEN: "test-admin-token-0123456789abcdefghij",
          DASHBOARD_URL: "https://dash.test",
          // Mails land in the local outbox (D1), where tests read them; test/mail covers the binding itself.
          DEV_MAILBOX: "true",
          // A deployed environment's sender (wrangler.toml sets it per environment, not at the top level); test/mail covers its absence.
          EMAIL_FROM: "noreply@transync.test",
          SIGNUP: "open",
          // Set here so a developer's .dev.vars (which `npm run dev` reads, and the pool would too) cannot change what the tests see.
          WEBHOOK_ALLOW_LOOPBACK: "false",
          // The model-based suite's run count and seed (test/model): MODEL_RUNS=1000 npx vitest run test/model.
          MODEL_RUNS: process.env.MODEL_RUNS ?? "",
          MODEL_SEED: process.env.MODEL_SEED ?? "",
          // Sequences of its tiny-slice mode (jobs over several slices and overlapping commits).
          MODEL_TINY_RUNS: process.env.MODEL_TINY_RUNS ?? "",
          ...bindings,
        },
        // The per-key limit (600 / 60 s in wrangler.toml) is raised for the pool: suites about
        // other things send more than 600 requests a minute with one key. The rate-limit tests
        // hand the app TEST_KEY_LIMITER, configured exactly as wrangler.toml's KEY_LIMITER (and
        // check wrangler.toml says so). AUTH_FAILURE_LIMITER keeps its production setting; the
        // test helpers give each request its own client address.
        ratelimits: {
          KEY_LIMITER: { namespace_id: "1001", simple: { limit: 1_000_000, period: 60 } },
          TEST_KEY_LIMITER: { namespace_id: "1901", simple: { limit: 600, period: 60 } },
        },
      },
    });
  // The service's info lines (one http.request per request, job events) are not printed: tests that are about them spy on console.
  const quiet = (log: string) => (/^\{"level":"(info|debug)","event":/.test(log) ? false : undefined);
  const common = { setupFiles: ["./test/setup.ts"], testTimeout: 30_000, hookTimeout: 30_000 };
  // The files of a Workers project share one runtime, its modules and its storage (isolate: false): a
  // runtime per file cost more than the tests themselves (docs/decisions.md "The test loops"). Tests
  // make their own organizations and sites; the suites that pass over the whole database get fresh
  // storage per file (isolate: true).
  const shared = { ...common, isolate: false };
  const fresh = { ...common, isolate: true };
  // Tests run job alarms with runDurableObjectAlarm, never on their own.
  const held = () => workers({ JOB_ALARM_DELAY_MS: "3600000" });
  return {
    test: {
      onConsoleLog: quiet,
      // Two at a time on two cores: a file waits on the runtime, D1 and the objects as much as it computes.
      maxWorkers: 2,
      // `npm test` runs every project but the slow- ones; `npm run test:slow` runs those (package.json).
      projects: [
        // Pure modules in Node: no runtime to start.
        { test: { name: "node", environment: "node", include: NODE, exclude: SLOW, testTimeout: 30_000, sequence: { groupOrder: 1 } } },
        // A group of its own: Vitest keeps a shared runtime only while the next file queued is of the same
        // project, so mixed in with the other projects' files it would be started again and again.
        { plugins: [held()], test: { ...shared, name: "workers", include: WORKERS, exclude: WORKERS_EXCLUDE, sequence: { groupOrder: 0 } } },
        { plugins: [held()], test: { ...fresh, name: "whole-database", include: WHOLE_DATABASE, exclude: SLOW, sequence: { groupOrder: 1 } } },
        {
          // A small site storage limit, so the size guard's refusal is reached with a few pushes (src/site/object.ts, guardStorage).
          plugins: [workers({ JOB_ALARM_DELAY_MS: "3600000", SITE_STORAGE_LIMIT_BYTES: String(4 * 1024 * 1024) })],
          test: { ...shared, name: "storage", include: STORAGE, exclude: SLOW, sequence: { groupOrder: 1 } },
        },
        {
          // Billing through Stripe: the secrets and prices set (the other projects run the embedded
          // default, `manual`). Stripe's API is mocked at the HTTP level (test/helpers/stripe.ts).
          // Fresh storage per file: the month close passes over every subscription.
          plugins: [
            workers({
              JOB_ALARM_DELAY_MS: "3600000",
              STRIPE_SECRET_KEY: "sk_test_transync_0123456789",
              STRIPE_WEBHOOK_SECRET: "whsec_test_transync_0123456789",
              STRIPE_PRICE_PRO: "price_pro_test",
              STRIPE_PRICE_AGENCY: "price_agency_test",
              STRIPE_PRICE_GROWTH: "price_growth_test",
              STRIPE_PRICE_SCALE: "price_scale_test",
            }),
          ],
          test: { ...fresh, name: "billing", include: BILLING, exclude: SLOW, sequence: { groupOrder: 1 } },
        },
        // The slow loop: scale suites on fresh storage, and jobs on the real self-scheduling alarm path
        // (alarms fire on their own, as in production).
        { plugins: [held()], test: { ...fresh, name: "slow-workers", include: SLOW_WORKERS, exclude: ALARMS } },
        { plugins: [workers({ JOB_ALARM_DELAY_MS: "0" })], test: { ...fresh, name: "slow-alarms", include: ALARMS } },
      ],
    },
  };
});
