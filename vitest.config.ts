import path from "node:path";
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";

export default defineConfig(async () => {
  const migrations = await readD1Migrations(path.join(import.meta.dirname, "migrations/control"));
  /** The Workers pool with the project's bindings, plus the given ones. */
  const workers = (bindings: Record<string, string>) =>
    cloudflareTest({
      wrangler: { configPath: "./wrangler.toml" },
      remoteBindings: false,
      miniflare: {
        bindings: {
          TEST_MIGRATIONS: migrations,
          ADMIN_TOKEN: "test-admin-token",
          DASHBOARD_URL: "https://dash.test",
          // The model-based suite's run count and seed (test/model): MODEL_RUNS=1000 npx vitest run test/model.
          MODEL_RUNS: process.env.MODEL_RUNS ?? "",
          MODEL_SEED: process.env.MODEL_SEED ?? "",
          ...bindings,
        },
      },
    });
  const common = { setupFiles: ["./test/setup.ts"], testTimeout: 30_000, hookTimeout: 30_000 };
  return {
    test: {
      projects: [
        {
          // Tests run job alarms with runDurableObjectAlarm, never on their own.
          plugins: [workers({ JOB_ALARM_DELAY_MS: "3600000" })],
          test: { ...common, name: "workers", include: ["test/**/*.test.ts"], exclude: ["test/alarms/**"] },
        },
        {
          // Jobs on the real self-scheduling alarm path: alarms fire on their own, as in production.
          plugins: [workers({ JOB_ALARM_DELAY_MS: "0" })],
          test: { ...common, name: "alarms", include: ["test/alarms/**/*.test.ts"] },
        },
      ],
    },
  };
});
