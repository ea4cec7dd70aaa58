/** The test pool's own bindings (vitest.config.ts), kept out of the production `Env` type. */
import type { D1Migration } from "cloudflare:test";
import { env } from "cloudflare:workers";

export interface TestBindings {
  /** The control plane's migrations, applied by test/setup.ts. */
  TEST_MIGRATIONS: D1Migration[];
  /** KEY_LIMITER as wrangler.toml configures it (the pool raises the one the app gets). */
  TEST_KEY_LIMITER: RateLimit;
}

export const testEnv = env as Env & TestBindings;
