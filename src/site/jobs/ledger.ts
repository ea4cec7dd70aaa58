/**
 * Metering after the commit. A job's commit adds its usage-ledger row (job, commit number,
 * billed characters, month) to the object's `ledger_outbox` in its own transaction
 * (commit.ts, persist), so the work it stores and the row that bills it land together or not
 * at all. The rows are then written to D1 from the outbox, many in one statement, and
 * removed: by the running invocation as its commits land (`LedgerWriter`, in the background:
 * a commit never waits for D1), when it ends, and before a job is settled (runner.ts). A row
 * written twice (an answer lost, an object evicted before it removed the row) is the same
 * upsert again, so nothing is billed twice; a row not yet written waits in the object's
 * storage for the next invocation, so nothing is lost.
 *
 * While a job runs its reservation holds what it may still bill and shrinks by what its rows
 * bill (billing/metering.ts, reservedCharacters), so a row still in the outbox leaves `used + reserved`
 * as it would be with the row written: estimates and quotas see no difference.
 */
import { type UsageRow, writeUsage } from "../../billing/metering";
import { monthOf } from "../../billing/plans";
import { controlDb } from "../../control/db";
import type { SiteSettings } from "../../control/sites.control";
import type { Emit } from "../../webhooks/emit";
import { infra } from "../faults";
import type { Store } from "../store";

/** Outbox rows one D1 statement writes at most (they go as one JSON value of about 60 bytes a row). */
export const FLUSH_ROWS = 500;
/**
 * How long the invocation's writer gathers rows before it writes them, in ms: a fast job
 * queues a row every few ms, and a D1 statement costs the same for one row or hundreds. The
 * rows are safe in the outbox meanwhile; usage shows them this much later.
 */
export const GATHER_MS = 250;

export interface LedgerDeps {
  store: Store;
  env: Env;
  settings: SiteSettings;
  /** Webhook events (src/webhooks/emit.ts): `usage.threshold` once billed rows are written. */
  emit?: Emit;
}

/** Adds a stored commit's ledger row to the outbox. Call it inside the commit's transaction. */
export function queueUsage(store: Store, jobId: number, n: number, characters: number, at: Date) {
  store.run("INSERT INTO ledger_outbox (job_id, n, characters, month, created_at) VALUES (?, ?, ?, ?, ?)", jobId, n, characters, monthOf(at).key, at.toISOString());
}

/**
 * Writes every row of the outbox to D1, FLUSH_ROWS a statement, removing each batch once D1
 * answered. A D1 failure throws an InfrastructureError and leaves the rows where they are.
 */
export async function flushUsage(deps: LedgerDeps): Promise<number> {
  const { store, env, settings } = deps;
  let billed = 0;
  let statements = 0;
  for (;;) {
    const rows = store.all<UsageRow>("SELECT job_id AS jobId, n AS slice, characters, month, created_at AS createdAt FROM ledger_outbox ORDER BY job_id, n LIMIT ?", FLUSH_ROWS);
    if (!rows.length) break;
    statements++;
    await infra("metering a job's progress", () => writeUsage(controlDb(env.DB), settings, rows));
    store.run("DELETE FROM ledger_outbox WHERE (job_id, n) IN (SELECT value ->> 0, value ->> 1 FROM json_each(?))", JSON.stringify(rows.map((r) => [r.jobId, r.slice])));
    for (const r of rows) billed += r.characters;
    if (rows.length < FLUSH_ROWS) break;
  }
  if (billed > 0) deps.emit?.({ type: "usage.threshold" });
  return statements;
}

/**
 * One invocation's writer of the outbox: after a commit, `written()` starts a write that
 * gathers the rows queued within GATHER_MS and writes them together (then another, if more
 * were queued while it wrote), so a fast job writes a statement every GATHER_MS instead of
 * one a commit. A failed write calls `onFailure` (the runner stops starting slices: no engine
 * is paid for more work while D1 cannot take its rows) and is tried again by `flush()`.
 */
export class LedgerWriter {
  private running: Promise<void> | undefined;
  private again = false;
  private failed = false;
  /** Ends the gathering wait at once (flush). */
  private wake: (() => void) | undefined;
  /** Set while a flush waits for the write under way: that write and any it repeats gather nothing. */
  private hurry = false;

  constructor(
    private readonly deps: LedgerDeps,
    private readonly onFailure: () => void = () => {},
    private readonly gatherMs = GATHER_MS,
  ) {}

  /** A commit queued a row: writes it soon. Returns at once; never throws. */
  written(): void {
    if (this.failed) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.loop().finally(() => {
      this.running = undefined;
    });
  }

  private async loop() {
    do {
      this.again = false;
      if (!this.hurry)
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, this.gatherMs);
          this.wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      this.wake = undefined;
      try {
        await flushUsage(this.deps);
      } catch {
        this.failed = true;
        this.onFailure();
        return;
      }
    } while (this.again);
  }

  /** Waits for the write under way (at once: its gathering wait is cut short), whatever its outcome. */
  async idle(): Promise<void> {
    this.hurry = true;
    try {
      while (this.running) {
        this.wake?.();
        await this.running;
      }
    } finally {
      this.hurry = false;
    }
  }

  /**
   * Writes what the outbox holds now, after the write under way; throws when D1 fails. A
   * background write that failed is tried again here; `written()` writes nothing between a
   * failed write and a flush that succeeds.
   */
  async flush(): Promise<void> {
    await this.idle();
    this.failed = false;
    try {
      await flushUsage(this.deps);
    } catch (error) {
      this.failed = true;
      throw error;
    }
  }
}
