/**
 * Erasing a site's data plane (src/control/erasure.control.ts decides when): the alarm, then all storage
 * (SQLite tables included). What is left is a mark that refuses every later call, so nothing
 * can write the site again; site ids are never reused.
 *
 * The usage ledger is a billing record that erasure keeps: the rows the site's commits queued
 * and D1 has not taken yet (jobs/ledger.ts) are written first, once no job can queue more.
 * While D1 refuses them the erasure fails with nothing deleted, and is retried
 * (src/ops/erasure.ops.ts): the work a job did before the erasure stays billed.
 */

import type { Clock } from "../clock";
import type { SiteSettings } from "../control/sites.control";
import { flushUsage } from "./jobs/ledger";
import { Store } from "./store";

/** Key-value entry left by `eraseStorage`. */
const ERASED_MARK = "erased_at";

/** Whether the site's storage was erased (it holds only the mark). */
export async function wasErased(storage: DurableObjectStorage): Promise<boolean> {
  return (await storage.get(ERASED_MARK)) !== undefined;
}

/** Writes the queued usage, then deletes the alarm and every table, and leaves the mark. The object's own store is closed by then. */
export async function eraseStorage(storage: DurableObjectStorage, env: Env, clock: Clock): Promise<void> {
  await writeQueuedUsage(storage, env, clock);
  await storage.deleteAlarm();
  await storage.deleteAll();
  await storage.put(ERASED_MARK, new Date().toISOString());
}

/** The outbox's ledger rows to D1, through a store of its own (the object's is closed); nothing to do once the tables are gone. */
async function writeQueuedUsage(storage: DurableObjectStorage, env: Env, clock: Clock) {
  const store = new Store(storage, clock);
  if (store.one("SELECT 1 AS x FROM sqlite_master WHERE type = 'table' AND name = 'ledger_outbox'") === undefined) return;
  const settings = store.getMeta<SiteSettings>("settings");
  if (settings) await flushUsage({ store, env, settings });
}
