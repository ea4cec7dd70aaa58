// The runner's pace (src/site/jobs/invocation.ts, Invocation.pace): steps start at STEP_WORK
// item-steps and grow to about STEP_MS of work as the invocation measures how many item-steps a
// ms holds, between STEP_WORK and MAX_STEP_WORK; a fixed `stepWork` is kept as given. Chains
// that step while a turn is under way wait for that turn: one timer for all of them. A piece
// of work that runs as one (Invocation.ahead) starts a step rather than ending one.
import { describe, expect, it } from "vitest";
import { Invocation, MAX_STEP_WORK, type RunnerDeps, STEP_MS, STEP_WORK } from "../../src/site/jobs/invocation";

/**
 * An invocation on a clock of its own: each item-step done through `work` takes `msPerItem`
 * (its CPU), each turn `msPerTurn` (the wait for the event loop, or an engine's).
 */
function paced(msPerTurn: number, msPerItem = 0, stepWork?: number) {
  const clock = { now: 1_000 };
  const deps = {
    nextTurn: async () => {
      clock.now += msPerTurn;
    },
    now: () => clock.now,
  } as unknown as RunnerDeps;
  return Object.assign(new Invocation(deps, { stepWork }), { clock, msPerItem });
}

/** Does `items` item-steps one at a time; answers the work done between each two turns. */
async function work(inv: ReturnType<typeof paced>, items: number): Promise<number[]> {
  const sizes: number[] = [];
  let since = 0;
  for (let i = 0; i < items; i++) {
    const turns = inv.turns;
    inv.clock.now += inv.msPerItem;
    await inv.step(1, "qa");
    since++;
    if (inv.turns > turns) {
      sizes.push(since);
      since = 0;
    }
  }
  return sizes;
}

describe("the runner's pace", () => {
  it("starts at STEP_WORK item-steps between turns", async () => {
    const inv = paced(1);
    expect((await work(inv, 2 * STEP_WORK))[0]).toBe(STEP_WORK);
  });

  it("grows steps to about STEP_MS of work once it has measured a fast pace", async () => {
    // 50 item-steps a ms of CPU and 1 ms a turn: a step of s item-steps takes s ÷ 50 + 1 ms, so
    // STEP_MS (5 ms) a step is s = 200 at the pace measured with the turns' waits in it.
    const inv = paced(1, 1 / 50);
    const sizes = await work(inv, 40_000);
    expect(STEP_MS).toBe(5);
    expect(inv.stepWork).toBeGreaterThanOrEqual(180);
    expect(inv.stepWork).toBeLessThanOrEqual(210);
    expect(sizes.at(-2)).toBe(inv.stepWork);
  });

  it("never goes above MAX_STEP_WORK, nor below STEP_WORK", async () => {
    // Turns that take no time at all: the pace measures nothing and stays at the start.
    const still = paced(0);
    await work(still, 5_000);
    expect(still.stepWork).toBe(STEP_WORK);
    // 10,000 item-steps a ms: far above the most.
    const quick = paced(1);
    for (let i = 0; i < 30; i++) await quick.step(10_000, "qa");
    expect(quick.stepWork).toBe(MAX_STEP_WORK);
    // A slow pace (an engine's wait between turns): steps stay at STEP_WORK.
    const slow = paced(200);
    await work(slow, 2_000);
    expect(slow.stepWork).toBe(STEP_WORK);
  });

  it("shares one turn between the chains that step while it is under way", async () => {
    // A turn that ends when the test says so: what is waiting for it shows.
    const turns: { at: string; end: () => void }[] = [];
    const deps = {
      nextTurn: (at: string) => new Promise<void>((end) => turns.push({ at, end })),
      now: () => 1_000,
    } as unknown as RunnerDeps;
    const inv = new Invocation(deps, { stepWork: 10 });
    const resumed: string[] = [];
    // Chain a fills the step: the turn starts.
    const a = inv.step(10, "qa").then(() => resumed.push("a"));
    expect(turns.map((t) => t.at)).toEqual(["qa"]);
    // Chain b has done one item-step, chain c a whole step's worth, and d turns outright: all three wait for a's turn, no timer of their own.
    const b = inv.step(1, "slice").then(() => resumed.push("b"));
    const c = inv.step(10, "commit").then(() => resumed.push("c"));
    const d = inv.turn("start").then(() => resumed.push("d"));
    await Promise.resolve();
    await Promise.resolve();
    expect(resumed).toEqual([]);
    expect(turns).toHaveLength(1);
    expect(inv.turns).toBe(1);
    turns[0].end();
    await Promise.all([a, b, c, d]);
    expect(resumed.sort()).toEqual(["a", "b", "c", "d"]);
    // The turn is over: the work counted meanwhile starts the next step, and the next turn is a timer of its own.
    const e = inv.step(9, "qa");
    expect(turns).toHaveLength(2);
    turns[1].end();
    await e;
    expect(inv.turns).toBe(2);
  });

  it("lets requests in before a piece of work that would overrun the step, and counts the piece for the next step", async () => {
    const at: string[] = [];
    const deps = {
      nextTurn: async (point: string) => {
        at.push(point);
      },
      now: () => 1_000,
    } as unknown as RunnerDeps;
    const inv = new Invocation(deps, { stepWork: 10 });
    // A piece bigger than a step, at a step's start: it goes at once, a step of its own; the next item-step turns.
    await inv.ahead(50, "commit");
    expect(at).toEqual([]);
    await inv.step(1, "qa");
    expect(at).toEqual(["qa"]);
    // 6 item-steps into a step, a commit of 8 would make it 14: the turn comes first, then the commit starts the next step.
    await inv.step(6, "qa");
    await inv.ahead(8, "commit");
    expect(at).toEqual(["qa", "commit"]);
    await inv.step(1, "qa"); // 9 of 10: no turn
    expect(at).toEqual(["qa", "commit"]);
    await inv.step(1, "qa"); // the commit's 8 and 2 more: a step's worth
    expect(at).toEqual(["qa", "commit", "qa"]);
    // A piece that fits the step goes on at once.
    await inv.step(3, "qa");
    await inv.ahead(7, "commit");
    expect(at).toHaveLength(3);
  });

  it("keeps a fixed stepWork as given", async () => {
    const inv = paced(1, 1 / 50, 7);
    const sizes = await work(inv, 700);
    expect(new Set(sizes)).toEqual(new Set([7]));
    expect(inv.stepWork).toBe(7);
  });
});
