/**
 * What one alarm invocation of the job runner shares between the job's start, its slices and
 * its commits: the budgets that keep it far inside the platform's limits, the engines' gates,
 * the glossary, texts whose commits are still landing, and the pace at which it lets waiting
 * requests in.
 *
 * Pace: the site object runs one thing at a time, and awaiting a promise that is already
 * settled (a zero-latency engine, a memory hit) never lets anything else in. Only a timer does:
 * measured in workerd, a loop of `await Promise.resolve()` kept every request out until it
 * ended, and so did a `MessageChannel` or `WebSocketPair` message to itself and
 * `storage.sync()`; `await scheduler.wait(0)` let one in after each turn. So CPU-bound job work
 * counts its work in `step()`, and once a step's worth has piled up it waits for the next turn
 * of the event loop, where pushes, status reads, result pages and cancels that arrived
 * meanwhile are answered. Each timer costs about 1.1 ms of waiting that no other chain's work
 * overlaps, so the job's chains share one turn (Invocation.turn; docs/decisions.md, "Answering
 * while a job works").
 */
import { controlDb } from "../../control/db";
import type { SiteSettings } from "../../control/sites.control";
import { Semaphore } from "../../engines/concurrency";
import { type EngineName, engineConcurrency } from "../../engines/registry";
import type { Engine, EngineEnv, GlossaryTerm, RequestMeter, Sleep } from "../../engines/types";
import { orgMemory } from "../../memory/stub";
import type { Emit } from "../../webhooks/emit";
import { infra } from "../faults";
import type { Store } from "../store";
import { nextTurn } from "../turn";
import type { Committer } from "./committer";
import { glossaryDue, glossaryFor, readGlossary, replaceGlossary } from "./glossary-copy";
import { LedgerWriter } from "./ledger";
import { UnitContexts } from "./neighbours";

/** Wall time one invocation keeps starting slices before yielding to a fresh alarm. */
export const INVOCATION_BUDGET_MS = 10_000;
/**
 * Wall time after which no further engine batch is launched, however the slices are going:
 * far inside an alarm's 15 minutes, leaving room for batches in flight and their retries.
 */
export const BATCH_WINDOW_MS = 180_000;
/**
 * Upstream requests (retries included) one invocation makes at most: far inside the paid
 * plan's 10,000 subrequests. Each batch in flight may still add its retries (4 attempts).
 */
export const SUBREQUEST_BUDGET = 2_000;
/**
 * Commits one invocation makes at most. Each queues a ledger row that is written to D1, at most
 * one statement a commit (LedgerWriter: fewer, as rows queued meanwhile go together), and D1
 * allows 1,000 queries an invocation.
 */
const COMMIT_BUDGET = 400;
/**
 * Items (segment × language) one transaction fixes when a started job's scope is fixed: a
 * step of a few ms, so requests are answered between chunks even on a site of a million
 * segments (whose scope is fixed across several invocations).
 */
export const SCOPE_ITEMS = 2_000;

/**
 * Work between two turns of the event loop, in item-steps (one item loaded, checked by QA or
 * stored is one), at the start of an invocation and at least: an item-step costs about
 * 10–30 µs of CPU, so such a step is a ms or two. A request that arrives waits for the step under
 * way (and, where the Worker shares the object's thread, as under `wrangler dev`, once for each
 * of its hops), so steps must stay short; but each turn costs about 1 ms of waiting (a timer
 * fires a ms later at the soonest), which made a zero-latency job half waiting at this size. So the invocation learns its pace (Invocation.pace) and steps grow
 * to about STEP_MS of work, between STEP_WORK and MAX_STEP_WORK item-steps.
 */
export const STEP_WORK = 50;
/** The most item-steps between two turns, whatever the pace (a step of about 50 ms at the slowest item-steps measured). */
export const MAX_STEP_WORK = 2_000;
/**
 * Wall time a step aims at, in ms: long enough that a turn's ms of waiting costs a zero-latency
 * job little, short enough that a request waits for few ms (bench h).
 */
