/**
 * SiteObject: one Durable Object per site, addressed by the site id from the API key.
 * A thin façade: each RPC method adopts the caller's view of the site's settings and
 * delegates to a domain module that works on the object's SQLite storage.
 */
import { DurableObject } from "cloudflare:workers";
import { drizzle } from "drizzle-orm/durable-sqlite";
import { migrate } from "drizzle-orm/durable-sqlite/migrator";
import migrations from "../../migrations/site/migrations.js";
import type { AttentionDecision, BatchItem, JobRequest, Review, UnitSnapshot, UnitStatusInclude } from "../api/schemas";
import { release, reserve } from "../billing/billing";
import { controlDb } from "../control/db";
import { batchPrefix } from "../control/erasure";
import type { SiteSettings } from "../control/sites";
import { type Deps, PRODUCTION_DEPS, storagePointInTime } from "../deps";
import type { GlossaryTerm } from "../engines/types";
import { ApiError, type RpcFailure, toRpcFailure, unauthorized } from "../errors";
import { orgMemory } from "../memory/stub";
import { type LogFields, log, redactError, withLogContext } from "../obs/log";
import { record } from "../obs/metrics";
import { type Emit, emitter } from "../webhooks/emit";
import type { CoalescedType } from "../webhooks/events";
import { AlarmScheduler } from "./alarms";
import { type CountSink, flushCounts, mergeCounts, rebuildCounts } from "./counts";
import type { MemorySearch } from "./fuzzy";
import { glossaryCount, glossaryDue, readGlossary, replaceGlossary } from "./glossary";
import { connectorInfo, getSiteInfo, handshake } from "./handshake";
import { nextTurn } from "./invocation";
import { jobCreated, jobFinished } from "./job-events";
import {
  cancelJob,
  checkJobUnits,
  createJob,
  getJob,
  jobLanguages,
  jobOut,
  listJobs,
  type MarkedEstimate,
  markedEstimate,
  markJob,
  type ScopeEstimate,
  scopeOf,
  unsettledJobs,
} from "./jobs";
import { flushUsage } from "./ledger";
import { backfillMemorySourceText, indexNeedsMerge, mergeMemoryIndex } from "./memory";
import { deleteMemoryEntry, editMemoryEntry, exportMemoryPage, getMemoryEntry, IMPORT_CHUNK, importMemory, listMemory, type MemoryKey, memoryPairs } from "./memory-admin";
import { runMemoryShare, shareWaiting, sharingChanged } from "./memory-share";
import { PushWrites } from "./push-writes";
import { acknowledge, applyReviews, decideAttention, listAttention, listResults, seedResultSequence } from "./results";
import { nextRetentionAt, type RetentionRun, runRetention } from "./retention";
import { currentJob, runAlarm } from "./runner";
import { capabilities, siteTargets } from "./settings";
import { estimateWithShared } from "./shared-hits";
import { sourceTexts } from "./source-texts";
import { type Links, siteStatus, unitStatus, unitsWithWork } from "./status";
import { Store } from "./store";
import { applySnapshot, deleteUnit, knownUnits, pushUnchanged, pushUnit } from "./sync";
import type { TmxTranslation } from "./tmx";
import { listUnits } from "./unit-list";
import { unitTexts } from "./unit-texts";
import { attentionCreated, resultsAvailable } from "./webhook-data";

/** A batch's valid units (validated by the Worker) and the digests of their snapshots as sent. */
export interface PushedBatch {
  units: UnitSnapshot[];
  digests?: string[];
}

/** Methods `invoke` refuses: the runtime's handlers and the door itself. */
const NOT_INVOKED = new Set(["invoke", "alarm", "fetch", "webSocketMessage", "webSocketClose", "webSocketError", "constructor"]);

/** Meta entry: when the daily storage figure was last written (ms). */
const STORAGE_REPORTED = "storage_reported_at";
const DAY_MS = 86_400_000;

