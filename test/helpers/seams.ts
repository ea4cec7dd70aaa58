/**
 * The clock, the sleep and the password cost the test Worker and its site objects are built with
 * (test/worker.ts): the real time and real waits, unless a test pins the clock or records the
 * waits; passwords hashed at a small cost. The switches live here, in the tests: src/ holds no
 * setter production could call (docs/decisions.md "The house: operations, seams, tests").
 */
import { onTestFinished } from "vitest";
import { type Deps, type PointInTime, storagePointInTime } from "../../src/deps";
import { realSleep } from "../../src/engines/http";
import type { Sleep } from "../../src/engines/types";

let pinned: Date | undefined;
let sleeper: Sleep | undefined;
let pointInTime: PointInTime | undefined;

/** The PBKDF2 iterations of passwords the test Worker hashes: a test's sign-ups and sign-ins cost little (production's: PBKDF2_ITERATIONS, test/control/password-cost.test.ts). */
export const TEST_PASSWORD_ITERATIONS = 1_000;

export const TEST_DEPS: Deps = {
  clock: () => (pinned ? new Date(pinned) : new Date()),
  sleep: (ms) => (sleeper ?? realSleep)(ms),
  pointInTime: (ctx) => pointInTime ?? storagePointInTime(ctx),
  passwordIterations: TEST_PASSWORD_ITERATIONS,
};

/** The local runtime has no point-in-time recovery: the site objects use this recording fake for this test. */
export function fakePointInTime() {
  const calls: { call: string; arg?: unknown }[] = [];
  pointInTime = {
    getBookmarkForTime: async (at) => {
      calls.push({ call: "getBookmarkForTime", arg: at });
      return `bookmark-${new Date(at).getTime()}`;
    },
    onNextSessionRestoreBookmark: async (bookmark) => {
      calls.push({ call: "onNextSessionRestoreBookmark", arg: bookmark });
      return "bookmark-undo";
    },
    abort: (reason) => {
      calls.push({ call: "abort", arg: reason });
      throw new Error(`aborted: ${reason}`);
    },
  };
  onTestFinished(() => {
    pointInTime = undefined;
  });
  return calls;
}

/** Pins the clock of the test Worker and its site objects to a date; undefined gives back the real time. */
export function setClock(date: Date | undefined) {
  pinned = date;
}

/** Makes the site objects' engine retries return at once for this test; returns the waits asked for (ms). */
export function recordObjectSleeps(): number[] {
  const sleeps: number[] = [];
  sleeper = async (ms) => {
    sleeps.push(ms);
  };
  onTestFinished(() => {
    sleeper = undefined;
  });
  return sleeps;
}