export const STEP_MS = 5;
/** Wall time measured before the pace is trusted, in ms (workerd's clock moves in whole ms). */
const PACE_AFTER_MS = 20;

/**
 * Where the runner lets requests in: after a job's start, after a chunk of its scope is fixed,
 * after a slice's items are loaded and sorted (before its engine batches), during QA, before a
 * commit is written.
 */
export type TurnPoint = "start" | "scope" | "slice" | "fuzzy" | "qa" | "commit";

export interface RunnerDeps {
  store: Store;
  env: Env & EngineEnv;
  settings: SiteSettings;
  /** Engines by name; tests may inject their own. */
  engineFor?: (name: EngineName) => Engine;
  /** How the runner lets waiting requests in between its steps (default: the next turn of the event loop). */
  nextTurn?: (at: TurnPoint) => Promise<void>;
  /** Wall clock in ms the runner measures its budgets and paces its steps by (default Date.now; a test seam). */
  now?: () => number;
  /** Webhook events (src/webhooks/emit.ts): returns at once, never throws. */
  emit?: Emit;
  /** The wait between an engine's retries (the site object's; the real one when absent). */
  sleep?: Sleep;
  /**
   * Whether engine segments carry their unit's context (label, path, neighbours; slice-batches.ts).
   * Default true; false only for measuring what context costs (bench i), never a public switch.
   */
  engineContext?: boolean;
}

export interface RunOptions {
  /** Wall time for starting new slices (the first slice always starts). */
  budgetMs?: number;
  /** Slices started at most. */
  maxSlices?: number;
  /** Wall time after which no further engine batch is launched (at least budgetMs). */
  batchWindowMs?: number;
  /** Segments per chunk when a started job's items are fixed (default: SCOPE_ITEMS items, whatever the job's languages). */
  scopeChunk?: number;
  /**
   * Item-steps of work between two turns of the event loop, fixed (1 turns at every step). By
   * default the invocation sets it from its pace, from STEP_WORK up (Invocation.pace).
   */
  stepWork?: number;
  /**
   * Items per slice, instead of what the engine's limits give (slice.ts, sliceItems): tests use
   * tiny slices so a small job spans several slices and overlapping commits.
   */
  sliceItems?: number;
}

/** What one invocation shares between its slices: budgets, engine gates, the glossary, the pace. */
export class Invocation {
  readonly meter: RequestMeter = { requests: 0 };
  /** When the invocation started, on its clock (RunnerDeps.now). */
  readonly startedAt: number;
  readonly options: Required<Omit<RunOptions, "scopeChunk" | "sliceItems" | "stepWork">> & Pick<RunOptions, "scopeChunk" | "sliceItems" | "stepWork">;
  /** Turns of the event loop this invocation gave waiting requests. */
  turns = 0;
  private readonly gates = new Map<string, Semaphore>();
  private glossaries?: Promise<void>;
  /** Whether the organization's memory held other sites' entries when this invocation first asked (OrgMemoryObject.holdsOthers). */
  private othersShared?: Promise<boolean>;
  private readonly glossaryByLanguage = new Map<string, GlossaryTerm[]>();
  committers: Committer[] = [];
  /** The units' contexts engines are given, read once for the job's languages (neighbours.ts). */
  readonly contexts: UnitContexts;
  /** Writes the commits' ledger rows to D1 behind them (ledger.ts); a failed write stops the invocation. */
  readonly ledger: LedgerWriter;
  /**
   * Languages whose latest engine batch succeeded. Until one has, a language sends one batch
   * at a time: a quota, configuration or outage problem then costs one request, not one per
   * slot of the engine's concurrency.
   */
  readonly healthy = new Set<string>();
  slicesStarted = 0;
  chunksFixed = 0;
  stopped = false;
  /** Per language: texts produced by engine batches whose commits have not landed yet, by source language and fingerprint (slice-items.ts, repeatKey). */
  private readonly unsaved = new Map<string, Map<string, readonly [text: string, origin: string, engine: string]>>();
  /** Item-steps of work since the event loop last turned. */
  private work = 0;
  /** The turn under way, which every chain that steps meanwhile waits for (turn). */
  private turning?: Promise<void>;
  /** Item-steps between two turns now: options.stepWork, or from the pace. */
  stepWork: number;
  /** The pace so far: item-steps done between turns, and the wall time they took (from one turn's end to the next one's). */
  private readonly paced = { items: 0, ms: 0, since: undefined as number | undefined };

