/**
 * SiteObject: one Durable Object per site, addressed by the site id from the API key.
 * A thin façade: each RPC method adopts the caller's view of the site's settings and
 * delegates to a domain module that works on the object's SQLite storage.
 */
import { DurableObject } from "cloudflare:workers";
import { drizzle } from "drizzle-orm/durable-sqlite";
import { migrate } from "drizzle-orm/durable-sqlite/migrator";
import migrations from "../../migrations/site/migrations.js";
import type { AttentionDecision } from "../api/admin.schemas";
import type { BatchItem, JobRequest, Review, UnitSnapshot, UnitStatusInclude } from "../api/schemas";
import { release } from "../billing/metering";
import { controlDb } from "../control/db";
import type { SiteSettings } from "../control/sites.control";
import { type Deps, type PointInTime, PRODUCTION_DEPS, storagePointInTime } from "../deps";
import type { GlossaryTerm } from "../engines/types";
import { ApiError, type RpcFailure, toRpcFailure, unauthorized } from "../errors";
import { type LogFields, withLogContext } from "../obs/log";
import { type Emit, emitter } from "../webhooks/emit";
import type { CoalescedType } from "../webhooks/events";
import { SiteNeeds } from "./alarms/needs";
import { AlarmScheduler } from "./alarms/scheduler";
import { eraseStorage, wasErased } from "./erase";
import { HeldSettings } from "./held-settings";
import { jobCreated, jobFinished } from "./jobs/events";
import { ensureGlossary, glossaryCount, replaceGlossary } from "./jobs/glossary-copy";
import { cancelJob, checkJobUnits, createJob, getJob, jobLanguages, jobOut, listJobs, type MarkedEstimate, markedEstimate, markJob, reserveJob } from "./jobs/jobs";
import { type ScopeEstimate, scopeOf } from "./jobs/scope";
import { estimateWithShared } from "./jobs/shared-hits";
import { deleteMemoryEntry, editMemoryEntry, exportMemoryPage, getMemoryEntry, importMemoryInTurns, listMemory, type MemoryKey, memoryPairs } from "./memory/admin";
import type { MemorySearch } from "./memory/search";
import type { TmxTranslation } from "./memory/tmx";
import { NO_PITR, restorePreview, settleRestore } from "./restore";
import { acknowledge, applyReviews, decideAttention, listAttention, listResults } from "./results/results";
import { attentionCreated, resultsAvailable } from "./results/webhook-data";
import { capabilities } from "./settings";
import { diagnostics, guardStorage, reportStorage, storageBytes } from "./storage";
import { Store } from "./store";
import { applyBatch, type BatchBody, readBatch } from "./sync/batch";
import { connectorInfo, getSiteInfo, handshake } from "./sync/handshake";
import { sourceTexts } from "./sync/source-texts";
import { type Links, siteStatus, unitStatus, unitsWithWork } from "./sync/status";
import { deleteUnit, pushUnchanged, pushUnit } from "./sync/sync";
import { listUnits } from "./sync/unit-list";
import { unitTexts } from "./sync/unit-texts";

/** Methods `invoke` refuses: the runtime's handlers and the door itself. */
const NOT_INVOKED = new Set(["invoke", "alarm", "fetch", "webSocketMessage", "webSocketClose", "webSocketError", "constructor"]);

/** What a suspended site's callers are told (its keys in src/auth.ts, a job request from the dashboard here). */
export const suspendedError = (reason: string) => new ApiError(403, `site suspended: ${reason}; contact support`);

export class SiteObject extends DurableObject<Env> {
  readonly store: Store;
  /** The object's one alarm, shared by its timed needs (jobs, retention). */
  readonly alarms: AlarmScheduler;
  /** When each timed need is due and what runs when it is (alarms/needs.ts). */
  private readonly needs: SiteNeeds;
  /** The newest settings the object has seen (held-settings.ts). */
  private readonly held: HeldSettings;
  /** The site was erased (src/control/erasure.control.ts): its storage holds only this mark, and every call is refused. */
  private erased = false;
  /** The latest estimate of a job request (POST /v1/jobs estimates, then creates): its job's start may take it as it is (jobs.ts, markJob). */
  private latestEstimate?: MarkedEstimate;

