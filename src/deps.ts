/**
 * What the service reads from the world besides its inputs: the time, and the wait between an
 * engine's retries. Production builds it once, here; tests build their own (test/worker.ts)
 * and hand it to the same constructors (STYLE.md habit 9: seams passed in, not patched in).
 */
import { type Clock, systemClock } from "./clock";
import { realSleep } from "./engines/http";
import type { Sleep } from "./engines/types";

export interface Deps {
  clock: Clock;
  sleep: Sleep;
}

export const PRODUCTION_DEPS: Deps = { clock: systemClock, sleep: realSleep };
