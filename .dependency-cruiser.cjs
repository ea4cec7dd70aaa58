/**
 * The house's layering as the README states it ("How it is built"): every import points down the
 * list below, never back up, and no file imports itself through a circle. `npm run lint:layers`
 * prints what breaks it; test/guards/layers.test.ts fails on it in `npm test`, as on a file of
 * src/ that no floor names (a new room goes on a floor here, and in the README).
 *
 * FLOORS runs from the top (the Worker's entry) to the ground (what everything may use). A file
 * may import its own floor and the floors below; within src/site/, the rooms have floors of
 * their own (SITE_FLOORS). The two doors, routes/ and dashboard/, share a floor and never import
 * each other.
 */
const FLOORS = [
  ["^src/index\\.ts$", "^src/env\\.d\\.ts$"],
  ["^src/app\\.ts$", "^src/auth\\.ts$"],
  ["^src/routes/", "^src/dashboard/"],
  // The app's types (bindings, per-request variables), which every door's handlers take.
  ["^src/context\\.ts$"],
  ["^src/ops/"],
  ["^src/site/"],
  ["^src/memory/", "^src/deps\\.ts$"],
  ["^src/webhooks/", "^src/billing/", "^src/mail/"],
  ["^src/control/"],
  ["^src/api/", "^src/qa/"],
  ["^src/engines/"],
  ["^src/markup/"],
  ["^src/limits\\.ts$"],
  // What every floor may use: errors, logs and metrics, and small helpers that import nothing above them.
  ["^src/errors\\.ts$", "^src/obs/", "^src/local-host\\.ts$", "^src/links\\.ts$", "^src/page-headers\\.ts$", "^src/characters\\.ts$", "^src/digest\\.ts$", "^src/clock\\.ts$"],
];

/** src/site/'s rooms: the object's door and its companions, then alarms/ → results/ → jobs/ → sync/ → memory/ → the shared files. */
const SITE_FLOORS = [
  ["^src/site/(object|storage|held-settings|erase|stub)\\.ts$"],
  ["^src/site/alarms/"],
  ["^src/site/results/"],
  ["^src/site/jobs/"],
  ["^src/site/sync/"],
  ["^src/site/memory/"],
  ["^src/site/(store|state|settings|fingerprint|result-id|turn|cursor|faults|sha256|schema)\\.ts$"],
];

const any = (patterns) => patterns.join("|");

/** One rule per floor: nothing on it imports a floor above it. */
const backUp = (floors, prefix) =>
  floors.slice(1).map((floor, i) => ({
    name: `${prefix}-back-up-from-${floor[0].replace(/[^a-z]+/gi, "-").replace(/^-|-$/g, "")}`,
    comment: `An import that runs back up: ${floor.join(", ")} may import only its own floor and those below it (.dependency-cruiser.cjs, README "How it is built").`,
    severity: "error",
    from: { path: any(floor) },
    to: { path: any(floors.slice(0, i + 1).flat()) },
  }));

const placed = any([...FLOORS.flat()]);

module.exports = {
  forbidden: [
    {
      name: "no-circular",
      comment: "Files that import each other in a loop.",
      severity: "error",
      from: {},
      to: { circular: true },
    },
    ...backUp(FLOORS, "src"),
    ...backUp(SITE_FLOORS, "site"),
    {
      name: "door-to-door",
      comment: "No door imports another: the public and admin API (routes/) and the dashboard meet in ops/.",
      severity: "error",
      from: { path: "^src/routes/" },
      to: { path: "^src/dashboard/" },
    },
    {
      name: "door-to-door-back",
      comment: "No door imports another: the dashboard and the API (routes/) meet in ops/.",
      severity: "error",
      from: { path: "^src/dashboard/" },
      to: { path: "^src/routes/" },
    },
    {
      name: "not-on-a-floor",
      comment: "Every file of src/ stands on a floor of .dependency-cruiser.cjs (and the README says where).",
      severity: "error",
      from: { path: "^src/", pathNot: placed },
      to: {},
    },
    {
      name: "imports-a-file-not-on-a-floor",
      comment: "Every file of src/ stands on a floor of .dependency-cruiser.cjs (and the README says where).",
      severity: "error",
      from: {},
      to: { path: "^src/", pathNot: placed },
    },
    {
      name: "service-imports-no-tests",
      comment: "The service never imports the tests, the benchmarks or the scripts.",
      severity: "error",
      from: { path: "^src/" },
      to: { path: "^(test|bench|scripts)/" },
    },
    {
      name: "service-imports-no-test-tools",
      comment: "The Worker never imports the test tools (Vitest, the pool, MSW, fast-check): src/tsconfig.json has not their types either.",
      severity: "error",
      from: { path: "^src/" },
      to: { path: "node_modules/(vitest|@vitest|@cloudflare/vitest-plugin|msw|fast-check)/" },
    },
    {
      name: "client-stands-alone",
      comment: "@transync/client is a package of its own: it never imports the service.",
      severity: "error",
      from: { path: "^client/src/" },
      to: { path: "^src/" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    // Type-only imports count too: a type that runs back up ties the floors as much as a value.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    exclude: { path: "^client/dist/" },
    enhancedResolveOptions: { extensions: [".ts", ".tsx", ".js", ".mjs", ".d.ts"] },
  },
};
