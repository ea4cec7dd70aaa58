/**
 * BenchSiteObject: the real SiteObject (bound as SITE in the bench, so every HTTP call of the
 * bench runs the production code) plus bench-only RPC methods: bulk seeding of large sites,
 * staging a batch for an object-side push figure, and running jobs with a zero-latency engine
 * injected through RunnerDeps.engineFor.
 */

import type { UnitSnapshot } from "../src/api/schemas";
import type { SiteSettings } from "../src/control/sites.control";
import { createPseudoEngine } from "../src/engines/pseudo";
import type { Engine } from "../src/engines/types";
import { characters, fingerprint } from "../src/site/fingerprint";
import { type ContextItem, UnitContexts } from "../src/site/jobs/neighbours";
import { currentJob, runJobs } from "../src/site/jobs/runner";
import { estimateScope, scopeOf } from "../src/site/jobs/scope";
import { indexNeedsMerge, mergeMemoryIndex } from "../src/site/memory/entries";
import { fuzzyMatches } from "../src/site/memory/fuzzy";
import { SiteObject } from "../src/site/object";
import { rebuildCounts } from "../src/site/sync/counts";
import { batchBody, memoryText, segmentKey, segmentText, unitKey } from "./data.mjs";

/**
 * Answers at once, with a cheap change to every text (so QA's `unchanged` warning stays quiet
 * and the results look like translations to every check).
 */
const zeroLatencyEngine: Engine = {
  name: "pseudo",
  origin: "mt",
  limits: { maxSegments: 1_000, maxCharacters: 50_000 },
  supports: () => true,
  translate: async (request) => {
    // It accepts texts with their unit context (bench i part 2) and counts them, so a run
    // can tell whether context was sent.
    for (const s of request.segments) if (s.context) contextualSegments++;
    engineTexts += request.segments.length;
    engineRequests++;
    return request.segments.map((s) => s.text.replace(/e/g, "é"));
  },
};
/** Segments the zero-latency engine received with a context (since the object started). */
let contextualSegments = 0;
/** Texts and requests the zero-latency engine received (since the object started). */
let engineTexts = 0;
let engineRequests = 0;

export interface SeedOptions {
  /** Unit keys are `${prefix}000000`, `${prefix}000001`, … */
  prefix: string;
  units: number;
  segmentsPerUnit: number;
  /**
   * none: every segment missing in every language.
   * mixed: per (segment, language) ok, review, stale or missing in turn (every unit needs work).
   * results: every (segment, language) has a pending result and a translation in review.
   */
  translations: "none" | "mixed" | "results";
}

/** A batch as bench/data.mjs makes it. */
export interface BatchSpec {
  prefix: string;
  units: number;
  segmentsPerUnit: number;
}

/** p50, p99, max and count of event-loop lag samples. */
function lagFigures(lags: number[]) {
  const sorted = [...lags].sort((a, b) => a - b);
  const at = (p: number) => Math.round(sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0);
  return { p50: at(0.5), p99: at(0.99), max: Math.round(sorted.at(-1) ?? 0), count: sorted.length };
}

export class BenchSiteObject extends SiteObject {
  private staged: UnitSnapshot[] = [];

  /** The bench drives jobs itself (runJob), so an alarm set by POST /v1/jobs must not race it. */
  override async alarm() {}

  private settings(): SiteSettings {
    const settings = this.store.getMeta<SiteSettings>("settings");
    if (!settings) throw new Error("the site has no settings yet: handshake through the API first");
    return settings;
  }