/** DESIGN.md "storage and overload": 9 GiB unless SITE_STORAGE_LIMIT_BYTES says otherwise. */
export const DEFAULT_SITE_STORAGE_LIMIT_BYTES = 9 * 1024 ** 3;
const storageLimit = (env: Env) => {
  const set = Number(env.SITE_STORAGE_LIMIT_BYTES);
  return env.SITE_STORAGE_LIMIT_BYTES && Number.isFinite(set) && set > 0 ? set : DEFAULT_SITE_STORAGE_LIMIT_BYTES;
};

/** What a suspended site's callers are told (its keys in src/auth.ts, a job request from the dashboard here). */
export const suspendedError = (reason: string) => new ApiError(403, `site suspended: ${reason}; contact support`);

/** Key-value entry left by `erase()`. */
const ERASED_MARK = "erased_at";

export class SiteObject extends DurableObject<Env> {
  readonly store: Store;
  /** The object's one alarm, shared by its timed needs (jobs, retention). */
  readonly alarms: AlarmScheduler;
  /** The site was erased (src/control/erasure.ts): its storage holds only this mark, and every call is refused. */
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
    ctx.blockConcurrencyWhile(async () => {
      this.erased = (await ctx.storage.get(ERASED_MARK)) !== undefined;
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
      const adopted = this.adopt(settings);
      return await withLogContext({ site_id: adopted.id, org_id: adopted.organizationId }, async () => {
        if (this.shareChanged) {
          this.shareChanged = false;
          await this.shareSoon();
        }
        return await fn(adopted);
      });
    } catch (err) {
      // Typed as T for callers: the Worker's stub wrapper turns the failure back into an ApiError.
      return toRpcFailure(err) as RpcFailure as T;
    }
  }

  /** Set by `adopt` when the sharing setting changed: the call registers the memory_share need. */
  private shareChanged = false;

  /** The stored settings and their JSON, kept in memory so an unchanged call costs one string comparison. */
  private held?: { settings: SiteSettings; json: string };

  /**
   * Keeps the newest settings the object has seen (by `version`) for this call, later calls
   * and the alarm; older ones are never adopted. A change of target languages rebuilds the counts.
   */
  private adopt(settings: SiteSettings): SiteSettings {
    if (!this.held) {
      const stored = this.store.getMeta<SiteSettings>("settings");
      if (stored) this.held = { settings: stored, json: JSON.stringify(stored) };
    }
    const previous = this.held?.settings;
    if (previous && (previous.version ?? 0) > (settings.version ?? 0)) return previous;
    const json = JSON.stringify(settings);
    if (previous && json === this.held!.json) return previous;
    this.store.tx(() => {
      if (!previous) seedResultSequence(this.store, settings.id);
      this.store.setMeta("settings", settings);
      const codes = (s: SiteSettings | undefined) => JSON.stringify(s?.targetLanguages.map((t) => t.code) ?? []);
      if (codes(previous) !== codes(settings)) rebuildCounts(this.store, siteTargets(settings));
      // Settings stored before the setting existed have none: those sites did not share.
      if (sharingChanged(this.store, previous?.shareMemory === true, settings.shareMemory === true)) this.shareChanged = true;
    });
    this.store.sharesMemory = settings.shareMemory === true;
    this.held = { settings, json };
    return settings;
  }

  /** Pushed by `updateSiteSettings` right after D1 changed, so the change is effective at once. */
  async applySettings(settings: SiteSettings) {
    return this.call(settings, async (s) => {
      // Resumed (or never suspended): a job that waited is due again.
      if (!s.suspended) await this.scheduleRun();
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
      this.guardStorage(JSON.stringify(snapshot).length);
      const result = pushUnit(this.store, settings, snapshot);
      // Imported translations went into the memory.
      await this.memoryWritten();
      return result;
    });
  }

