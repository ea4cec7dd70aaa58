/**
 * Builds the bench Worker (bench/worker.ts) with esbuild and starts it in Miniflare with the
 * project's bindings: SITE → BenchSiteObject (SiteObject plus bench methods), FLOOR →
 * FloorObject, ORG_MEMORY → OrgMemoryObject (the organization memory), D1 DB with the control migrations applied, R2 BLOBS. Storage lives in
 * Miniflare's temporary directory (on disk) and goes away with `dispose()`.
 */
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
// Not dependencies of the project itself: esbuild comes with wrangler, Miniflare with wrangler
// and the vitest plugin. Imported by path so the bench adds no dependency.
const { build } = await import(path.join(root, "node_modules/esbuild/lib/main.js"));
const { Miniflare, convertV4MiniflareOptions, Request: MiniflareRequest } = await import(path.join(root, "node_modules/miniflare/dist/src/index.js"));

/** Miniflare's own Request class: dispatchFetch takes its requests (the generated client builds them with it). */
export { MiniflareRequest };

export const ADMIN_TOKEN = "bench-admin-token-0123456789abcdefghijk";

async function bundle() {
  const out = await build({
    entryPoints: [path.join(root, "bench/worker.ts")],
    bundle: true,
    write: false,
    format: "esm",
    target: "esnext",
    platform: "browser",
    conditions: ["workerd", "worker", "browser"],
    external: ["cloudflare:*", "node:*"],
    loader: { ".sql": "text" },
    logLevel: "warning",
  });
  return out.outputFiles[0].text;
}

/** The D1 migrations' statements, in file order (drizzle-kit separates them with breakpoints). */
async function controlMigrations() {
  const dir = path.join(root, "migrations/control");
  const files = (await readdir(dir)).filter((f) => f.endsWith(".sql")).sort();
  const statements = [];
  for (const file of files) for (const s of (await readFile(path.join(dir, file), "utf8")).split("--> statement-breakpoint")) if (s.trim()) statements.push(s.trim());
  return statements;
}

export async function startRuntime() {
  const contents = await bundle();
  // BENCH_INSPECTOR_PORT=9229 opens a V8 inspector on the runtime, for CPU profiles (bench/profile.mjs).
  const inspector = process.env.BENCH_INSPECTOR_PORT ? { inspectorPort: Number(process.env.BENCH_INSPECTOR_PORT) } : {};
  const mf = new Miniflare({
    ...convertV4MiniflareOptions({
      modules: [{ type: "ESModule", path: path.join(root, "bench/worker.mjs"), contents }],
      compatibilityDate: "2026-10-20",
      compatibilityFlags: ["nodejs_compat"],
      durableObjects: {
        SITE: { className: "BenchSiteObject", useSQLite: true },
        FLOOR: { className: "FloorObject", useSQLite: true },
        ORG_MEMORY: { className: "OrgMemoryObject", useSQLite: true },
      },
      d1Databases: ["DB"],
      r2Buckets: ["BLOBS"],
      bindings: { ADMIN_TOKEN, DASHBOARD_URL: "https://dashboard.bench", BENCH_TURNS: process.env.BENCH_TURNS ?? "on" },
      // The production limits would refuse the bench's own traffic (one key, thousands of calls).
      ratelimits: {
        KEY_LIMITER: { namespace_id: "1001", simple: { limit: 1_000_000, period: 60 } },
        AUTH_FAILURE_LIMITER: { namespace_id: "1002", simple: { limit: 1_000_000, period: 60 } },
        SIGNIN_LIMITER: { namespace_id: "1003", simple: { limit: 1_000_000, period: 60 } },
      },
    }),
    ...inspector,
  });
  await mf.ready;
  const db = await mf.getD1Database("DB");
  await db.batch((await controlMigrations()).map((s) => db.prepare(s)));
  const sites = await mf.getDurableObjectNamespace("SITE");
  const floors = await mf.getDurableObjectNamespace("FLOOR");
  return {
    mf,
    /** The site object the Worker uses for a site (it addresses them by the site id). */
    site: (siteId) => sites.get(sites.idFromName(String(siteId))),
    floor: (name) => floors.get(floors.idFromName(name)),
    dispose: () => mf.dispose(),
  };
}
