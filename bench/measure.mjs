/**
 * Timing from Node (inside workerd the clocks stand still during synchronous work, so an
 * in-runtime timer around SQLite reads about 0) and the printed report: raw times, floors or
 * baselines, ratios and goals. Nothing here asserts: the bench prints figures.
 */
import { readdirSync, readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";

/** Milliseconds one call takes, measured around the awaited promise. */
export async function time(fn) {
  const start = performance.now();
  const value = await fn();
  return { ms: performance.now() - start, value };
}

/**
 * Times `run` `runs` times after `warmup` untimed calls. `setup(i)` (untimed) prepares each
 * call and its answer is passed to `run`; `check` (untimed) looks at each answer.
 * Warm-up calls get negative indices.
 */
export async function sample(run, { runs = 5, warmup = 1, setup = async () => undefined, check = () => {} } = {}) {
  const samples = [];
  for (let i = -warmup; i < runs; i++) {
    const context = await setup(i);
    const { ms, value } = await time(() => run(context, i));
    check(value, context, i);
    if (i >= 0) samples.push(ms);
  }
  return samples;
}

export function median(samples) {
  const s = [...samples].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

const ms = (v) => `${v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2)} ms`;
const pad = (s, n) => String(s).padEnd(n);
const lpad = (s, n) => String(s).padStart(n);

/** A ratio's moonshot as printed: `≤ 2×: met` or `≤ 2×: not met` (empty without one). */
export const moonshotText = (r) => (r.moonshot === undefined ? "" : `≤ ${r.moonshot}×: ${r.value <= r.moonshot && r.verdict === "PASS" ? "met" : "not met"}`);

/** One scenario's table: timed operations first, then ratios against their goals. */
export class Report {
  constructor(title, note) {
    this.title = title;
    this.note = note;
    this.rows = [];
    this.ratios = [];
  }

  /** A timed operation; answers its median. */
  timing(label, samples) {
    this.rows.push({ label, samples });
    return median(samples);
  }

  /** A figure that is not a time (throughput, sizes). */
  figure(label, text) {
    this.rows.push({ label, text });
  }

  /**
   * A ratio `value` = measured / baseline against `goal` (undefined: printed for information) and
   * an optional `moonshot` (a stricter aim, printed as met or not). `short` names why the goal
   * cannot be judged from this run (too few samples): the verdict is then OVER whatever the value.
   */
  ratio(label, measured, baseline, goal, { moonshot, short } = {}) {
    const value = measured / baseline;
    const verdict = goal === undefined ? "info" : value <= goal && !short ? "PASS" : "OVER";
    this.ratios.push({ label: short ? `${label} (${short})` : label, value, goal, moonshot, verdict });
    return value;
  }

  print() {
    const width = 64;
    const lines = [``, `${this.title}`];
    if (this.note) lines.push(...this.note.split("\n").map((l) => `  ${l}`));
    lines.push(`  ${pad("operation", width)} ${lpad("runs", 4)} ${lpad("median", 10)} ${lpad("min", 10)} ${lpad("max", 10)}`);
    for (const row of this.rows) {
      if (row.text !== undefined) lines.push(`  ${pad(row.label, width)} ${lpad("", 4)} ${row.text}`);
      else {
        const { samples } = row;
        lines.push(
          `  ${pad(row.label, width)} ${lpad(samples.length, 4)} ${lpad(ms(median(samples)), 10)} ${lpad(ms(Math.min(...samples)), 10)} ${lpad(ms(Math.max(...samples)), 10)}`,
        );
      }
    }
    if (this.ratios.length) {
      lines.push(`  ${pad("ratio (medians)", width)} ${lpad("", 4)} ${lpad("value", 10)} ${lpad("goal", 10)} ${lpad("", 10)}  moonshot`);
      for (const r of this.ratios)
        lines.push(
          `  ${pad(r.label, width)} ${lpad("", 4)} ${lpad(`${r.value.toFixed(2)}×`, 10)} ${lpad(r.goal === undefined ? "-" : `≤ ${r.goal}×`, 10)} ${lpad(r.verdict, 10)}  ${moonshotText(r)}`,
        );
    }
    console.log(lines.join("\n"));
  }

  /** The goals this report checked, for the summary at the end. */
  verdicts() {
    return this.ratios.filter((r) => r.goal !== undefined).map((r) => ({ scenario: this.title, ...r }));
  }
}

/**
 * Times several operations in turn, round after round (so drift and noise fall on all of them
 * alike), after `warmup` untimed rounds. `ops` maps a label to { run, check? }; answers the
 * samples by label.
 */
export async function interleaved(ops, { runs = 20, warmup = 3 } = {}) {
  const samples = Object.fromEntries(Object.keys(ops).map((label) => [label, []]));
  for (let i = -warmup; i < runs; i++)
    for (const [label, { run, check = () => {} }] of Object.entries(ops)) {
      const { ms, value } = await time(run);
      check(value);
      if (i >= 0) samples[label].push(ms);
    }
  return samples;
}

/**
 * CPU time (user + system, ms) the workerd processes under this Node process have used so far,
 * read from /proc (Linux; null elsewhere). Around a job it says how much of the job's wall time
 * the runtime spent working and how much it waited (timers, I/O): inside workerd the clock
 * stands still during synchronous work, so this cannot be read from within.
 */
export function workerdCpuMs() {
  if (process.platform !== "linux") return null;
  const children = new Map();
  for (const pid of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      children.set(Number(pid), { name: stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")")), ppid: Number(fields[1]), ticks: Number(fields[11]) + Number(fields[12]) });
    } catch {
      // gone meanwhile
    }
  }
  const under = (pid) => {
    for (let p = children.get(pid)?.ppid; p; p = children.get(p)?.ppid) if (p === process.pid) return true;
    return false;
  };
  let ticks = 0;
  for (const [pid, proc] of children) if (proc.name.startsWith("workerd") && under(pid)) ticks += proc.ticks;
  // Clock ticks are 1/100 s on Linux (sysconf(_SC_CLK_TCK)).
  return ticks * 10;
}