  /**
   * Applies a batch's valid units, each on its own: a unit that fails is reported and the
   * others go on. The Worker sends the units as JSON text (`json`: a string crosses RPC as one
   * copy, where the structured clone of 5,000 segment objects cost about 8 ms on each side);
   * large bodies come as an R2 key (written by the Worker), deleted once applied.
   */
  async pushBatch(settings: SiteSettings, batch: PushedBatch | { json: string } | { blobKey: string }): Promise<BatchItem[]> {
    return this.call(settings, async (settings) => {
      let units: UnitSnapshot[];
      let digests: string[] | undefined;
      if ("blobKey" in batch) {
        // Only this site's own prefix: a key naming another site's body is a bug, never served.
        if (!batch.blobKey.startsWith(batchPrefix(settings.id))) throw new Error(`batch body key outside ${batchPrefix(settings.id)} refused`);
        const object = await this.env.BLOBS.get(batch.blobKey);
        if (!object) throw new Error(`batch body ${batch.blobKey} is missing from R2`);
        ({ units, digests } = (await object.json()) as PushedBatch);
      } else if ("json" in batch) ({ units, digests } = JSON.parse(batch.json) as PushedBatch);
      else ({ units, digests } = batch);
      // What the units take once stored is about the size of their JSON (texts, keys, fingerprints and indexes).
      this.guardStorage("json" in batch ? batch.json.length : JSON.stringify(units).length);
      const results = this.applyBatch(settings, units, digests) ?? this.applyEach(settings, units, digests);
      if ("blobKey" in batch) await this.env.BLOBS.delete(batch.blobKey);
      // Imported translations went into the memory.
      await this.memoryWritten();
      return results;
    });
  }

  /**
   * The whole batch in one transaction, or undefined (and nothing written) if any unit fails.
   * One transaction rather than one per unit: in a transaction nested in another, SQLite
   * journals every page it changes that existed before it began, so each unit would copy
   * again the index pages its predecessors wrote (segments are indexed by fingerprint, so
   * they land all over the index); for a first push of 100 × 50 that cost about as much as a
   * third of the inserts themselves. The result is the same as unit by unit: units apply in
   * order, each seeing the ones before it.
   */
  private applyBatch(settings: SiteSettings, units: UnitSnapshot[], digests: string[] | undefined): BatchItem[] | undefined {
    try {
      return this.store.tx(() => {
        const sums: CountSink = new Map();
        const writes = new PushWrites(this.store);
        const known = knownUnits(
          this.store,
          units.map((unit) => unit.external_key),
        );
        const items = units.map((unit, i): BatchItem => {
          const result = applySnapshot(this.store, settings, unit, digests?.[i] ?? null, sums, writes, known);
          return { external_key: unit.external_key, ok: true, result, error: null };
        });
        writes.flush();
        flushCounts(this.store, sums);
        return items;
      });
    } catch (err) {
      log("warn", "push.batch_failed", { error: redactError(err) });
      return undefined;
    }
  }

  /**
   * The batch unit by unit, each in its own transaction: a unit that fails is reported and the
   * others go on. The site and key-type sums are written once for the batch: each unit's
   * differences join the batch's only once its own transaction committed.
   */
  private applyEach(settings: SiteSettings, units: UnitSnapshot[], digests: string[] | undefined): BatchItem[] {
    const sums: CountSink = new Map();
    const results = units.map((unit, i): BatchItem => {
      const unitSums: CountSink = new Map();
      try {
        const result = pushUnit(this.store, settings, unit, digests?.[i] ?? null, unitSums);
        mergeCounts(sums, unitSums);
        return { external_key: unit.external_key, ok: true, result, error: null };
      } catch (err) {
        log("error", "push.unit_failed", { error: redactError(err) });
        return { external_key: unit.external_key, ok: false, result: null, error: "The unit could not be stored; retry it. If it keeps failing, contact support." };
      }
    });
    this.store.tx(() => flushCounts(this.store, sums));
    return results;
  }

  /** The batch's units whose snapshot is the one last applied, answered as unchanged (see `pushUnchanged`). */
  async pushUnchanged(settings: SiteSettings, units: { external_key: string; digest: string }[]) {
    return this.call(settings, () => [...pushUnchanged(this.store, units).values()]);
  }

  async deleteUnit(settings: SiteSettings, externalKey: string) {
    return this.call(settings, async (settings) => {
      deleteUnit(this.store, settings, externalKey);
      await this.scheduleRetention();
    });
  }

  async status(settings: SiteSettings, prefix: string) {
    return this.call(settings, async (settings) => {
      await this.ensureGlossary(settings);
      return siteStatus(this.store, settings, prefix, glossaryCount(this.store));
    });
  }