  constructor(
    readonly deps: RunnerDeps,
    options: RunOptions = {},
  ) {
    this.startedAt = this.now();
    this.options = {
      budgetMs: options.budgetMs ?? INVOCATION_BUDGET_MS,
      maxSlices: options.maxSlices ?? Number.POSITIVE_INFINITY,
      batchWindowMs: options.batchWindowMs ?? BATCH_WINDOW_MS,
      scopeChunk: options.scopeChunk,
      stepWork: options.stepWork,
      sliceItems: options.sliceItems,
    };
    this.stepWork = options.stepWork ?? STEP_WORK;
    this.contexts = new UnitContexts(deps.store);
    this.ledger = new LedgerWriter(deps, () => this.stop());
  }

  /**
   * Counts `items` item-steps of work just done at `at`; once a step's worth has piled up,
   * waits for the next turn of the event loop so that waiting requests are answered. Call it
   * between pieces of work, never inside a transaction.
   */
  async step(items: number, at: TurnPoint): Promise<void> {
    this.work += items;
    if (this.work >= this.stepWork || this.turning) await this.turn(at);
  }

  /**
   * Before `items` item-steps of work that run as one piece no request can interrupt (a commit's
   * transaction): when the piece would carry the step under way past its size, lets waiting
   * requests in first, so that the piece starts a step instead of ending one. A step then lasts
   * about its size or the piece, not both (counted after the piece, a commit of 500 items that
   * came at the end of a step doubled it). The piece counts for the step it starts.
   */
  async ahead(items: number, at: TurnPoint): Promise<void> {
    if (this.turning || (this.work > 0 && this.work + items > this.stepWork)) await this.turn(at);
    this.work += items;
  }

  /**
   * Lets waiting requests in now (after a step whose size is not counted in items). One turn
   * is shared: a chain that steps or turns while another's turn is under way waits for that
   * turn instead of setting a timer of its own. Each timer costs about a ms of waiting in
   * workerd, and the timers of several chains do not overlap: measured, three chains each
   * waiting on its own timer paid a ms a wait, where one shared timer paid a ms a round. It
   * also keeps steps short: with a timer each, a request waited until every chain had done a
   * step and was waiting (bench d's event-loop lag: p50 21 ms before, 7 ms after).
   */
  turn(at: TurnPoint): Promise<void> {
    if (this.turning) return this.turning;
    const done = this.work;
    this.work = 0;
    this.turns++;
    this.turning = (this.deps.nextTurn ?? nextTurn)(at)
      .then(() => {
        if (this.options.stepWork === undefined) this.pace(done, this.now());
      })
      .finally(() => {
        this.turning = undefined;
      });
    return this.turning;
  }

  /**
   * Sets the step's size from the pace: the item-steps done between turns over the wall time
   * from one turn's end to the next one's (the clock is read as a turn ends: inside the Workers
   * runtime it moves only across I/O and timers, so a step's own CPU time cannot be read, but
   * step and turn together can), aiming at STEP_MS a step. Time with no item-step counted (a
   * job's start, its scope) is left out; so is the first step, whose start is not known. The
   * time includes the turns' waits and any engine's, so the pace errs short: a job waiting on a
   * slow engine keeps STEP_WORK, where turns cost nothing anyway.
   */
  private pace(done: number, now: number) {
    const since = this.paced.since;
    this.paced.since = now;
    if (since === undefined || done === 0) return;
    this.paced.items += done;
    this.paced.ms += now - since;
    if (this.paced.ms < PACE_AFTER_MS) return;
    const perMs = this.paced.items / this.paced.ms;
    this.stepWork = Math.min(MAX_STEP_WORK, Math.max(STEP_WORK, Math.round(perMs * STEP_MS)));
  }