  /** The runtime constructs it with production's clock and sleep; tests subclass it with theirs (test/worker.ts). */
  constructor(
    ctx: DurableObjectState,
    env: Env,
    private readonly deps: Deps = PRODUCTION_DEPS,
  ) {
    super(ctx, env);
    this.store = new Store(ctx.storage, deps.clock);
    this.alarms = new AlarmScheduler(this.store, ctx.storage);
    this.needs = new SiteNeeds(this.store, this.alarms, () => this.env, deps);
    this.held = new HeldSettings(this.store);
    ctx.blockConcurrencyWhile(async () => {
      this.erased = await wasErased(ctx.storage);
      if (!this.erased) await migrate(drizzle(ctx.storage), migrations);
      // Migration 0006 registers the memory's back-fill for a site that has entries: its alarm is armed here.
      if (!this.erased && this.alarms.dueAt("memory_index") !== null) await this.alarms.arm();
    });
  }

  /**
   * The door of src/site/stub.ts: a call of one of the object's methods inside the caller's log
   * context (its request id), so every line the call writes carries it. Only the object's own
   * public methods, never the runtime's handlers.
   */
  async invoke(context: LogFields, method: string, args: unknown[]): Promise<unknown> {
    const fn = (this as unknown as Record<string, unknown>)[method];
    if (NOT_INVOKED.has(method) || method.startsWith("_") || typeof fn !== "function" || !(method in SiteObject.prototype)) throw new Error(`SiteObject has no method ${method}`);
    return withLogContext(context, () => (fn as (...a: unknown[]) => Promise<unknown>).apply(this, args));
  }

  /**
   * Runs a domain call with the site's current settings: the caller's, unless the object has
   * seen a newer version (then the call runs with those). Domain errors cross RPC as marked messages.
   */
  private async call<T>(settings: SiteSettings, fn: (settings: SiteSettings) => T | Promise<T>): Promise<T> {
    try {
      // A key cached in another isolate may still name an erased site for a few seconds.
      if (this.erased) throw unauthorized("The API key is not valid (unknown, malformed or revoked).");
      const adopted = this.held.adopt(settings);
      return await withLogContext({ site_id: adopted.id, org_id: adopted.organizationId }, async () => {
        if (this.held.shareChanged) {
          this.held.shareChanged = false;
          await this.needs.shareSoon();
        }
        return await fn(adopted);
      });
    } catch (err) {
      // Typed as T for callers: the Worker's stub wrapper turns the failure back into an ApiError.
      return toRpcFailure(err) as RpcFailure as T;
    }
  }

  /** Pushed by `updateSiteSettings` right after D1 changed, so the change is effective at once. */
  async applySettings(settings: SiteSettings) {
    return this.call(settings, async (s) => {
      // Resumed (or never suspended): a job that waited is due again.
      if (!s.suspended) await this.needs.scheduleRun();
      return { version: s.version };
    });
  }

  /** The latest handshake as the admin API and the dashboard show it (null before one). */
  async connector(settings: SiteSettings) {
    return this.call(settings, () => connectorInfo(this.store));
  }

  /** Dashboard links: the Worker passes its base (DASHBOARD_URL, or its own origin + /dashboard). */
  private links(settings: SiteSettings, dashboardUrl?: string): Links {
    return { dashboardUrl: dashboardUrl ?? this.env.DASHBOARD_URL ?? "", siteId: settings.id };
  }

  async site(settings: SiteSettings) {
    return this.call(settings, (settings) => getSiteInfo(this.store, settings));
  }

  async handshake(settings: SiteSettings, input: Parameters<typeof handshake>[2]) {
    return this.call(settings, (settings) => handshake(this.store, settings, input));
  }

  async pushUnit(settings: SiteSettings, snapshot: UnitSnapshot) {
    return this.call(settings, async (settings) => {
      guardStorage(this.store, this.env, JSON.stringify(snapshot).length);
      const result = pushUnit(this.store, settings, snapshot);
      // Imported translations went into the memory.
      await this.needs.memoryWritten();
      return result;
    });
  }

  /** A batch's valid units, each on its own: a unit that fails is reported and the others go on (sync/batch.ts). */
  async pushBatch(settings: SiteSettings, body: BatchBody): Promise<BatchItem[]> {
    return this.call(settings, async (settings) => {
      const batch = await readBatch(this.env, settings, body);
      guardStorage(this.store, this.env, batch.bytes);
      const results = applyBatch(this.store, settings, batch);
      if ("blobKey" in body) await this.env.BLOBS.delete(body.blobKey);
      // Imported translations went into the memory.
      await this.needs.memoryWritten();
      return results;
    });
  }