  /** Fills the site with bulk SQL, then builds its counts with the real rebuildCounts. */
  /**
   * Fills the memory (en → de) with `entries` reviewed entries (bench i): source texts as
   * bench/data.mjs makes them (`memoryText(u)`, or `segmentText(u, 0)` for `common`), indexed
   * by the real triggers. Answers the index's size in rows.
   */
  async seedMemory(entries: number, common = false) {
    const now = new Date().toISOString();
    const store = this.store;
    for (let from = 0; from < entries; from += 10_000) {
      store.tx(() => {
        for (let u = from; u < Math.min(entries, from + 10_000); u++) {
          const text = common ? segmentText(u, 0) : memoryText(u);
          store.run(
            "INSERT INTO memory (source_fingerprint, source_language, target_language, text, origin, updated_at, source_text) VALUES (?, 'en', 'de', ?, 'approved', ?, ?)",
            fingerprint(text),
            text.replace(/e/g, "é"),
            now,
            text,
          );
        }
      });
    }
    return store.one<{ n: number }>("SELECT count(*) AS n FROM memory_fts")!.n;
  }

  /**
   * The fuzzy index merged as production does it after a bulk write (bench i): the alarm need
   * `memory_merge` that a memory write registers once the memory has grown enough, run here
   * step by step to its end (each step is one alarm run in production). Answers the steps run.
   */
  async mergeMemory() {
    if (!indexNeedsMerge(this.store)) return 0;
    let steps = 1;
    while (mergeMemoryIndex(this.store).more) steps++;
    return steps;
  }

  /**
   * The fuzzy look-up of one slice's texts (bench i), without the per-call budget (the bench measures the search and
   * what it finds, not the guard): answers how many texts got at least one match.
   */
  async fuzzySlice(texts: string[]) {
    return fuzzyMatches(this.store, "en", "de", texts, undefined, { ms: Number.POSITIVE_INFINITY }).filter((m) => m.length > 0).length;
  }

  async seed(opts: SeedOptions) {
    const settings = this.settings();
    const targets = settings.targetLanguages.map((t) => t.code);
    const now = new Date().toISOString();
    const store = this.store;
    store.tx(() => {
      for (let u = 0; u < opts.units; u++) {
        const key = unitKey(opts.prefix, u);
        const unitId = store.one<{ id: number }>(
          `INSERT INTO units (external_key, adapter, label, path, last_synced_at) VALUES (?, 'wordpress', ?, ?, ?) RETURNING id`,
          key,
          `Post ${u}`,
          `/posts/${u}`,
          now,
        )!.id;
        for (let s = 0; s < opts.segmentsPerUnit; s++) {
          const text = segmentText(u, s);
          store.run(
            `INSERT INTO segments (unit_id, key, text, fingerprint, characters, format, position) VALUES (?, ?, ?, ?, ?, 'plain', ?)`,
            unitId,
            segmentKey(s),
            text,
            fingerprint(text),
            characters(text),
            s,
          );
        }
      }
      const languages = JSON.stringify(targets);
      if (opts.translations === "mixed")
        store.run(
          `INSERT INTO translations (segment_id, language, text, source_fingerprint, status, origin, engine, qa, updated_at)
           SELECT s.id, l.value, s.text,
             CASE WHEN (s.id + l.key) % 4 = 2 THEN 'stale' ELSE s.fingerprint END,
             CASE WHEN (s.id + l.key) % 4 = 1 THEN 'review' ELSE 'ok' END, 'mt', 'pseudo', '[]', ?2
           FROM segments s CROSS JOIN json_each(?1) l WHERE (s.id + l.key) % 4 <> 3`,
          languages,
          now,
        );
      if (opts.translations === "results") {
        store.run(
          `INSERT INTO results (segment_id, unit_id, language, text, source_fingerprint, origin, engine, qa, created_at, pending)
           SELECT s.id, s.unit_id, l.value, replace(s.text, 'e', 'é'), s.fingerprint, 'mt', 'pseudo', '[]', ?2, 1
           FROM segments s CROSS JOIN json_each(?1) l ORDER BY s.id, l.key`,
          languages,
          now,
        );
        store.run(
          `INSERT INTO translations (segment_id, language, text, source_fingerprint, status, origin, engine, result_id, qa, updated_at)
           SELECT segment_id, language, text, source_fingerprint, 'review', origin, engine, id, qa, created_at FROM results WHERE pending = 1`,
        );
      }
      rebuildCounts(store, targets);
    });
    return this.sizes();
  }

