/**
 * The site object's one alarm, shared by every timed need: job work, retention, and the ones
 * coming (webhooks, digests, the memory index). As cloudflare/agents does it, each need is a
 * row with the time it is next due (table `alarms`); the object's alarm is a cursor over the
 * rows, always set to the earliest. When it fires, every need due by then runs through its
 * handler, which answers when the need is next due (or null: not until something registers it
 * again). A need that is registered while its handler runs keeps that registration.
 *
 * Alarms are at least once: a run that dies half-way leaves its rows as they were, so the next
 * alarm runs those needs again, and handlers are written to be run twice.
 */

import { log, redactError } from "../../obs/log";
import type { Store } from "../store";

/** Every timed need of the site object. */
export type Need = "jobs" | "retention" | "memory_share" | "memory_index" | "memory_merge";

/** What a need's handler answers: when it is next due (ms since the epoch), or null when it waits for a registration. */
export type Handler = () => Promise<number | null>;

/** After a handler throws (a bug: handlers turn faults into a time of their own), the need is tried again this much later. */
export const FAILED_NEED_RETRY_MS = 60_000;

interface Row {
  need: Need;
  due_at: number;
  version: number;
}

export class AlarmScheduler {
  constructor(
    private readonly store: Store,
    private readonly storage: DurableObjectStorage,
  ) {}

  /**
   * Registers `need` as due at `at` (ms since the epoch) and sets the alarm to the earliest
   * need. With `onlyEarlier`, a registration already due sooner stays as it is.
   */
  async schedule(need: Need, at: number, { onlyEarlier = false } = {}): Promise<void> {
    // A registration that changes nothing writes nothing (a job polled while it runs, say), so a run's own answer stands.
    this.store.run(
      `INSERT INTO alarms (need, due_at, version) VALUES (?1, ?2, 1)
       ON CONFLICT (need) DO UPDATE SET due_at = excluded.due_at, version = alarms.version + 1
       WHERE NOT ?3 OR excluded.due_at < alarms.due_at`,
      need,
      Math.round(at),
      onlyEarlier ? 1 : 0,
    );
    // Also repairs an alarm that went missing.
    await this.arm();
  }

  /** `need` is no longer due; the alarm moves to the next need (or goes). */
  async cancel(need: Need): Promise<void> {
    this.store.run("DELETE FROM alarms WHERE need = ?", need);
    await this.arm();
  }

  /** When `need` is next due (ms since the epoch), or null when it is not registered. */
  dueAt(need: Need): number | null {
    return this.store.one<{ due_at: number }>("SELECT due_at FROM alarms WHERE need = ?", need)?.due_at ?? null;
  }

  /** Every registered need with its time, earliest first (the operator's diagnostics). */
  due(): { need: Need; due_at: number }[] {
    return this.store.all<{ need: Need; due_at: number }>("SELECT need, due_at FROM alarms ORDER BY due_at");
  }

  /** Sets the object's alarm to the earliest due need, or deletes it when no need is registered. */
  async arm(): Promise<void> {
    const earliest = this.store.one<{ at: number | null }>("SELECT min(due_at) AS at FROM alarms")?.at ?? null;
    const current = await this.storage.getAlarm();
    if (earliest === null) {
      if (current !== null) await this.storage.deleteAlarm();
    } else if (current !== earliest) await this.storage.setAlarm(earliest);
  }

  /**
   * The alarm fired: runs every need due by now, in order of their times, each through its
   * handler, then sets the alarm for what is left. The earliest need always runs, even when
   * the alarm is run before its time (as tests do with `runDurableObjectAlarm`): the alarm is
   * only ever set for it.
   */
  async fire(handlers: Record<Need, Handler>): Promise<void> {
    const rows = this.store.all<Row>("SELECT need, due_at, version FROM alarms ORDER BY due_at, need");
    if (rows.length) {
      const by = Math.max(Date.now(), rows[0].due_at);
      for (const row of rows) {
        if (row.due_at > by) break;
        let next: number | null;
        try {
          next = await handlers[row.need]();
        } catch (err) {
          log("error", "alarm.need_failed", { need: row.need, error: redactError(err) });
          next = Date.now() + FAILED_NEED_RETRY_MS;
        }
        this.settle(row, next);
      }
    }
    await this.arm();
  }

  /**
   * Records what a need's run answered. If the need was registered again while it ran (a job
   * created meanwhile, say), that registration stands, brought forward to the run's answer if
   * that is sooner.
   */
  private settle(row: Row, next: number | null) {
    // Synchronous, so nothing runs between the read and the write (no transaction needed).
    const now = this.store.one<{ version: number }>("SELECT version FROM alarms WHERE need = ?", row.need);
    if (!now) {
      if (next !== null) this.store.run("INSERT INTO alarms (need, due_at, version) VALUES (?, ?, 1)", row.need, Math.round(next));
    } else if (now.version === row.version) {
      if (next === null) this.store.run("DELETE FROM alarms WHERE need = ? AND version = ?", row.need, row.version);
      else this.store.run("UPDATE alarms SET due_at = ? WHERE need = ?", Math.round(next), row.need);
    } else if (next !== null) this.store.run("UPDATE alarms SET due_at = min(due_at, ?) WHERE need = ?", Math.round(next), row.need);
  }
}
