/**
 * Which loop runs each test file (docs/decisions.md "The test loops"). vitest.config.ts builds its
 * projects from these lists; test/guards/loops.test.ts checks that every test file of test/ runs
 * in exactly one of them (or in one of the Node test runner's suites of package.json).
 *
 * - `npm test`, the default loop: pure modules in Node, the rest in the Workers runtime, the test
 *   files of a Workers project sharing one runtime and its storage (each test makes its own
 *   organizations and sites), except the suites that act on the whole control database.
 * - `npm run test:slow`: scale suites, real alarms and wall-clock limits; CI runs it.
 */

/** Pure modules: no binding, no Workers runtime (as Hono and mcp-server-cloudflare test theirs). */
export const NODE = [
  // engine-breaks-markup.test.ts runs a job through the Worker: it stays in the Workers pool.
  "test/qa/!(engine-breaks-markup).test.ts",
  "test/markup/**/*.test.ts",
  "test/client/split.*.test.ts",
  "test/client/cli.*.test.ts",
  // The engines, their HTTP answered by MSW handlers behind a fetch spy (test/helpers/http.ts).
  "test/engines/**/*.test.ts",
  "test/config/**/*.test.ts",
  "test/api/batch-unit.test.ts",
  "test/guards/**/*.test.ts",
];

/**
 * Suites that pass over the whole control database (crons, sweeps; cross-org compares every table
 * before and after each attempt): each file gets fresh storage, so what they read is theirs.
 */
export const WHOLE_DATABASE = ["test/ops/oncall.test.ts", "test/mail/mail.test.ts", "test/webhooks/sweeper.test.ts", "test/dashboard/cross-org.test.ts"];

/** Suites with bindings of their own (vitest.config.ts). */
export const STORAGE = ["test/storage/**/*.test.ts"];
export const BILLING = ["test/billing/**/*.test.ts"];
export const ALARMS = ["test/alarms/**/*.test.ts"];

/**
 * `npm run test:slow`: the crons over 5,000 organizations, an organization at scale, jobs on the
 * real self-scheduling alarms (polled on the wall clock, with real back-offs), and the rate limits
 * of the real bindings, whose windows follow the wall clock (`*.slow.test.ts`).
 */
export const SLOW_WORKERS = ["test/**/*.slow.test.ts", "test/ops/scheduled-scale.test.ts", "test/lifecycle/scale.test.ts"];
export const SLOW = [...SLOW_WORKERS, ...ALARMS];

/** Every test file of the repository; those not run by Vitest are in package.json's Node test runner suites. */
export const ALL_TESTS = ["test/**/*.test.{ts,mjs}"];
export const NODE_TEST_RUNNER = ["test/**/*.test.mjs"];

/** The Workers project's files: every TypeScript test not claimed by another list. */
export const WORKERS = ["test/**/*.test.ts"];
export const WORKERS_EXCLUDE = [...NODE, ...WHOLE_DATABASE, ...STORAGE, ...BILLING, ...SLOW];
