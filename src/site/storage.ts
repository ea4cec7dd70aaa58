/**
 * The site object's size and what the operator reads of it: the storage guard a push meets,
 * the daily storage figure, and the diagnostics (GET /admin/v1/sites/{id}/diagnostics).
 */
import type { SiteSettings } from "../control/sites.control";
import { ApiError } from "../errors";
import { record } from "../obs/metrics";
import type { AlarmScheduler } from "./alarms/scheduler";
import type { Store } from "./store";

/** Meta entry: when the daily storage figure was last written (ms). */
const STORAGE_REPORTED = "storage_reported_at";
const DAY_MS = 86_400_000;

/** docs/decisions.md "Storage and hot paths": 9 GiB unless SITE_STORAGE_LIMIT_BYTES says otherwise. */
export const DEFAULT_SITE_STORAGE_LIMIT_BYTES = 9 * 1024 ** 3;

export const storageLimit = (env: Env) => {
  const set = Number(env.SITE_STORAGE_LIMIT_BYTES);
  return env.SITE_STORAGE_LIMIT_BYTES && Number.isFinite(set) && set > 0 ? set : DEFAULT_SITE_STORAGE_LIMIT_BYTES;
};

/** The object's storage in bytes (SQLite pages in use, as the platform bills and limits them). */
export const storageBytes = (store: Store): number => store.storage.sql.databaseSize;

/**
 * A push that would take the site past SITE_STORAGE_LIMIT_BYTES (default 9 GiB, below the
 * platform's 10 GB per object) is refused before anything is written: 409 `site_storage_full`,
 * which no retry mends (units must be deleted, or the operator raises the limit).
 */
export function guardStorage(store: Store, env: Env, incomingBytes: number) {
  const limit = storageLimit(env);
  const size = storageBytes(store);
  if (size + incomingBytes > limit)
    throw new ApiError(
      409,
      `The site's storage is full: it holds ${size} bytes and this push would take it past its limit of ${limit} bytes. Delete units the site no longer needs, or contact support; retrying will not help.`,
      { code: "site_storage_full" },
    );
}

/** `site.storage_bytes`, at most once a day, from the alarm (docs/ops/observability.md). */
export function reportStorage(store: Store, env: Env, settings: SiteSettings) {
  const now = Date.now();
  const last = store.getMeta<number>(STORAGE_REPORTED) ?? 0;
  if (now - last < DAY_MS) return;
  const bytes = storageBytes(store);
  record(env, "info", "site.storage_bytes", { site_id: settings.id, org_id: settings.organizationId, bytes, count: bytes });
  store.setMeta(STORAGE_REPORTED, now);
}

/** What the operator reads first about a site. */
export async function diagnostics(store: Store, env: Env, alarms: AlarmScheduler, settings: SiteSettings) {
  const jobs = store.one<{ queued: number; running: number }>(
    "SELECT coalesce(sum(status = 'queued'), 0) AS queued, coalesce(sum(status = 'running'), 0) AS running FROM jobs WHERE status IN ('queued', 'running')",
  )!;
  const migration = store.one<{ hash: string; created_at: number }>("SELECT hash, created_at FROM __drizzle_migrations ORDER BY created_at DESC LIMIT 1");
  const faults = store.getMeta<Record<string, unknown>>("runner_faults") ?? null;
  const alarmAt = await store.storage.getAlarm();
  return {
    storage_bytes: storageBytes(store),
    storage_limit_bytes: storageLimit(env),
    alarm_at: alarmAt === null ? null : new Date(alarmAt).toISOString(),
    alarms: alarms.due().map((a) => ({ need: a.need, at: new Date(a.due_at).toISOString() })),
    jobs: { queued: jobs.queued, running: jobs.running },
    ledger_outbox: store.one<{ n: number }>("SELECT count(*) AS n FROM ledger_outbox")!.n,
    site_migration: migration ? String(migration.created_at) : null,
    faults,
    suspended: settings.suspended ?? null,
  };
}