  /**
   * Whether the job is still running; a job cancelled (or otherwise ended) meanwhile stops the
   * invocation, so no further engine request or commit starts for it.
   */
  stillRunning(jobId: number): boolean {
    if (this.deps.store.one("SELECT 1 AS x FROM jobs WHERE id = ? AND status = 'running'", jobId) !== undefined) return true;
    this.stop();
    return false;
  }

  /** Requests in flight per engine, shared by the job's languages. */
  gate(name: string): Semaphore {
    let gate = this.gates.get(name);
    if (!gate) this.gates.set(name, (gate = new Semaphore(engineConcurrency(name, this.deps.env as unknown as Record<string, unknown>))));
    return gate;
  }

  private inFlight(): number {
    let n = 0;
    for (const gate of this.gates.values()) n += gate.inUse;
    return n;
  }

  private commits(): number {
    return this.committers.reduce((n, c) => n + c.commits, 0);
  }

  /** The wall clock the invocation's budgets and pace are measured by. */
  private now(): number {
    return (this.deps.now ?? Date.now)();
  }

  /** Whether another engine batch may start: within the batch window and the subrequest and commit budgets. */
  mayLaunch(): boolean {
    if (this.stopped) return false;
    if (this.now() - this.startedAt >= Math.max(this.options.budgetMs, this.options.batchWindowMs)) return false;
    if (this.meter.requests + 4 * (this.inFlight() + 1) > SUBREQUEST_BUDGET) return false;
    return this.commits() < COMMIT_BUDGET;
  }

  /** Whether another chunk of a job's scope may be fixed in this invocation. */
  mayFixChunk(): boolean {
    return !this.stopped && this.now() - this.startedAt < this.options.budgetMs;
  }

  /** Whether another slice may start (the first always does, unless maxSlices is 0 or the invocation stopped). */
  mayStartSlice(): boolean {
    if (this.stopped || this.slicesStarted >= this.options.maxSlices) return false;
    if (this.slicesStarted === 0) return true;
    if (this.now() - this.startedAt >= this.options.budgetMs) return false;
    return this.mayLaunch();
  }

  stop() {
    this.stopped = true;
  }

  /**
   * Whether a sharing site's slices should look their texts up in the organization's memory:
   * not while it holds no other site's entry, asked once an invocation (a slice's look-up is a
   * call to another object; most organizations have one site). An entry another site shares
   * meanwhile is found by the next invocation, seconds later. Unreadable: the slices ask (and
   * handle the failure as they do).
   */
  othersShare(): Promise<boolean> {
    const { env, settings } = this.deps;
    this.othersShared ??= orgMemory(env, settings.organizationId)
      .holdsOthers(settings.id)
      .catch(() => true);
    return this.othersShared;
  }

  unsavedTexts(language: string) {
    let texts = this.unsaved.get(language);
    if (!texts) this.unsaved.set(language, (texts = new Map()));
    return texts;
  }

  /**
   * The organization's glossary terms for a target language, from the object's copy (reloaded
   * from D1 only when it is old); the same array all invocation long, so QA compiles it once.
   */
  async glossary(language: string): Promise<GlossaryTerm[]> {
    const { store, env, settings } = this.deps;
    if (!this.glossaries) {
      const load = glossaryDue(store, Date.now())
        ? infra("reading the glossary", () => readGlossary(controlDb(env.DB), settings.organizationId)).then((terms) => replaceGlossary(store, terms, Date.now()))
        : Promise.resolve();
      this.glossaries = load;
      // A failed read is not kept: the next slice asks again.
      load.catch(() => {
        if (this.glossaries === load) this.glossaries = undefined;
      });
    }
    await this.glossaries;
    const key = language.toLowerCase();
    let terms = this.glossaryByLanguage.get(key);
    if (!terms) this.glossaryByLanguage.set(key, (terms = glossaryFor(store, key)));
    return terms;
  }
}