  /** The batch's units whose snapshot is the one last applied, answered as unchanged (see `pushUnchanged`). */
  async pushUnchanged(settings: SiteSettings, units: { external_key: string; digest: string }[]) {
    return this.call(settings, () => [...pushUnchanged(this.store, units).values()]);
  }

  async deleteUnit(settings: SiteSettings, externalKey: string) {
    return this.call(settings, async (settings) => {
      deleteUnit(this.store, settings, externalKey);
      await this.needs.scheduleRetention();
    });
  }

  async status(settings: SiteSettings, prefix: string) {
    return this.call(settings, async (settings) => {
      await ensureGlossary(this.store, this.env, settings);
      return siteStatus(this.store, settings, prefix, glossaryCount(this.store));
    });
  }

  /** The organization's glossary changed (pushed by `pushGlossary` after D1 was written). */
  async applyGlossary(terms: GlossaryTerm[]) {
    replaceGlossary(this.store, terms, Date.now());
  }

  async unitsWithWork(settings: SiteSettings, query: Parameters<typeof unitsWithWork>[3], dashboardUrl?: string) {
    return this.call(settings, (settings) => unitsWithWork(this.store, settings, this.links(settings, dashboardUrl), query));
  }

  async unitStatus(settings: SiteSettings, externalKey: string, dashboardUrl?: string, include?: UnitStatusInclude[]) {
    return this.call(settings, (settings) => unitStatus(this.store, settings, this.links(settings, dashboardUrl), externalKey, new Set(include)));
  }

  /** The dashboard's Units page with every unit (GET /v1/units lists only those with work). */
  async listUnits(settings: SiteSettings, query: { prefix: string; cursor?: string; limit: number }) {
    return this.call(settings, (settings) => listUnits(this.store, settings, query));
  }

  /** POST /v1/units/texts: the source texts of up to 100 units (keys that follow edits). */
  async sourceTexts(settings: SiteSettings, keys: string[]) {
    return this.call(settings, () => sourceTexts(this.store, keys));
  }

  /** The dashboard's unit page: each segment's source and per-language text (states and QA come from unitStatus). */
  async unitTexts(settings: SiteSettings, externalKey: string) {
    return this.call(settings, () => unitTexts(this.store, externalKey));
  }

  // ------------------------------------------------------------------ jobs

  async estimateJob(settings: SiteSettings, request: JobRequest): Promise<ScopeEstimate> {
    return this.call(settings, async (settings) => {
      const scope = scopeOf(request);
      checkJobUnits(this.store, scope);
      const languages = jobLanguages(this.store, settings, request.languages);
      // Exact matches in the organization's memory are memory hits too (a forced job takes none).
      this.latestEstimate = await markedEstimate(this.store, settings, scope, languages, (seen) => estimateWithShared(this.store, this.env, settings, scope, languages, seen));
      return this.latestEstimate.estimate;
    });
  }

  async createJob(settings: SiteSettings, request: JobRequest, opts: { estimate: ScopeEstimate; confirmedCharacters: number | null }) {
    return this.call(settings, async (settings) => {
      if (settings.suspended) throw suspendedError(settings.suspended);
      const scope = scopeOf(request);
      // A unit deleted since the estimate: refused here too, so nothing is created.
      checkJobUnits(this.store, scope);
      const job = createJob(this.store, scope, opts.estimate, opts.confirmedCharacters);
      markJob(this.store, settings, job, this.latestEstimate);
      await reserveJob(this.store, controlDb(this.env.DB), settings, job);
      await this.needs.scheduleRun();
      const created = getJob(this.store, job.id);
      jobCreated(this.env, settings, created);
      return jobOut(created);
    });
  }

  async listJobs(settings: SiteSettings, active: boolean) {
    return this.call(settings, async (_settings) => {
      await this.needs.scheduleRun();
      return listJobs(this.store, active);
    });
  }

  async getJob(settings: SiteSettings, id: number) {
    return this.call(settings, async (_settings) => {
      await this.needs.scheduleRun();
      return jobOut(getJob(this.store, id));
    });
  }

  async cancelJob(settings: SiteSettings, id: number, reason: string | null = null) {
    return this.call(settings, async (settings) => {
      const before = getJob(this.store, id).status;
      const job = cancelJob(this.store, id, reason);
      // A queued job's reservation goes at once (it has no commit); a running job is settled once, by the runner, when its
      // commits have landed (jobs.ts, cancelJob): its queued ledger rows are written, then its reservation goes.
      await this.needs.scheduleRun();
      if (job.status === "cancelled" && before === "queued") await release(controlDb(this.env.DB), settings.id, [id]);
      if (job.status === "cancelled" && before !== "cancelled") {
        jobFinished(this.env, settings, job);
        this.emit(settings)({ type: "job.finished", data: jobOut(job) });
      }
      return jobOut(job);
    });
  }

