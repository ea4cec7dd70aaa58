// One pass of the sync, run by the cron task (scheduled), soon after a change (prompt), by the
// webhook route and by the admin's buttons: handshake (on every scheduled pass, and when the
// locales or the plugin changed), a delta job for languages the site gained, push the queued units
// and deletes, start a delta job by the policy, pull the results and write them into the drafts
// (drafts.ts: never over an editor's change), report reviews. A pass that the service refuses or
// cannot be reached for stops where it is and leaves the queue as it is: the next pass tries
// again. Passes never overlap; asking for one while one runs makes one more run after it.
import { AsyncLocalStorage } from "node:async_hooks";
import type { TransyncConfig } from "./config";
import { composeDraft, type DraftRecord, readDraft, rebaseline } from "./drafts";
import { adminPath, type TrackedType, unitKey } from "./fields";
import { type Kit, loadKit, type Schemas, type TransyncClient } from "./kit";
import { type EntrySplit, splitEntry } from "./segments";
import type { Store, Task } from "./store";

// biome-ignore lint/suspicious/noExplicitAny: Strapi's instance; this plugin uses a handful of its services.
type Strapi = any;
type Entry = Record<string, unknown>;

/** package.json's version, put in by the build (scripts/build.mjs). */
declare const TRANSYNC_STRAPI_VERSION: string;
export const CONNECTOR_VERSION = `transync-strapi/${TRANSYNC_STRAPI_VERSION}`;
/** Push and ack calls retry once inside a pass; the cron is the longer retry. */
const RETRY = { attempts: 2, baseDelayMs: 500 };
/** Errors kept for the Transync page. */
const ERRORS_KEPT = 20;

export interface Locales {
  source: string;
  /** The locale Strapi uses when an action names none. */
  defaultLocale: string;
  targets: string[];
  /** Strapi locale → the site's language. */
  language: (locale: string) => string;
  /** The site's language → Strapi locale. */
  locale: (language: string) => string | undefined;
}

export type PassKind = "scheduled" | "prompt" | "manual";

export type ConnectionState = "unknown" | "ok" | "wrong_key" | "unreachable" | "refused" | "error";
export interface Connection {
  state: ConnectionState;
  message: string | null;
  at: string;
}

export interface HandshakeSeen {
  at: string;
  warnings: string[];
  reviewMode: string;
  languages: string[];
  targets: { code: string; writable: boolean }[];
}

/** The plugin's own writes (drafts, deleted target locales): the document middleware leaves them alone. */
const own = new AsyncLocalStorage<boolean>();
export const isOwnAction = () => own.getStore() === true;

export class Sync {
  types = new Map<string, TrackedType>();
  private running?: Promise<void>;
  private again?: PassKind;
  private handshakeSignature?: string;
  private lastProblem?: string;
  private timer?: NodeJS.Timeout;
  private firstAsked?: number;

  constructor(
    private readonly strapi: Strapi,
    readonly store: Store,
  ) {}

  config(): TransyncConfig {
    return this.strapi.config.get("plugin::transync");
  }

  /** The client, with the key read from the environment at every pass (a rotated key needs no restart). */
  async client(): Promise<{ kit: Kit; api: TransyncClient }> {
    const kit = await loadKit();
    const config = this.config();
    return { kit, api: kit.createTransyncClient({ baseUrl: config.url, key: process.env[config.keyEnv] ?? "" }) };
  }

  async locales(): Promise<Locales> {
    const config = this.config();
    const all: { code: string; isDefault?: boolean }[] = await this.strapi.plugin("i18n").service("locales").find();
    const defaultLocale: string = await this.strapi.plugin("i18n").service("locales").getDefaultLocale();
    const source = config.sourceLocale ?? defaultLocale;
    const language = (locale: string) => config.locales[locale] ?? locale;
    const byLanguage = new Map(all.map((l) => [language(l.code), l.code]));
    return { source, defaultLocale, targets: all.map((l) => l.code).filter((c) => c !== source), language, locale: (lang) => byLanguage.get(lang) };
  }