  /** Row counts and the range of pending result ids (for cursors into deep pages). */
  async sizes() {
    const count = (table: string) => this.store.one<{ n: number }>(`SELECT count(*) AS n FROM ${table}`)!.n;
    const pending = this.store.one<{ min: number | null; max: number | null }>("SELECT min(id) AS min, max(id) AS max FROM results WHERE pending = 1")!;
    return {
      units: count("units"),
      segments: count("segments"),
      translations: count("translations"),
      results: count("results"),
      pendingIds: pending,
    };
  }

  /** EXPLAIN QUERY PLAN of a query on this site's storage (for reading a slow figure). */
  async explain(query: string, ...args: unknown[]) {
    return this.store.all<{ detail: string }>(`EXPLAIN QUERY PLAN ${query}`, ...args).map((r) => r.detail);
  }

  /**
   * Makes the batch of PUT /v1/units/batch (same generator, same units) and keeps it in the
   * object, so the next call times the push alone. Made here rather than sent: a large
   * argument from Node travels through Miniflare's proxy as a stream.
   */
  async stageBatch(batch: BatchSpec): Promise<number> {
    this.staged = batchBody(batch.prefix, batch.units, batch.segmentsPerUnit).units as UnitSnapshot[];
    return this.staged.length;
  }

  /** The real pushBatch on the staged units; answers a summary instead of 100 SyncResults. */
  async pushStaged() {
    const items = await this.pushBatch(this.settings(), { units: this.staged });
    if (!Array.isArray(items)) throw new Error(`pushBatch failed: ${JSON.stringify(items)}`);
    const sum = (f: "added" | "unchanged" | "changed") => items.reduce((n, i) => n + (i.result?.[f] ?? 0), 0);
    return { ok: items.filter((i) => i.ok).length, added: sum("added"), changed: sum("changed"), unchanged: sum("unchanged") };
  }

  /**
   * Bench i part 2: reads the unit context (src/site/jobs/neighbours.ts) of the site's first
   * `items` segments, as the first language's slice of that many texts does (nothing kept yet),
   * `repeat` times; answers how many contexts the last read made. Timed from Node: the slice's
   * added cost without the job's noise.
   */
  async contextRead(items: number, repeat: number) {
    const rows = this.store.all<ContextItem>("SELECT id AS segment_id, unit_id FROM segments ORDER BY id LIMIT ?", items);
    let made = 0;
    for (let i = 0; i < repeat; i++) made = new UnitContexts(this.store).of(rows).size;
    return made;
  }

