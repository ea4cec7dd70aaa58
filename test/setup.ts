import { applyD1Migrations } from "cloudflare:test";
import { afterAll, vi } from "vitest";
import { testEnv } from "./helpers/env";
import { setClock } from "./helpers/seams";

// Setup files run before each test file; applyD1Migrations skips applied ones (the files of a
// project share its storage: vitest.config.ts).
await applyD1Migrations(testEnv.DB, testEnv.TEST_MIGRATIONS);

// The files of a project also share their modules: what one file pinned or spied on ends with it.
afterAll(() => {
  setClock(undefined);
  vi.restoreAllMocks();
});
