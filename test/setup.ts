import { applyD1Migrations } from "cloudflare:test";
import { testEnv } from "./helpers/env";

// Setup files may run several times; applyD1Migrations skips applied ones.
await applyD1Migrations(testEnv.DB, testEnv.TEST_MIGRATIONS);