  /**
   * Runs the queued jobs with the real runJobs and the zero-latency engine, for about
   * `budgetMs` (runJobs checks its budget between slices; the clock moves on the slices' D1
   * calls) or to the end; answers the latest job's progress. `context` false runs it with
   * engine context off (RunnerDeps.engineContext), for bench i part 2. `lag` measures the event
   * loop's lag meanwhile; the measuring costs the job about 15 % (bench d), so a run whose time
   * counts leaves it off.
   */
  async runJob(budgetMs = Number.POSITIVE_INFINITY, context = true, lag = false) {
    // BENCH_TURNS=off: each turn is a settled promise instead, which lets nothing in (what the turns cost the job).
    const turnsOn = (this.env as unknown as { BENCH_TURNS?: string }).BENCH_TURNS !== "off";
    const contextualBefore = contextualSegments;
    const textsBefore = engineTexts;
    const requestsBefore = engineRequests;
    // The runner's turns, seen through its seam: how many, and the longest time between two (the clock moves only across turns and I/O).
    const turns = { count: 0, waitedMs: 0, longestMs: 0, gaps: [] as number[], longestByStep: {} as Record<string, number> };
    let resumed = Date.now();
    const nextTurn = async (at: string) => {
      turns.count++;
      const waitFrom = performance.now();
      await (turnsOn ? scheduler.wait(0) : Promise.resolve());
      turns.waitedMs += performance.now() - waitFrom;
      const now = Date.now();
      turns.gaps.push(now - resumed);
      turns.longestMs = Math.max(turns.longestMs, now - resumed);
      turns.longestByStep[at] = Math.max(turns.longestByStep[at] ?? 0, now - resumed);
      resumed = now;
    };
    const deps = { store: this.store, env: this.env, settings: this.settings(), engineFor: () => zeroLatencyEngine, nextTurn, engineContext: context };
    // The event loop's lag while the job runs: a timer set again as soon as it fires, late by as long as the loop was busy
    // (what a request waits for at each of its hops into the object's thread).
    const lags: number[] = [];
    let running = lag;
    const heartbeat = (async () => {
      while (running) {
        const from = performance.now();
        await scheduler.wait(0);
        lags.push(performance.now() - from);
      }
    })();
    const more = await runJobs(deps, budgetMs).finally(() => {
      running = false;
    });
    await heartbeat;
    if (!more && currentJob(this.store)) throw new Error("runJobs stopped with a job still queued or running");
    const job = this.store.one<{ id: number; status: string; done_segments: number; failed_segments: number; errors: string; slices: number }>(
      "SELECT id, status, done_segments, failed_segments, errors, slices FROM jobs ORDER BY id DESC LIMIT 1",
    )!;
    const sorted = turns.gaps.sort((a, b) => a - b);
    return {
      ...job,
      contextual: contextualSegments - contextualBefore,
      engineTexts: engineTexts - textsBefore,
      engineRequests: engineRequests - requestsBefore,
      turns: turns.count,
      /** Wall time spent inside the turns' waits (several chains may wait at once: not a sum of idle time). */
      waitedMs: Math.round(turns.waitedMs),
      longestTurnGapMs: turns.longestMs,
      p99TurnGapMs: sorted[Math.floor(sorted.length * 0.99)] ?? 0,
      longestByStep: turns.longestByStep,
      /** Event-loop lag samples (ms) while the job ran, when asked for: p50, p99, max and count. */
      lag: lag ? lagFigures(lags) : undefined,
    };
  }

  /**
   * Scenario f: runs the queued job with the real runJobs and the real pseudo engine waiting
   * `latencyMs` per request of up to 50 texts (as PSEUDO_LATENCY_MS makes it), engine
   * concurrency as configured (ENGINE_CONCURRENCY_PSEUDO, default 8).
   */
  async runJobWithLatency(latencyMs: number, budgetMs = Number.POSITIVE_INFINITY) {
    const engine = createPseudoEngine({ latencyMs });
    const deps = { store: this.store, env: this.env, settings: this.settings(), engineFor: () => engine };
    await runJobs(deps, budgetMs);
    return this.store.one<{ id: number; status: string; done_segments: number; failed_segments: number; slices: number }>(
      "SELECT id, status, done_segments, failed_segments, slices FROM jobs ORDER BY id DESC LIMIT 1",
    )!;
  }

  /** Scenario g: the estimate of a delta job over the whole site, as POST /v1/jobs computes it (object side only). */
  async estimateAll() {
    const settings = this.settings();
    const languages = settings.targetLanguages.map((t) => t.code);
    return estimateScope(this.store, settings, scopeOf({ type: "delta", force: false } as never), languages);
  }

  /**
   * Scenario g: one alarm invocation of the real runner with no slice (maxSlices 0): the
   * queued job starts (estimate, subscription check, reservation) and fixes its items in chunks for
   * the invocation's budget; answers the job's status and scope cursor.
   */
  async startStep(budgetMs: number) {
    const deps = { store: this.store, env: this.env, settings: this.settings(), engineFor: () => zeroLatencyEngine };
    await runJobs(deps, { budgetMs, maxSlices: 0 });
    return this.store.one<{ id: number; status: string; scope_cursor: number | null }>("SELECT id, status, scope_cursor FROM jobs ORDER BY id DESC LIMIT 1")!;
  }

  /** The items fixed so far (counted apart from startStep, whose time is the invocation's alone). */
  async jobItems(jobId: number) {
    return this.store.one<{ n: number }>("SELECT count(*) AS n FROM job_items WHERE job_id = ?", jobId)!.n;
  }
}