  /** The organization's glossary changed (pushed by `pushGlossary` after D1 was written). */
  async applyGlossary(terms: GlossaryTerm[]) {
    replaceGlossary(this.store, terms, Date.now());
  }

  /** Loads the organization's glossary from D1 when the object's copy is missing or old (not per request). */
  private async ensureGlossary(settings: SiteSettings) {
    if (!glossaryDue(this.store, Date.now())) return;
    let terms: GlossaryTerm[];
    try {
      terms = await readGlossary(controlDb(this.env.DB), settings.organizationId);
    } catch (err) {
      // D1 unavailable: an old copy serves until the next try; without one the request fails.
      if (this.store.getMeta("glossary") === undefined) throw err;
      log("warn", "glossary.reload_failed", { error: redactError(err) });
      return;
    }
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
      try {
        await reserve(controlDb(this.env.DB), settings, job.id, job.estimated_characters, job.created_at);
      } catch (err) {
        // The job is taken back while it is still queued (the runner starts a job only after its own D1 reads): the client's
        // retry then creates the only job. A reservation written whose answer was lost is released once no job is active.
        const withdrawn = this.store.run("DELETE FROM jobs WHERE id = ? AND status = 'queued'", job.id) > 0;
        if (withdrawn) throw err;
        // Started meanwhile (the runner reserved it itself): it stands, and is answered as it is now.
      }
      await this.scheduleRun();
      const created = getJob(this.store, job.id);
      jobCreated(this.env, settings, created);
      return jobOut(created);
    });
  }

  async listJobs(settings: SiteSettings, active: boolean) {
    return this.call(settings, async (_settings) => {
      await this.scheduleRun();
      return listJobs(this.store, active);
    });
  }

  async getJob(settings: SiteSettings, id: number) {
    return this.call(settings, async (_settings) => {
      await this.scheduleRun();
      return jobOut(getJob(this.store, id));
    });
  }

  async cancelJob(settings: SiteSettings, id: number) {
    return this.call(settings, async (settings) => {
      const before = getJob(this.store, id).status;
      const job = cancelJob(this.store, id);
      // A queued job's reservation goes at once (it has no commit); a running job is settled once, by the runner, when its
      // commits have landed (jobs.ts, cancelJob): its queued ledger rows are written, then its reservation goes.
      await this.scheduleRun();
      if (job.status === "cancelled" && before === "queued") await release(controlDb(this.env.DB), settings.id, [id]);
      if (job.status === "cancelled" && before !== "cancelled") {
        jobFinished(this.env, settings, job);
        this.emit(settings)({ type: "job.finished", data: jobOut(job) });
      }
      return jobOut(job);
    });
  }

  /**
   * Makes sure the job need is due now while a job is queued or running or a cancelled one is
   * to be settled (also repairs a lost alarm). Only ever brings it forward: a running job's
   * next step is not pushed back.
   */
  private async scheduleRun() {
    if (!currentJob(this.store) && !unsettledJobs(this.store).length) return;
    await this.alarms.schedule("jobs", this.nextRunAt(), { onlyEarlier: true });
  }

  /** Jobs run as soon as possible; tests set JOB_ALARM_DELAY_MS to drive alarms themselves. */
  private nextRunAt() {
    return Date.now() + Number(this.env.JOB_ALARM_DELAY_MS ?? 0);
  }

  /**
   * Erases the site's data plane: the alarm, then all storage (SQLite tables included). What
   * is left is a mark that refuses every later call, so nothing can write the site again;
   * site ids are never reused.
   *
   * The usage ledger is a billing record that erasure keeps (src/control/erasure.ts): the rows
   * the site's commits queued and D1 has not taken yet (ledger.ts) are written first, once no
   * job can queue more. While D1 refuses them the erasure fails with nothing deleted, and is
   * retried (src/ops/erasure.ts): the work a job did before the erasure stays billed.
   */
  async erase(): Promise<void> {
    this.erased = true;
    // A job's invocation still under way meets a closed store at its next step, and queues nothing more.
    this.store.close();
    await this.writeQueuedUsage();
    await this.ctx.storage.deleteAlarm();
    await this.ctx.storage.deleteAll();
    await this.ctx.storage.put(ERASED_MARK, new Date().toISOString());
  }

  /**
   * Point-in-time recovery (docs/ops/backups.md): the bookmark of the storage at `at`, restored
   * when the object next starts. The caller then ends this session (`endSessionForRestore`), so the
   * next request starts the object on the restored storage.
   */
  async restoreTo(at: number): Promise<string> {
    const pitr = (this.deps.pointInTime ?? storagePointInTime)(this.ctx);
    const bookmark = await pitr.getBookmarkForTime(at);
    await pitr.onNextSessionRestoreBookmark(bookmark);
    return bookmark;
  }

  /** Ends the object's session (its in-memory state and any running invocation): the call itself fails, as the runtime's abort does. */
  async endSessionForRestore(): Promise<void> {
    (this.deps.pointInTime ?? storagePointInTime)(this.ctx).abort("restored to an earlier point in time");
  }

  /** The outbox's ledger rows to D1, through a store of its own (the object's is closed); nothing to do once the tables are gone. */
  private async writeQueuedUsage() {
    const store = new Store(this.ctx.storage, this.deps.clock);
    if (store.one("SELECT 1 AS x FROM sqlite_master WHERE type = 'table' AND name = 'ledger_outbox'") === undefined) return;
    const settings = store.getMeta<SiteSettings>("settings");
    if (settings) await flushUsage({ store, env: this.env, settings });
  }

  /**
   * The one alarm (alarms.ts): runs the timed needs that are due. Jobs: the runner (runner.ts
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
    this.reportStorage(settings);
    await this.alarms.fire({
      jobs: async () => {
        // Suspended by the operator: the jobs stop here; resuming (applySettings) makes the need due again.
        if (this.adopt(settings).suspended) return null;
        const delay = await runAlarm({ store: this.store, env: this.env, settings, emit: this.emit(settings), sleep: this.deps.sleep });
        // The job's commits superseded results: retention purges them in 30 days.
        await this.scheduleRetention();
        return delay === null ? null : this.nextRunAt() + delay;
      },
      retention: async () => this.retentionDue(this.retain()),
      memory_share: async () => {
        const next = await runMemoryShare(this.store, settings, orgMemory(this.env, settings.organizationId));
        return next === null ? null : Math.max(next, this.shareAt());
      },
      // The back-fill of the memory's source texts (and so the fuzzy index), one bounded step per run; then the index is merged.
      memory_index: async () => {
        if (backfillMemorySourceText(this.store, settings.sourceLanguage).more) return this.nextRunAt();
        await this.alarms.schedule("memory_merge", this.mergeAt(), { onlyEarlier: true });
        return null;
      },
      // The fuzzy index merged into one b-tree in bounded steps (memory.ts, mergeMemoryIndex).
      memory_merge: async () => (mergeMemoryIndex(this.store).more ? this.mergeAt() : null),
    });
  }

  // ------------------------------------------------------------------ size and diagnostics

  /** The deep health's probe (src/ops/oncall.ts): the object answers; nothing is read or written. */
  async ping() {
    return { ok: true };
  }

  /** The object's storage in bytes (SQLite pages in use, as the platform bills and limits them). */
  storageBytes(): number {
    return this.ctx.storage.sql.databaseSize;
  }

  /**
   * A push that would take the site past SITE_STORAGE_LIMIT_BYTES (default 9 GiB, below the
   * platform's 10 GB per object) is refused before anything is written: 409 `site_storage_full`,
   * which no retry mends (units must be deleted, or the operator raises the limit).
   */
  private guardStorage(incomingBytes: number) {
    const limit = storageLimit(this.env);
    const size = this.storageBytes();
    if (size + incomingBytes > limit)
      throw new ApiError(
        409,
        `The site's storage is full: it holds ${size} bytes and this push would take it past its limit of ${limit} bytes. Delete units the site no longer needs, or contact support; retrying will not help.`,
        { code: "site_storage_full" },
      );
  }

  /** `site.storage_bytes`, at most once a day, from the alarm (docs/ops/observability.md). */
  private reportStorage(settings: SiteSettings) {
    const now = Date.now();
    const last = this.store.getMeta<number>(STORAGE_REPORTED) ?? 0;
    if (now - last < DAY_MS) return;
    const bytes = this.storageBytes();
    record(this.env, "info", "site.storage_bytes", { site_id: settings.id, org_id: settings.organizationId, bytes, count: bytes });
    this.store.setMeta(STORAGE_REPORTED, now);
  }

  /** What the operator reads first about a site (GET /admin/v1/sites/{id}/diagnostics). */
  async diagnostics(settings: SiteSettings) {
    return this.call(settings, async (s) => {
      const jobs = this.store.one<{ queued: number; running: number }>(
        "SELECT coalesce(sum(status = 'queued'), 0) AS queued, coalesce(sum(status = 'running'), 0) AS running FROM jobs WHERE status IN ('queued', 'running')",
      )!;
      const migration = this.store.one<{ hash: string; created_at: number }>("SELECT hash, created_at FROM __drizzle_migrations ORDER BY created_at DESC LIMIT 1");
      const faults = this.store.getMeta<Record<string, unknown>>("runner_faults") ?? null;
      const alarmAt = await this.ctx.storage.getAlarm();
      return {
        storage_bytes: this.storageBytes(),
        storage_limit_bytes: storageLimit(this.env),
        alarm_at: alarmAt === null ? null : new Date(alarmAt).toISOString(),
        alarms: this.store
          .all<{ need: string; due_at: number }>("SELECT need, due_at FROM alarms ORDER BY due_at")
          .map((a) => ({ need: a.need, at: new Date(a.due_at).toISOString() })),
        jobs: { queued: jobs.queued, running: jobs.running },
        ledger_outbox: this.store.one<{ n: number }>("SELECT count(*) AS n FROM ledger_outbox")!.n,
        site_migration: migration ? String(migration.created_at) : null,
        faults,
        suspended: s.suspended ?? null,
      };
    });
  }

  // ------------------------------------------------------------------ organization memory

  /**
   * Registers the memory_share need, due now, when a change to the memory waits to be copied to
   * the organization's (memory-share.ts). The copy runs in the alarm, never in the request:
   * the organization's object being slow or down does not touch the caller's answer.
   */
  private async mergeSoon() {
    if (indexNeedsMerge(this.store)) await this.alarms.schedule("memory_merge", this.mergeAt(), { onlyEarlier: true });
  }

  /**
   * When a merge step is due: now. Tests that drive alarms themselves (JOB_ALARM_DELAY_MS) get it
   * behind any job run registered meanwhile (twice the delay, as the organization copy), so the
   * alarm a test runs for its job runs the job, as it would without the merge.
   */
  private mergeAt() {
    return Date.now() + 2 * Number(this.env.JOB_ALARM_DELAY_MS ?? 0);
  }

  /**
   * After a call that wrote to the memory: its copy to the organization's (shareSoon) and, once
   * the fuzzy index has grown enough, its merge (mergeSoon), both in the alarm, off the request's path.
   */
  private async memoryWritten() {
    await this.shareSoon();
    await this.mergeSoon();
  }

  private async shareSoon() {
    if (!shareWaiting(this.store)) return;
    await this.alarms.schedule("memory_share", this.shareAt(), { onlyEarlier: true });
  }

  /**
   * When a copy is due: now. Tests that drive alarms themselves (JOB_ALARM_DELAY_MS) get it
   * behind any job run registered meanwhile (twice the delay), so the alarm a test runs for
   * its job runs the job, as it would without sharing.
   */
  private shareAt() {
    return Date.now() + 2 * Number(this.env.JOB_ALARM_DELAY_MS ?? 0);
  }

  // ------------------------------------------------------------------ retention

  /** One bounded run of retention (src/site/retention.ts). */
  private retain(): RetentionRun {
    const run = runRetention(this.store);
    if (run.units || run.segments || run.results) log("info", "retention.purged", { units: run.units, segments: run.segments, results: run.results, more: run.more });
    return run;
  }

  /**
   * When retention is next due: at once when a run stopped at its bound, otherwise when the
   * next item expires (null: nothing waits). Never before a job's own next run in tests, which
   * drive alarms themselves (JOB_ALARM_DELAY_MS).
   */
  private retentionDue(after?: RetentionRun): number | null {
    const due = nextRetentionAt(this.store);
    if (!after?.more && !due) return null;
    let delay = after?.more ? 0 : due!.getTime() - this.store.clock().getTime();
    // Due but not purged (a unit waiting for its job to finish): look again in an hour, not in a loop.
    if (!after?.more && delay <= 0 && after) delay = 3_600_000;
    return Math.max(Date.now() + delay, this.nextRunAt());
  }

  /** Registers retention's next time after something may have given it work (a deleted unit, a superseded result). */
  private async scheduleRetention() {
    const at = this.retentionDue();
    if (at !== null) await this.alarms.schedule("retention", at, { onlyEarlier: true });
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
      if (reviews.some((r) => r.text !== undefined)) await this.ensureGlossary(settings);
      const applied = applyReviews(this.store, settings, reviews);
      // Approvals went into the memory: copied to the organization's in the background, never awaited here.
      await this.memoryWritten();
      return applied;
    });
  }

  async attention(settings: SiteSettings, query: { cursor?: string; limit: number; unit?: string; language?: string }, dashboardUrl?: string) {
    return this.call(settings, (settings) => listAttention(this.store, this.links(settings, dashboardUrl), query));
  }

  async decideAttention(settings: SiteSettings, id: string, decision: AttentionDecision) {
    return this.call(settings, async (settings) => {
      if (decision.action === "fix") await this.ensureGlossary(settings);
      const decided = decideAttention(this.store, settings, id, decision);
      // A fixed translation is delivered like a job's result.
      if (decision.action === "fix") this.emit(settings)({ type: "results.available" });
      // A fix supersedes the held result: retention purges it in 30 days.
      if (decision.action === "fix") await this.scheduleRetention();
      // A fix went into the memory.
      if (decision.action === "fix") await this.memoryWritten();
      return decided;
    });
  }

  // ------------------------------------------------------------------ the memory page (memory-admin.ts)

  async memoryList(settings: SiteSettings, search: MemorySearch) {
    return this.call(settings, () => listMemory(this.store, search));
  }

  async memoryEntry(settings: SiteSettings, key: MemoryKey) {
    return this.call(settings, () => getMemoryEntry(this.store, key));
  }

  async memoryEdit(settings: SiteSettings, key: MemoryKey, text: string) {
    return this.call(settings, async () => {
      const entry = editMemoryEntry(this.store, key, text);
      // The organization's memory follows (memory-share.ts), off this request's path.
      await this.memoryWritten();
      return entry;
    });
  }

  async memoryDelete(settings: SiteSettings, key: MemoryKey) {
    return this.call(settings, async () => {
      const entry = deleteMemoryEntry(this.store, key);
      // The organization's memory follows (memory-share.ts), off this request's path.
      await this.memoryWritten();
      return entry;
    });
  }

  async memoryPairs(settings: SiteSettings) {
    return this.call(settings, () => memoryPairs(this.store));
  }

  async memoryExport(settings: SiteSettings, query: Parameters<typeof exportMemoryPage>[1]) {
    return this.call(settings, () => exportMemoryPage(this.store, query));
  }

  /**
   * A TMX file's translations (read and checked by the Worker, src/site/tmx.ts), stored in
   * transactions of IMPORT_CHUNK entries with a turn for waiting requests between two: a file of
   * 50,000 entries does not hold the object for seconds. Interrupted (an eviction), the entries
   * stored so far stay; importing the file again completes it (each entry is an upsert).
   */
  async memoryImport(settings: SiteSettings, translations: TmxTranslation[]) {
    return this.call(settings, async (settings) => {
      const result = { stored: 0, kept: 0 };
      for (let from = 0; from < translations.length; from += IMPORT_CHUNK) {
        if (from > 0) await nextTurn();
        const part = importMemory(this.store, settings.sourceLanguage, translations.slice(from, from + IMPORT_CHUNK));
        result.stored += part.stored;
        result.kept += part.kept;
      }
      // Imported translations are shared like any other reviewed text.
      await this.memoryWritten();
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
