#!/usr/bin/env node
// A fake scripts/smoke.mjs for test/scripts/rollout.test.mjs (SMOKE_SCRIPT): records its arguments, exits with FAKE_SMOKE_EXIT.
import { appendFileSync } from "node:fs";

appendFileSync(process.env.FAKE_SMOKE_LOG, `${JSON.stringify(process.argv.slice(2))}\n`);
process.exit(Number(process.env.FAKE_SMOKE_EXIT ?? 0));