  /** Erases the site's data plane, leaving a mark that refuses every later call (erase.ts). */
  async erase(): Promise<void> {
    this.erased = true;
    // A job's invocation still under way meets a closed store at its next step, and queues nothing more.
    this.store.close();
    await eraseStorage(this.ctx.storage, this.env, this.deps.clock);
  }

  /**
   * Point-in-time recovery (docs/ops/backups.md): the bookmark of the storage at `at`, restored
   * when the object next starts. The caller then ends this session (`endSessionForRestore`), so the
   * next request starts the object on the restored storage. A runtime without it answers 501.
   */
  async restoreTo(settings: SiteSettings, at: number) {
    return this.call(settings, async () => {
      const pitr = (this.deps.pointInTime ?? storagePointInTime)(this.ctx);
      const bookmark = await bookmarkFor(pitr, at);
      // A bookmark of the storage as it is now: restoring it undoes this restore.
      const undo = await pitr.onNextSessionRestoreBookmark(bookmark);
      return { bookmark, undo };
    });
  }

  /** A restore's dry run: what a restore to `at` would change, and whether this runtime can restore at all (src/site/restore.ts). */
  async restorePreview(settings: SiteSettings, at: number) {
    return this.call(settings, async () => {
      const preview = restorePreview(this.store, new Date(at).toISOString());
      try {
        const bookmark = await bookmarkFor((this.deps.pointInTime ?? storagePointInTime)(this.ctx), at);
        return { ...preview, restorable: true, bookmark, detail: null };
      } catch (err) {
        if (!(err instanceof ApiError) || err.status !== 501) throw err;
        return { ...preview, restorable: false, bookmark: null, detail: err.detail };
      }
    });
  }

  /** The restored object's first call: the jobs of the moment restored to are cancelled with `reason`, and job ids D1 has seen are skipped (restore.ts). */
  async afterRestore(settings: SiteSettings, reason: string, minJobId: number) {
    return this.call(settings, async (settings) => {
      const cancelled = settleRestore(this.store, reason, minJobId);
      await this.needs.scheduleRun();
      for (const { before, job } of cancelled) {
        if (before === "cancelled") continue;
        jobFinished(this.env, settings, job);
        this.emit(settings)({ type: "job.finished", data: jobOut(job) });
      }
      return { cancelled: cancelled.map((c) => c.job.id) };
    });
  }

  /** Ends the object's session (its in-memory state and any running invocation): the call itself fails, as the runtime's abort does. */
  async endSessionForRestore(): Promise<void> {
    (this.deps.pointInTime ?? storagePointInTime)(this.ctx).abort("restored to an earlier point in time");
  }

  /**
   * The one alarm (alarms/scheduler.ts): runs the timed needs that are due. Jobs: the runner (runner.ts
   * decides what runs next); faults never escape it, it answers a back-off delay instead, so
   * the need stays due while a job has work and no job depends on a client request to continue.
   * Retention: one bounded run.
   */
  override async alarm() {
    if (this.erased) return;
    const settings = this.store.getMeta<SiteSettings>("settings");
    if (!settings) return;
    await withLogContext({ site_id: settings.id, org_id: settings.organizationId }, () => this.fireAlarm(settings));
  }

  private async fireAlarm(settings: SiteSettings) {
    reportStorage(this.store, this.env, settings);
    await this.alarms.fire(this.needs.handlers(settings, (s) => this.held.adopt(s), this.emit(settings)));
  }

  // ------------------------------------------------------------------ size and diagnostics

  /** The deep health's probe (src/ops/oncall.ops.ts): the object answers; nothing is read or written. */
  async ping() {
    return { ok: true };
  }

  /** The object's storage in bytes (SQLite pages in use, as the platform bills and limits them). */
  storageBytes(): number {
    return storageBytes(this.store);
  }

  /** What the operator reads first about a site (GET /admin/v1/sites/{id}/diagnostics). */
  async diagnostics(settings: SiteSettings) {
    return this.call(settings, (s) => diagnostics(this.store, this.env, this.alarms, s));
  }

  // ------------------------------------------------------------------ results

  async results(settings: SiteSettings, query: { cursor?: string; limit: number; unit?: string }) {
    return this.call(settings, () => listResults(this.store, query, capabilities(this.store).has("whole_unit")));
  }

