/**
 * SiteObject: one Durable Object per site, addressed by the site id from the API key.
 * A thin façade: each RPC method adopts the caller's view of the site's settings and
 * delegates to a domain module that works on the object's SQLite storage.
 */
import { DurableObject } from "cloudflare:workers";
import { drizzle } from "drizzle-orm/durable-sqlite";
import { migrate } from "drizzle-orm/durable-sqlite/migrator";
import migrations from "../../migrations/site/migrations.js";
import type { AttentionDecision, BatchItem, JobRequest, Review, UnitSnapshot } from "../api/schemas";
import { release, reserve } from "../billing/billing";
import { now } from "../clock";
import { controlDb } from "../control/db";
import type { SiteSettings } from "../control/sites";
import { toRpcFailure, type RpcFailure } from "../errors";
import { rebuildCounts } from "./counts";
import { getSiteInfo, handshake } from "./handshake";
import { cancelJob, createJob, estimateScope, getJob, jobLanguages, jobOut, listJobs, scopeOf, type ScopeEstimate } from "./jobs";
import { acknowledge, applyReviews, decideAttention, listAttention, listResults, seedResultSequence } from "./results";
import { currentJob, runAlarm } from "./runner";
import { capabilities, siteTargets } from "./settings";
import { siteStatus, unitStatus, unitsWithWork, type Links } from "./status";
import { Store } from "./store";
import { deleteUnit, pushUnit } from "./sync";

