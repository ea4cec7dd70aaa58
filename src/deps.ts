/**
 * What the service reads from the world besides its inputs: the time, the wait between an
 * engine's retries, and the cost of hashing a password. Production builds it once, here; tests
 * build their own (test/worker.ts) and hand it to the same constructors (docs/decisions.md "The house: operations, seams, tests":
 * seams passed in, not patched in).
 */
import { type Clock, systemClock } from "./clock";
import { PBKDF2_ITERATIONS } from "./control/passwords.control";
import { realSleep } from "./engines/http";
import type { Sleep } from "./engines/types";

/** A Durable Object's point-in-time recovery (docs/ops/backups.md): the three calls a restore makes. The local runtime lacks them, so tests hand in a fake. */
export interface PointInTime {
  getBookmarkForTime(at: number | Date): Promise<string>;
  onNextSessionRestoreBookmark(bookmark: string): Promise<string>;
  abort(reason?: string): void;
}

export interface Deps {
  clock: Clock;
  sleep: Sleep;
  /** The object's point-in-time recovery; production's is the storage's own. */
  pointInTime?: (ctx: DurableObjectState) => PointInTime;
  /** PBKDF2 iterations of new dashboard passwords (src/control/passwords.control.ts); production's are the full PBKDF2_ITERATIONS. */
  passwordIterations: number;
}

export const storagePointInTime = (ctx: DurableObjectState): PointInTime => ({
  getBookmarkForTime: (at) => ctx.storage.getBookmarkForTime(at),
  onNextSessionRestoreBookmark: (bookmark) => ctx.storage.onNextSessionRestoreBookmark(bookmark),
  abort: (reason) => ctx.abort(reason),
});

export const PRODUCTION_DEPS: Deps = { clock: systemClock, sleep: realSleep, pointInTime: storagePointInTime, passwordIterations: PBKDF2_ITERATIONS };
