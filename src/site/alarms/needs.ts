/**
 * The site object's timed needs (scheduler.ts): when each is due and what runs when it is.
 * Requests register a need (`scheduleRun` after a job request, `memoryWritten` after a write to
 * the memory, `scheduleRetention` after something may expire); the alarm runs the due ones
 * through `handlers`. Every time here is "now" in production; tests that drive alarms
 * themselves (JOB_ALARM_DELAY_MS) get the job's run first and every other need behind it, so the
 * alarm a test runs for its job runs the job.
 */
import type { SiteSettings } from "../../control/sites.control";
import type { Deps } from "../../deps";
import { orgMemory } from "../../memory/stub";
import { log } from "../../obs/log";
import type { Emit } from "../../webhooks/emit";
import { unsettledJobs } from "../jobs/jobs";
import { currentJob, runAlarm } from "../jobs/runner";
import { backfillMemorySourceText, indexNeedsMerge, mergeMemoryIndex } from "../memory/entries";
import { runMemoryShare, shareWaiting } from "../memory/share";
import { nextRetentionAt, type RetentionRun, runRetention } from "../results/retention";
import type { Store } from "../store";
import type { AlarmScheduler, Handler, Need } from "./scheduler";

/** Retention's next look when an expired item could not be purged yet (a unit waiting for its job to finish). */
const RETENTION_RECHECK_MS = 3_600_000;

export class SiteNeeds {
  constructor(
    private readonly store: Store,
    private readonly alarms: AlarmScheduler,
    /** Read at each use: the object's `env` may be replaced after construction (tests hand engine secrets to a live object). */
    private readonly envOf: () => Env,
    private readonly deps: Deps,
  ) {}

  private get env(): Env {
    return this.envOf();
  }

  /** The handler of each need, for the alarm that runs them (`adopt` gives the settings the object holds now). */
  handlers(settings: SiteSettings, adopt: (s: SiteSettings) => SiteSettings, emit: Emit): Record<Need, Handler> {
    return {
      jobs: async () => {
        // Suspended by the operator: the jobs stop here; resuming (applySettings) makes the need due again.
        if (adopt(settings).suspended) return null;
        const delay = await runAlarm({ store: this.store, env: this.env, settings, emit, sleep: this.deps.sleep });
        // The job's commits superseded results: retention purges them in 30 days.
        await this.scheduleRetention();
        return delay === null ? null : this.runAt() + delay;
      },
      retention: async () => this.retentionDue(this.retain()),
      memory_share: async () => {
        const next = await runMemoryShare(this.store, settings, orgMemory(this.env, settings.organizationId));
        return next === null ? null : Math.max(next, this.behindJobs());
      },
      // The back-fill of the memory's source texts (and so the fuzzy index), one bounded step per run; then the index is merged.
      memory_index: async () => {
        if (backfillMemorySourceText(this.store, settings.sourceLanguage).more) return this.runAt();
        await this.alarms.schedule("memory_merge", this.behindJobs(), { onlyEarlier: true });
        return null;
      },
      // The fuzzy index merged into one b-tree in bounded steps (memory/entries.ts, mergeMemoryIndex).
      memory_merge: async () => (mergeMemoryIndex(this.store).more ? this.behindJobs() : null),
    };
  }

  // ------------------------------------------------------------------ jobs

  /**
   * Makes sure the job need is due now while a job is queued or running or a cancelled one is
   * to be settled (also repairs a lost alarm). Only ever brings it forward: a running job's
   * next step is not pushed back.
   */
  async scheduleRun() {
    if (!currentJob(this.store) && !unsettledJobs(this.store).length) return;
    await this.alarms.schedule("jobs", this.runAt(), { onlyEarlier: true });
  }

  /** Jobs run as soon as possible; tests set JOB_ALARM_DELAY_MS to drive alarms themselves. */
  private runAt() {
    return Date.now() + Number(this.env.JOB_ALARM_DELAY_MS ?? 0);
  }

  /** The memory's needs: now, or in tests behind any job run registered meanwhile (twice the delay). */
  private behindJobs() {
    return Date.now() + 2 * Number(this.env.JOB_ALARM_DELAY_MS ?? 0);
  }

  // ------------------------------------------------------------------ memory

  /**
   * After a call that wrote to the memory: its copy to the organization's (memory/share.ts) and,
   * once the fuzzy index has grown enough, its merge, both in the alarm, never in the request:
   * the organization's object being slow or down does not touch the caller's answer.
   */
  async memoryWritten() {
    await this.shareSoon();
    if (indexNeedsMerge(this.store)) await this.alarms.schedule("memory_merge", this.behindJobs(), { onlyEarlier: true });
  }

  /** Registers the memory_share need when a change to the memory waits to be copied to the organization's. */
  async shareSoon() {
    if (!shareWaiting(this.store)) return;
    await this.alarms.schedule("memory_share", this.behindJobs(), { onlyEarlier: true });
  }

  // ------------------------------------------------------------------ retention

  /** Registers retention's next time after something may have given it work (a deleted unit, a superseded result). */
  async scheduleRetention() {
    const at = this.retentionDue();
    if (at !== null) await this.alarms.schedule("retention", at, { onlyEarlier: true });
  }

  /** One bounded run of retention (results/retention.ts). */
  private retain(): RetentionRun {
    const run = runRetention(this.store);
    if (run.units || run.segments || run.results) log("info", "retention.purged", { units: run.units, segments: run.segments, results: run.results, more: run.more });
    return run;
  }

  /**
   * When retention is next due: at once when a run stopped at its bound, otherwise when the
   * next item expires (null: nothing waits). Never before a job's own next run in tests.
   */
  private retentionDue(after?: RetentionRun): number | null {
    const due = nextRetentionAt(this.store);
    if (!after?.more && !due) return null;
    let delay = after?.more ? 0 : due!.getTime() - this.store.clock().getTime();
    // Due but not purged: look again later, not in a loop.
    if (!after?.more && delay <= 0 && after) delay = RETENTION_RECHECK_MS;
    return Math.max(Date.now() + delay, this.runAt());
  }
}
