/**
 * The clock and the sleep the test Worker and its site objects are built with (test/worker.ts):
 * the real time and real waits, unless a test pins the clock or records the waits. The switches
 * live here, in the tests: src/ holds no setter production could call (STYLE.md habit 9).
 */
import { onTestFinished } from "vitest";
import type { Deps } from "../../src/deps";
import { realSleep } from "../../src/engines/http";
import type { Sleep } from "../../src/engines/types";

let pinned: Date | undefined;
let sleeper: Sleep | undefined;

export const TEST_DEPS: Deps = {
  clock: () => (pinned ? new Date(pinned) : new Date()),
  sleep: (ms) => (sleeper ?? realSleep)(ms),
};

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