  /** Runs a pass now, or once more after the one running. A scheduled pass handshakes again. */
  run(kind: PassKind = "manual"): Promise<void> {
    if (this.running) {
      if (this.again !== "scheduled") this.again = kind;
      return this.running;
    }
    this.running = (async () => {
      let next: PassKind | undefined = kind;
      while (next) {
        this.again = undefined;
        await this.pass(next);
        next = this.again;
      }
    })().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  /**
   * A pass soon: `pushDelay` after the last change (so a burst of saves makes one push), and
   * never later than five times that after the first change of the burst.
   */
  soon(): void {
    const delay = this.config().pushDelay;
    const now = Date.now();
    this.firstAsked ??= now;
    const at = Math.min(now + delay, this.firstAsked + 5 * delay);
    clearTimeout(this.timer);
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        this.firstAsked = undefined;
        void this.run("prompt");
      },
      Math.max(0, at - now),
    );
    this.timer.unref?.();
  }

  stop(): void {
    clearTimeout(this.timer);
  }

  /** Resolves once no pass runs (a pass asked for meanwhile included). */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  private async pass(kind: PassKind): Promise<void> {
    try {
      const { kit, api } = await this.client();
      const locales = await this.locales();
      await this.handshake(api, locales, kind === "scheduled");
      await this.backfill(api);
      if (await this.pushQueued(kit, api, locales)) await this.setStored("jobWanted", true);
      if (this.config().jobs === "on_change" && (await this.getStored("jobWanted"))) await this.startJob(api);
      await this.pull(kit, api, locales);
      await this.sendReviews(kit, api, locales);
      if (this.lastProblem) this.strapi.log.info("transync: the service answers again; queued changes are being sent");
      this.lastProblem = undefined;
      await this.setConnection("ok", null);
    } catch (error) {
      await this.problem(error);
    }
  }

  /** Logs why a pass stopped (once per distinct problem, not at every tick); the queue stays for the next pass. */
  private async problem(error: unknown): Promise<void> {
    const message = describe(error, this.config());
    const e = error as { status?: number };
    await this.setConnection(e?.status === 401 ? "wrong_key" : e?.status ? "refused" : /unreachable/.test(message) ? "unreachable" : "error", message).catch(() => {});
    if (message === this.lastProblem) return;
    this.lastProblem = message;
    this.strapi.log.error(`transync: ${message}; nothing is lost: the queued changes are retried at the next pass`);
    await this.noteError(message).catch(() => {});
  }

  pluginStore() {
    return this.strapi.store({ type: "plugin", name: "transync" });
  }
  async getStored<T = unknown>(key: string): Promise<T | null> {
    return ((await this.pluginStore().get({ key })) as T) ?? null;
  }
  async setStored(key: string, value: unknown): Promise<void> {
    await this.pluginStore().set({ key, value });
  }

  private connection?: Connection;
  /** The connection's state as the last pass (or the last call for the Transync page) found it. */
  async getConnection(): Promise<Connection> {
    this.connection ??= (await this.getStored<Connection>("connection")) ?? { state: "unknown", message: null, at: new Date(0).toISOString() };
    return this.connection;
  }
  async setConnection(state: ConnectionState, message: string | null): Promise<void> {
    const was = await this.getConnection();
    this.connection = { state, message, at: new Date().toISOString() };
    if (was.state !== state || was.message !== message) await this.setStored("connection", this.connection);
  }

  /** Keeps an error for the Transync page (the last 20; never a key or any text). */
  async noteError(message: string): Promise<void> {
    const errors = (await this.getStored<{ at: string; message: string }[]>("errors")) ?? [];
    errors.unshift({ at: new Date().toISOString(), message });
    await this.setStored("errors", errors.slice(0, ERRORS_KEPT));
  }

  private async handshake(api: TransyncClient, locales: Locales, always: boolean): Promise<void> {
    const body: Schemas["HandshakeIn"] = {
      connector_version: CONNECTOR_VERSION,
      source_language: locales.language(locales.source),
      languages: locales.targets.map(locales.language),
      adapters: ["strapi"],
      capabilities: ["whole_unit"],
    };
    const signature = JSON.stringify(body);
    if (signature === this.handshakeSignature && !always) return;
    const { data, error, response } = await api.POST("/v1/handshake", { body });
    if (error || !data) throw await refused("handshake", response, error);
    const seen: HandshakeSeen = {
      at: new Date().toISOString(),
      warnings: data.warnings,
      reviewMode: data.review_mode,
      languages: body.languages ?? [],
      targets: data.target_languages.map((t) => ({ code: t.code, writable: t.writable })),
    };
    const before = await this.getStored<HandshakeSeen>("handshake");
    if (signature !== this.handshakeSignature || JSON.stringify(before?.warnings) !== JSON.stringify(seen.warnings)) {
      for (const warning of data.warnings) this.strapi.log.warn(`transync: the service warns: ${warning}`);
      if (data.review_mode !== "draft") this.strapi.log.warn(`transync: the site's review mode is ${data.review_mode}; this plugin writes drafts in every mode`);
      this.strapi.log.info(`transync: handshake done (${body.languages?.length ?? 0} target languages, review mode ${data.review_mode})`);
    }
    await this.setStored("handshake", seen);
    this.handshakeSignature = signature;
    await this.noticeNewLanguages(seen.targets.filter((t) => t.writable).map((t) => t.code));
    await this.registerWebhook(api);
  }

  /**
   * A language the site gained (writable now, not at the last handshake) is back-filled by a
   * delta job for it. The first handshake only records the languages: the first pushes' jobs
   * translate everything into them.
   */
  private async noticeNewLanguages(writable: string[]): Promise<void> {
    const seen = await this.getStored<string[]>("languagesSeen");
    if (seen && JSON.stringify(seen) === JSON.stringify(writable)) return;
    await this.setStored("languagesSeen", writable);
    if (!seen) return;
    const gained = writable.filter((l) => !seen.includes(l));
    if (!gained.length) return;
    const waiting = (await this.getStored<string[]>("backfill")) ?? [];
    await this.setStored("backfill", [...new Set([...waiting, ...gained])]);
    this.strapi.log.info(`transync: the site now translates into ${gained.join(", ")}: a job back-fills ${gained.length === 1 ? "it" : "them"}`);
  }

  /** Starts the delta job for the languages the site gained (with `jobs: "on_change"`; otherwise the Transync page offers it). */
  private async backfill(api: TransyncClient): Promise<void> {
    const languages = (await this.getStored<string[]>("backfill")) ?? [];
    if (!languages.length || this.config().jobs !== "on_change") return;
    const job = await this.startJob(api, { type: "delta", languages }, `back-fill of ${languages.join(", ")}`);
    if (job) await this.setStored("backfill", []);
  }

  /** Registers the plugin's webhook route with the service when `webhookBaseUrl` is set; its secret is kept in Strapi's store. */
  private async registerWebhook(api: TransyncClient): Promise<void> {
    const base = this.config().webhookBaseUrl;
    if (!base) return;
    const url = new URL("/api/transync/webhook", base).toString();
    const stored = await this.webhookSettings();
    if (stored?.url === url) return;
    const { data, error, response } = await api.PUT("/v1/webhook", { body: { url, events: ["results.available", "job.finished"] } });
    if (error || !data) {
      this.strapi.log.warn(`transync: the webhook could not be registered (${response.status} ${error?.detail ?? ""}); results are pulled by the cron task`);
      return;
    }
    await this.setStored("webhook", { url, secret: data.secret });
    this.strapi.log.info("transync: webhook registered");
  }

  async webhookSettings(): Promise<{ url: string; secret: string } | null> {
    return this.getStored("webhook");
  }

  /** The published source entry (the draft for types without draft & publish), or null. */
  async sourceEntry(type: TrackedType, documentId: string, locales: Locales): Promise<Entry | null> {
    return this.strapi.documents(type.uid).findOne({ documentId, locale: locales.source, ...(type.draftAndPublish ? { status: "published" } : {}) });
  }

  /** A target locale's draft (its only version for types without draft & publish), or null. */
  targetDraft(type: TrackedType, documentId: string, locale: string): Promise<Entry | null> {
    return this.strapi.documents(type.uid).findOne({ documentId, locale, ...(type.draftAndPublish ? { status: "draft" } : {}) });
  }

  /** The unit's source split, its keys lined up with its last push. */
  async split(kit: Kit, type: TrackedType, unit: string, entry: Entry): Promise<EntrySplit> {
    return splitEntry(kit, type, entry, (await this.store.unit(unit))?.segments ?? []);
  }

  /** Sends the queued deletes and pushes; answers whether the service saw a change. */
  private async pushQueued(kit: Kit, api: TransyncClient, locales: Locales): Promise<boolean> {
    const tasks = await this.store.due(["delete", "push"]);
    let changed = false;
    const pushes: { task: Task; unit: Schemas["UnitSnapshotIn"] }[] = [];
    for (const task of tasks) {
      if (task.kind === "delete") {
        const { error, response } = await api.DELETE("/v1/units/{external_key}", { params: { path: { external_key: task.unit } } });
        if (response.status === 401 || response.status === 403 || response.status >= 500) throw await refused("delete", response, error);
        if (error && response.status !== 404) {
          await this.store.failed(task, `${response.status} ${error.detail}`);
          continue;
        }
        await this.afterSourceDeleted(task, locales);
        await this.store.removeUnit(task.unit);
        await this.store.done(task);
        continue;
      }
      const type = this.types.get(task.contentType);
      const entry = type ? await this.sourceEntry(type, task.entry, locales) : null;
      if (!type || !entry) {
        await this.store.done(task); // no longer translated, or nothing published yet: nothing to push
        continue;
      }
      const split = await this.split(kit, type, task.unit, entry);
      const label = type.titleField && typeof entry[type.titleField] === "string" ? (entry[type.titleField] as string).slice(0, 500) : null;
      pushes.push({
        task,
        unit: {
          external_key: task.unit,
          adapter: "strapi",
          label,
          path: adminPath(type, task.entry, locales.source),
          source_language: locales.language(locales.source),
          segments: split.segments.map((s, position) => ({ ...s, position })),
        },
      });
    }
    for (let i = 0; i < pushes.length; i += this.config().batchSize) {
      const batch = pushes.slice(i, i + this.config().batchSize);
      const { synced, failed } = await kit.pushUnits(
        api,
        batch.map((p) => p.unit),
        { retry: RETRY },
      );
      const byKey = new Map(batch.map((p) => [p.unit.external_key, p]));
      for (const { external_key, result } of synced) {
        const { task, unit } = byKey.get(external_key)!;
        await this.store.saveUnit(
          external_key,
          task.contentType,
          task.entry,
          unit.segments.map((s) => ({ key: s.key, text: s.text, field: s.field ?? undefined })),
        );
        await this.store.done(task);
        if (result.unit_created || result.added || result.changed || result.removed) changed = true;
      }
      for (const { external_key, error } of failed) {
        this.strapi.log.error(`transync: the service refused unit ${external_key}: ${error}; it stays queued`);
        await this.noteError(`the service refused unit ${external_key}: ${error}`);
        await this.store.failed(byKey.get(external_key)!.task, error);
      }
    }
    return changed;
  }

  /**
   * The source locale of an entry was deleted: its unit goes at the service, and its target
   * locales are kept as they are (`onSourceDelete: "unlink"`) or, with `"delete"`, those never
   * published are deleted (a published one stays: deleting it would take it off the website).
   */
  private async afterSourceDeleted(task: Task, locales: Locales): Promise<void> {
    const type = this.types.get(task.contentType);
    const left: string[] = [];
    const deleted: string[] = [];
    if (type && !(await this.strapi.documents(type.uid).findOne({ documentId: task.entry, locale: locales.source }))) {
      for (const locale of locales.targets) {
        if (!(await this.strapi.documents(type.uid).findOne({ documentId: task.entry, locale }))) continue;
        const published = type.draftAndPublish && (await this.strapi.documents(type.uid).findOne({ documentId: task.entry, locale, status: "published" }));
        if (this.config().onSourceDelete === "delete" && type.draftAndPublish && !published) {
          await own.run(true, () => this.strapi.documents(type.uid).delete({ documentId: task.entry, locale }));
          deleted.push(locale);
        } else left.push(locale);
      }
    }
    const policy = this.config().onSourceDelete;
    const parts = [`transync: unit ${task.unit} deleted (its source locale was deleted)`];
    if (deleted.length) parts.push(`its never-published ${deleted.join(", ")} version${deleted.length === 1 ? " was" : "s were"} deleted (onSourceDelete: "delete")`);
    if (left.length)
      parts.push(
        `its ${left.join(", ")} version${left.length === 1 ? " stays" : "s stay"} as ${left.length === 1 ? "it is" : "they are"}, no longer translated (onSourceDelete: "${policy}"${policy === "delete" ? ", published" : ""})`,
      );
    this.strapi.log.info(parts.join("; "));
  }

  /**
   * Starts a job. A plain delta job is not started when one is already queued (it will see the
   * changes too). Answers null, with the reason logged, when the service does not start it.
   */
  async startJob(api: TransyncClient, body: Schemas["JobIn"] = { type: "delta" }, what = "translation job"): Promise<Schemas["JobOut"] | null> {
    const plain = (body.type ?? "delta") === "delta" && !body.languages && !body.units && !body.prefix;
    if (plain) {
      const active = await api.GET("/v1/jobs", { params: { query: { active: true } } });
      if (active.error || !active.data) throw await refused("job list", active.response, active.error);
      const queued = active.data.find((j) => j.status === "queued" && j.type === "delta" && !j.prefix && !j.units);
      if (queued) {
        await this.setStored("jobWanted", false);
        return queued;
      }
    }
    const { data, error, response } = await api.POST("/v1/jobs", { body: { ...body, confirm: this.config().confirmJobs } });
    if (response.status === 401 || response.status >= 500) throw await refused("job", response, error);
    if (plain) await this.setStored("jobWanted", false);
    const job = data as Schemas["JobOut"] | undefined;
    if (error || !job) {
      const why = response.status === 409 ? "it needs confirmation (start it in the dashboard, or set confirmJobs)" : `${response.status} ${error?.detail ?? ""}`;
      this.strapi.log.warn(`transync: no ${what} started: ${why}`);
      await this.noteError(`no ${what} started: ${why}`);
      this.lastJobRefusal = { status: response.status, detail: why };
      return null;
    }
    this.strapi.log.info(`transync: ${what} ${job.id} started`);
    return job;
  }
  lastJobRefusal?: { status: number; detail: string };

  /** Pulls pending results a unit and language at a time, writes each into its draft, then acknowledges it. */
  private async pull(kit: Kit, api: TransyncClient, locales: Locales): Promise<void> {
    for await (const page of kit.pendingResults(api, { limit: 200, retry: RETRY })) {
      const groups = new Map<string, Schemas["ResultOut"][]>();
      for (const r of page) {
        const key = `${r.unit}\n${r.language}`;
        if (!groups.has(key)) groups.set(key, []);
        groups.get(key)!.push(r);
      }
      const written: string[] = [];
      for (const results of groups.values()) {
        const { unit, language } = results[0];
        try {
          if (await this.writeDraft(kit, api, locales, unit, language, results)) written.push(...results.map((r) => r.id));
        } catch (error) {
          const message = `the ${language} draft of unit ${unit} could not be written (${describe(error, this.config())}); its results stay pending`;
          this.strapi.log.error(`transync: ${message}`);
          await this.noteError(message);
        }
      }
      if (written.length) await kit.ack(api, written, { retry: RETRY });
    }
  }

  private typeOfUnit(unit: string, contentType?: string): TrackedType | undefined {
    if (contentType) return this.types.get(contentType);
    return [...this.types.values()].find((t) => unit.startsWith(unitKey(t.uid, "")));
  }

  /** Writes one unit's results in one language into that locale's draft (drafts.ts); answers whether they may be acknowledged. */
  private async writeDraft(kit: Kit, api: TransyncClient, locales: Locales, unit: string, language: string, results: Schemas["ResultOut"][]): Promise<boolean> {
    const row = await this.store.unit(unit);
    const type = this.typeOfUnit(unit, row?.contentType);
    const documentId = row?.entry ?? unit.slice(unit.indexOf(":") + 1);
    const locale = locales.locale(language);
    if (!type || !locale || locale === locales.source) {
      this.strapi.log.warn(`transync: results for unit ${unit} in ${language} have no place in Strapi (no such content type or locale); left pending`);
      return false;
    }
    const entry = await this.sourceEntry(type, documentId, locales);
    if (!entry) return true; // the source is gone: nothing to write, nothing to keep
    const split = await this.split(kit, type, unit, entry);
    const outcome = await this.compose(kit, api, type, documentId, unit, locale, language, split, new Map(results.map((r) => [r.key, r.text])));
    const kept = outcome.conflicts.length ? `; ${outcome.conflicts.length} kept as the editor's (conflict shown in the edit view)` : "";
    this.strapi.log.info(`transync: ${locale} draft of ${type.uid} ${documentId} written (${outcome.written.length} of ${results.length} segments${kept})`);
    return true;
  }

  /** Composes and writes one locale's draft, and keeps the new record. */
  private async compose(
    kit: Kit,
    api: TransyncClient,
    type: TrackedType,
    documentId: string,
    unit: string,
    locale: string,
    language: string,
    split: EntrySplit,
    results: Map<string, string>,
    take?: Set<string>,
  ) {
    const draft = await this.targetDraft(type, documentId, locale);
    const record = await this.store.draft(unit, locale);
    const earlier = new Map<string, string>();
    const { mine } = readDraft(kit, split, draft, record);
    if (split.segments.some((s) => !results.has(s.key) && !mine.has(s.key))) {
      // Segments translated earlier that the draft does not hold yet: their current translations, from the service.
      const { data } = await api.GET("/v1/units/{external_key}/status", { params: { path: { external_key: unit }, query: { include: "results" } } });
      for (const s of data?.segments ?? []) {
        const current = s.results?.[language];
        if (current && s.states[language] !== "stale" && s.states[language] !== "missing") earlier.set(s.key, current.text);
      }
    }
    const outcome = composeDraft({ kit, split, draft, record, results, earlier, take });
    if (Object.keys(outcome.data).length)
      await own.run(true, () => this.strapi.documents(type.uid).update({ documentId, locale, ...(type.draftAndPublish ? { status: "draft" } : {}), data: outcome.data }));
    await this.store.saveDraft(unit, locale, outcome.record);
    return outcome;
  }

  /**
   * "Take the new one" (`take`) or "keep mine" for a conflict of one entry's locale, by segment
   * key or (for a whole field) field name. Answers false when there is no such conflict.
   */
  async resolveConflict(uid: string, documentId: string, locale: string, target: string, choice: "take" | "keep"): Promise<boolean> {
    const type = this.types.get(uid);
    if (!type) return false;
    const unit = unitKey(uid, documentId);
    const record = await this.store.draft(unit, locale);
    const conflict = record?.conflicts.find((c) => (c.key ?? c.field) === target);
    if (!record || !conflict) return false;
    if (choice === "keep") {
      await this.store.saveDraft(unit, locale, { ...record, conflicts: record.conflicts.filter((c) => c !== conflict) });
      this.strapi.log.info(`transync: the editor's text of ${target} in the ${locale} draft of ${uid} ${documentId} kept`);
      return true;
    }
    const { kit, api } = await this.client();
    const locales = await this.locales();
    const entry = await this.sourceEntry(type, documentId, locales);
    if (!entry) return false;
    const split = await this.split(kit, type, unit, entry);
    if (conflict.key === null) {
      const draft = await this.targetDraft(type, documentId, locale);
      await own.run(true, () =>
        this.strapi.documents(type.uid).update({ documentId, locale, ...(type.draftAndPublish ? { status: "draft" } : {}), data: { [conflict.field]: conflict.theirsValue } }),
      );
      const after = rebaseline(kit, split, { ...(draft ?? {}), [conflict.field]: conflict.theirsValue }, record);
      const others = record.conflicts.filter((c) => c !== conflict);
      await this.store.saveDraft(unit, locale, after ? { ...after, written: { ...record.written, ...after.written }, conflicts: others } : null);
    } else {
      await this.compose(kit, api, type, documentId, unit, locale, locales.language(locale), split, new Map([[conflict.key, conflict.theirs]]), new Set([conflict.key]));
    }
    this.strapi.log.info(`transync: the new text of ${target} taken into the ${locale} draft of ${uid} ${documentId}`);
    return true;
  }

  /** Reports queued editors' decisions for the results waiting for review in that language. */
  private async sendReviews(kit: Kit, api: TransyncClient, locales: Locales): Promise<void> {
    for (const task of await this.store.due(["review"])) {
      const payload = task.payload as { language: string; outcome: "approved" | "rejected"; fields?: Entry; reviewer?: string };
      const {
        data: status,
        error,
        response,
      } = await api.GET("/v1/units/{external_key}/status", {
        params: { path: { external_key: task.unit }, query: { include: "text,results" } },
      });
      if (response.status === 404) {
        await this.store.done(task);
        continue;
      }
      if (error || !status) throw await refused("unit status", response, error);
      const waiting = status.segments.filter((s) => s.results?.[payload.language]?.status === "pending_review" && s.states[payload.language] === "review");
      let edited = new Map<string, string>();
      const type = this.types.get(task.contentType);
      const locale = locales.locale(payload.language);
      const entry = type ? await this.sourceEntry(type, task.entry, locales) : null;
      const split = type && entry ? await this.split(kit, type, task.unit, entry) : null;
      const record = locale ? await this.store.draft(task.unit, locale) : null;
      if (payload.outcome === "approved" && payload.fields && split) edited = new Map(Object.entries(rebaseline(kit, split, payload.fields, record)?.written ?? {}));
      const reviews = waiting.map((s) => {
        const delivered = s.results![payload.language];
        const text = edited.get(s.key);
        const changed = text !== undefined && kit.normalize(text) !== kit.normalize(delivered.text);
        return {
          id: delivered.id!,
          outcome: payload.outcome,
          ...(payload.outcome === "approved" && changed ? { text } : {}),
          ...(payload.reviewer ? { reviewer: payload.reviewer.slice(0, 200) } : {}),
        };
      });
      if (reviews.length) {
        const { updated } = await kit.review(api, reviews, { retry: RETRY });
        this.strapi.log.info(`transync: ${updated} ${payload.outcome} in ${payload.language} for unit ${task.unit}`);
      }
      // The editor's decision is the new baseline: the draft as it is now counts as written (a later machine text may replace it).
      if (type && locale && split) await this.store.saveDraft(task.unit, locale, rebaseline(kit, split, await this.targetDraft(type, task.entry, locale), record));
      await this.store.done(task);
    }
  }
}

/** A TransyncError-like error for a raw client call the service refused. */
async function refused(what: string, response: Response, error: { detail?: string } | undefined): Promise<Error> {
  const e = new Error(`${what}: ${response.status} ${error?.detail ?? response.statusText}`) as Error & { status: number; detail?: string };
  e.status = response.status;
  e.detail = error?.detail;
  return e;
}

/** A problem in words an administrator can act on (never the key or any text). */
export function describe(error: unknown, config: TransyncConfig): string {
  const e = error as { status?: number; detail?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e?.status === 401) return `the service at ${config.url} refused the API key (401): check the key in ${config.keyEnv}`;
  if (e?.status === 403) return `the service at ${config.url} refused the call (403): ${e.detail ?? e.message}`;
  if (e?.status) return `the service at ${config.url} answered ${e.status}: ${e.detail ?? e.message}`;
  if (e?.message === "fetch failed" || e?.cause?.code) return `the service at ${config.url} is unreachable (${e.cause?.code ?? e.cause?.message ?? e.message})`;
  return e?.message ?? String(error);
}

export type { DraftRecord };