export class SiteObject extends DurableObject<Env> {
  readonly store: Store;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.store = new Store(ctx.storage, now);
    ctx.blockConcurrencyWhile(async () => {
      await migrate(drizzle(ctx.storage), migrations);
    });
  }

  /** Runs a domain call with the caller's settings; domain errors cross RPC as marked messages. */
  private async call<T>(settings: SiteSettings, fn: () => T | Promise<T>): Promise<T> {
    try {
      this.adopt(settings);
      return await fn();
    } catch (err) {
      // Typed as T for callers: the Worker's stub wrapper turns the failure back into an ApiError.
      return toRpcFailure(err) as RpcFailure as T;
    }
  }

  /** Stores the settings for the alarm to use; a change of target languages rebuilds the counts. */
  private adopt(settings: SiteSettings) {
    const previous = this.store.getMeta<SiteSettings>("settings");
    if (previous && JSON.stringify(previous) === JSON.stringify(settings)) return;
    this.store.tx(() => {
      if (!previous) seedResultSequence(this.store, settings.id);
      this.store.setMeta("settings", settings);
      const codes = (s: SiteSettings | undefined) => JSON.stringify(s?.targetLanguages.map((t) => t.code) ?? []);
      if (codes(previous) !== codes(settings)) rebuildCounts(this.store, siteTargets(settings));
    });
  }

  private links(settings: SiteSettings): Links {
    return { dashboardUrl: this.env.DASHBOARD_URL ?? "", siteId: settings.id };
  }

  async site(settings: SiteSettings) {
    return this.call(settings, () => getSiteInfo(this.store, settings));
  }

  async handshake(settings: SiteSettings, input: Parameters<typeof handshake>[2]) {
    return this.call(settings, () => handshake(this.store, settings, input));
  }

  async pushUnit(settings: SiteSettings, snapshot: UnitSnapshot) {
    return this.call(settings, () => pushUnit(this.store, settings, snapshot));
  }

  /**
   * Applies a batch's valid units, each on its own: a unit that fails is reported and the
   * others go on. Large bodies come as an R2 key (written by the Worker), deleted once applied.
   */
  async pushBatch(settings: SiteSettings, batch: { units: UnitSnapshot[] } | { blobKey: string }): Promise<BatchItem[]> {
    return this.call(settings, async () => {
      let units: UnitSnapshot[];
      if ("blobKey" in batch) {
        const object = await this.env.BLOBS.get(batch.blobKey);
        if (!object) throw new Error(`batch body ${batch.blobKey} is missing from R2`);
        units = ((await object.json()) as { units: UnitSnapshot[] }).units;
      } else units = batch.units;
      const results = units.map((unit): BatchItem => {
        try {
          return { external_key: unit.external_key, ok: true, result: pushUnit(this.store, settings, unit), error: null };
        } catch (err) {
          console.error(JSON.stringify({ level: "error", message: "unit push failed", unit: unit.external_key, error: String(err) }));
          return { external_key: unit.external_key, ok: false, result: null, error: "The unit could not be stored; retry it. If it keeps failing, contact support." };
        }
      });
      if ("blobKey" in batch) await this.env.BLOBS.delete(batch.blobKey);
      return results;
    });
  }

  async deleteUnit(settings: SiteSettings, externalKey: string) {
    return this.call(settings, () => deleteUnit(this.store, settings, externalKey));
  }

  async status(settings: SiteSettings, prefix: string, glossaryTerms: number) {
    return this.call(settings, () => siteStatus(this.store, settings, prefix, glossaryTerms));
  }

  async unitsWithWork(settings: SiteSettings, query: Parameters<typeof unitsWithWork>[3]) {
    return this.call(settings, () => unitsWithWork(this.store, settings, this.links(settings), query));
  }

  async unitStatus(settings: SiteSettings, externalKey: string) {
    return this.call(settings, () => unitStatus(this.store, settings, this.links(settings), externalKey));
  }

  // ------------------------------------------------------------------ jobs

  async estimateJob(settings: SiteSettings, request: JobRequest): Promise<ScopeEstimate> {
    return this.call(settings, () => estimateScope(this.store, settings, scopeOf(request), jobLanguages(this.store, settings, request.languages)));
  }

  async createJob(settings: SiteSettings, request: JobRequest, opts: { estimate: ScopeEstimate; confirmedCharacters: number | null }) {
    return this.call(settings, async () => {
      const job = createJob(this.store, scopeOf(request), opts.estimate, opts.confirmedCharacters);
      await reserve(controlDb(this.env.DB), settings, job.id, job.estimated_characters, job.created_at);
      await this.scheduleRun();
      return jobOut(job);
    });
  }

  async listJobs(settings: SiteSettings, active: boolean) {
    return this.call(settings, async () => {
      await this.scheduleRun();
      return listJobs(this.store, active);
    });
  }

  async getJob(settings: SiteSettings, id: number) {
    return this.call(settings, async () => {
      await this.scheduleRun();
      return jobOut(getJob(this.store, id));
    });
  }

  async cancelJob(settings: SiteSettings, id: number) {
    return this.call(settings, async () => {
      const job = cancelJob(this.store, id);
      if (job.status === "cancelled") await release(controlDb(this.env.DB), settings.id, [id]);
      return jobOut(job);
    });
  }

  /** Makes sure an alarm is set while a job is queued or running (also repairs a lost alarm). */
  private async scheduleRun() {
    if (!currentJob(this.store)) return;
    if ((await this.ctx.storage.getAlarm()) === null) await this.ctx.storage.setAlarm(this.nextRunAt());
  }

  /** Jobs run as soon as possible; tests set JOB_ALARM_DELAY_MS to drive alarms themselves. */
  private nextRunAt() {
    return Date.now() + Number(this.env.JOB_ALARM_DELAY_MS ?? 0);
  }

  /**
   * Runs the site's jobs (runner.ts decides what runs next). Faults never escape: the runner
   * answers a back-off delay instead, so an alarm stays set while a job has work and no job
   * depends on a client request to continue.
   */
  override async alarm() {
    const settings = this.store.getMeta<SiteSettings>("settings");
    if (!settings) return;
    const delay = await runAlarm({ store: this.store, env: this.env, settings });
    if (delay !== null) await this.ctx.storage.setAlarm(this.nextRunAt() + delay);
  }

  // ------------------------------------------------------------------ results

  async results(settings: SiteSettings, query: { cursor?: string; limit: number; unit?: string }) {
    return this.call(settings, () => listResults(this.store, query, capabilities(this.store).has("whole_unit")));
  }

  async acknowledge(settings: SiteSettings, ids: string[]) {
    return this.call(settings, () => acknowledge(this.store, ids));
  }

  async reviews(settings: SiteSettings, reviews: Review[]) {
    return this.call(settings, () => applyReviews(this.store, settings, reviews));
  }

  async attention(settings: SiteSettings, query: { cursor?: string; limit: number }) {
    return this.call(settings, () => listAttention(this.store, this.links(settings), query));
  }

  async decideAttention(settings: SiteSettings, id: string, decision: AttentionDecision) {
    return this.call(settings, () => decideAttention(this.store, settings, id, decision));
  }
}