  async acknowledge(settings: SiteSettings, ids: string[]) {
    return this.call(settings, () => acknowledge(this.store, ids));
  }

  async reviews(settings: SiteSettings, reviews: Review[]) {
    return this.call(settings, async (settings) => {
      // Edited texts get their own QA, glossary included.
      if (reviews.some((r) => r.text !== undefined)) await ensureGlossary(this.store, this.env, settings);
      const applied = applyReviews(this.store, settings, reviews);
      // Approvals went into the memory: copied to the organization's in the background, never awaited here.
      await this.needs.memoryWritten();
      return applied;
    });
  }

  async attention(settings: SiteSettings, query: { cursor?: string; limit: number; unit?: string; language?: string }, dashboardUrl?: string) {
    return this.call(settings, (settings) => listAttention(this.store, this.links(settings, dashboardUrl), query));
  }

  async decideAttention(settings: SiteSettings, id: string, decision: AttentionDecision) {
    return this.call(settings, async (settings) => {
      if (decision.action === "fix") await ensureGlossary(this.store, this.env, settings);
      const decided = decideAttention(this.store, settings, id, decision);
      // A fixed translation is delivered like a job's result.
      if (decision.action === "fix") this.emit(settings)({ type: "results.available" });
      // A fix supersedes the held result: retention purges it in 30 days.
      if (decision.action === "fix") await this.needs.scheduleRetention();
      // A fix went into the memory.
      if (decision.action === "fix") await this.needs.memoryWritten();
      return decided;
    });
  }

  // ------------------------------------------------------------------ the memory page (memory/admin.ts)

  async memoryList(settings: SiteSettings, search: MemorySearch) {
    return this.call(settings, () => listMemory(this.store, search));
  }

  async memoryEntry(settings: SiteSettings, key: MemoryKey) {
    return this.call(settings, () => getMemoryEntry(this.store, key));
  }

  async memoryEdit(settings: SiteSettings, key: MemoryKey, text: string) {
    return this.call(settings, async () => {
      const entry = editMemoryEntry(this.store, key, text);
      // The organization's memory follows (memory/share.ts), off this request's path.
      await this.needs.memoryWritten();
      return entry;
    });
  }

  async memoryDelete(settings: SiteSettings, key: MemoryKey) {
    return this.call(settings, async () => {
      const entry = deleteMemoryEntry(this.store, key);
      // The organization's memory follows (memory/share.ts), off this request's path.
      await this.needs.memoryWritten();
      return entry;
    });
  }

  async memoryPairs(settings: SiteSettings) {
    return this.call(settings, () => memoryPairs(this.store));
  }

  async memoryExport(settings: SiteSettings, query: Parameters<typeof exportMemoryPage>[1]) {
    return this.call(settings, () => exportMemoryPage(this.store, query));
  }

  /** A TMX file's translations, stored in chunks with a turn for waiting requests between two (memory/admin.ts). */
  async memoryImport(settings: SiteSettings, translations: TmxTranslation[]) {
    return this.call(settings, async (settings) => {
      const result = await importMemoryInTurns(this.store, settings.sourceLanguage, translations);
      // Imported translations are shared like any other reviewed text.
      await this.needs.memoryWritten();
      return result;
    });
  }

  // ------------------------------------------------------------------ webhooks

  /** Webhook events of this site: published in the background (src/webhooks/emit.ts), never awaited. */
  private emit(settings: SiteSettings): Emit {
    return emitter(this.env, settings.id, (p) => this.ctx.waitUntil(p));
  }

  /** The data of a coalesced event as the site is now (the Queue consumer asks when it sends one). */
  async webhookData(type: CoalescedType) {
    if (this.erased) return null;
    const settings = this.store.getMeta<SiteSettings>("settings");
    if (!settings) return null;
    return type === "results.available" ? resultsAvailable(this.store) : attentionCreated(this.store, this.links(settings));
  }
}

/** The bookmark of the storage at `at`; a runtime without point-in-time recovery (workerd locally) is a 501 saying so. */
async function bookmarkFor(pitr: PointInTime, at: number): Promise<string> {
  try {
    return await pitr.getBookmarkForTime(at);
  } catch (err) {
    if (err instanceof Error && NO_PITR.test(err.message))
      throw new ApiError(
        501,
        `Point-in-time recovery is not available here: this runtime's Durable Object storage does not implement it (local workerd: \`wrangler dev\` and the tests). On Cloudflare it is; nothing was changed.`,
      );
    throw err;
  }
}
