// One pass of the sync, run by the cron task, by the webhook route and by POST /api/transync/sync:
// handshake (when the locales or the plugin changed), push the queued units and deletes, start a
// delta job by the policy, pull the results and write them as drafts, report reviews. A pass
// that the service refuses or cannot be reached for stops where it is and leaves the queue as it
// is: the next pass tries again. Passes never overlap; asking for one while one runs makes one
// more run after it.
import type { TransyncConfig } from "./config";
import { adminPath, type TrackedType, unitKey } from "./fields";
import { type Kit, loadKit, type Schemas, type TransyncClient } from "./kit";
import { editorTexts, joinEntry, splitEntry } from "./segments";
import type { Store, Task } from "./store";

// biome-ignore lint/suspicious/noExplicitAny: Strapi's instance; this plugin uses a handful of its services.
type Strapi = any;
type Entry = Record<string, unknown>;

const VERSION: string = require("../package.json").version;
export const CONNECTOR_VERSION = `transync-strapi/${VERSION}`;
/** Push and ack calls retry once inside a pass; the cron is the longer retry. */
const RETRY = { attempts: 2, baseDelayMs: 500 };

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

export class Sync {
  types = new Map<string, TrackedType>();
  private running?: Promise<void>;
  private again = false;
  private handshakeSignature?: string;
  private lastProblem?: string;

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

  /** Runs a pass now, or once more after the one running. */
  run(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      do {
        this.again = false;
        await this.pass();
      } while (this.again);
    })().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async pass(): Promise<void> {
    try {
      const { kit, api } = await this.client();
      const locales = await this.locales();
      await this.handshake(api, locales);
      if (await this.pushQueued(kit, api, locales)) await this.setJobWanted(true);
      if (this.config().jobs === "on_change" && (await this.jobWanted())) await this.startJob(api);
      await this.pull(kit, api, locales);
      await this.sendReviews(kit, api, locales);
      if (this.lastProblem) this.strapi.log.info("transync: the service answers again; queued changes are being sent");
      this.lastProblem = undefined;
    } catch (error) {
      this.problem(error);
    }
  }

  /** Logs why a pass stopped (once per distinct problem, not at every tick); the queue stays for the next pass. */
  private problem(error: unknown): void {
    const message = describe(error, this.config());
    if (message === this.lastProblem) return;
    this.lastProblem = message;
    this.strapi.log.error(`transync: ${message}; nothing is lost: the queued changes are retried at the next pass`);
  }

  private async handshake(api: TransyncClient, locales: Locales): Promise<void> {
    const body: Schemas["HandshakeIn"] = {
      connector_version: CONNECTOR_VERSION,
      source_language: locales.language(locales.source),
      languages: locales.targets.map(locales.language),
      adapters: ["strapi"],
      capabilities: ["whole_unit"],
    };
    const signature = JSON.stringify(body);
    if (signature === this.handshakeSignature) return;
    const { data, error, response } = await api.POST("/v1/handshake", { body });
    if (error || !data) throw await refused("handshake", response, error);
    for (const warning of data.warnings) this.strapi.log.warn(`transync: the service warns: ${warning}`);
    if (data.review_mode !== "draft") this.strapi.log.warn(`transync: the site's review mode is ${data.review_mode}; this plugin writes drafts in every mode`);
    this.handshakeSignature = signature;
    this.strapi.log.info(`transync: handshake done (${body.languages?.length ?? 0} target languages, review mode ${data.review_mode})`);
    await this.registerWebhook(api);
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
    await this.pluginStore().set({ key: "webhook", value: { url, secret: data.secret } });
    this.strapi.log.info("transync: webhook registered");
  }

  pluginStore() {
    return this.strapi.store({ type: "plugin", name: "transync" });
  }

  async webhookSettings(): Promise<{ url: string; secret: string } | null> {
    return (await this.pluginStore().get({ key: "webhook" })) ?? null;
  }

  private async jobWanted(): Promise<boolean> {
    return (await this.pluginStore().get({ key: "jobWanted" })) === true;
  }
  private async setJobWanted(value: boolean): Promise<void> {
    await this.pluginStore().set({ key: "jobWanted", value });
  }

  /** The published source entry (the draft for types without draft & publish), or null. */
  private async sourceEntry(type: TrackedType, documentId: string, locales: Locales): Promise<Entry | null> {
    return this.strapi.documents(type.uid).findOne({ documentId, locale: locales.source, ...(type.draftAndPublish ? { status: "published" } : {}) });
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
        await this.store.removeUnit(task.unit);
        await this.store.done(task);
        this.strapi.log.info(`transync: unit ${task.unit} deleted`);
        continue;
      }
      const type = this.types.get(task.contentType);
      const entry = type ? await this.sourceEntry(type, task.entry, locales) : null;
      if (!type || !entry) {
        await this.store.done(task); // no longer translated, or nothing published yet: nothing to push
        continue;
      }
      const previous = (await this.store.unit(task.unit))?.segments ?? [];
      const split = splitEntry(kit, type, entry, previous);
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
        await this.store.failed(byKey.get(external_key)!.task, error);
      }
    }
    return changed;
  }

  /** Starts a delta job unless one is already queued (it will see the changes too). */
  async startJob(api: TransyncClient): Promise<Schemas["JobOut"] | null> {
    const active = await api.GET("/v1/jobs", { params: { query: { active: "true" } } });
    if (active.error || !active.data) throw await refused("job list", active.response, active.error);
    const queued = active.data.find((j) => j.status === "queued");
    if (queued) {
      await this.setJobWanted(false);
      return queued;
    }
    const { data, error, response } = await api.POST("/v1/jobs", { body: { type: "delta", confirm: this.config().confirmJobs } });
    if (response.status === 401 || response.status >= 500) throw await refused("job", response, error);
    await this.setJobWanted(false);
    const job = data as Schemas["JobOut"] | undefined;
    if (error || !job) {
      const why = response.status === 409 ? "it needs confirmation (start it in the dashboard, or set confirmJobs)" : `${response.status} ${error?.detail ?? ""}`;
      this.strapi.log.warn(`transync: no translation job started: ${why}`);
      return null;
    }
    this.strapi.log.info(`transync: translation job ${job.id} started`);
    return job;
  }

  /** Pulls pending results a unit and language at a time, writes each as a draft, then acknowledges it. */
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
          this.strapi.log.error(`transync: the ${language} draft of unit ${unit} could not be written (${describe(error, this.config())}); its results stay pending`);
        }
      }
      if (written.length) await kit.ack(api, written, { retry: RETRY });
    }
  }

  /** Writes one unit's results in one language as the draft of that locale; answers whether they may be acknowledged. */
  private async writeDraft(kit: Kit, api: TransyncClient, locales: Locales, unit: string, language: string, results: Schemas["ResultOut"][]): Promise<boolean> {
    const row = await this.store.unit(unit);
    const type = row ? this.types.get(row.contentType) : [...this.types.values()].find((t) => unit.startsWith(`${unitKey(t.uid, "")}`));
    const documentId = row?.entry ?? unit.slice(unit.indexOf(":") + 1);
    const locale = locales.locale(language);
    if (!type || !locale || locale === locales.source) {
      this.strapi.log.warn(`transync: results for unit ${unit} in ${language} have no place in Strapi (no such content type or locale); left pending`);
      return false;
    }
    const entry = await this.sourceEntry(type, documentId, locales);
    if (!entry) return true; // the source is gone: nothing to write, nothing to keep
    const split = splitEntry(kit, type, entry, row?.segments ?? []);
    const translations: Record<string, string> = Object.fromEntries(results.map((r) => [r.key, r.text]));
    if (split.segments.some((s) => translations[s.key] === undefined)) {
      // Segments translated earlier: their current translations, from the service.
      const { data } = await api.GET("/v1/units/{external_key}/status", { params: { path: { external_key: unit }, query: { include: "results" } } });
      for (const s of data?.segments ?? []) {
        const current = s.results?.[language];
        if (current && translations[s.key] === undefined && s.states[language] !== "stale" && s.states[language] !== "missing") translations[s.key] = current.text;
      }
    }
    const data = joinEntry(kit, split, translations);
    await this.strapi.documents(type.uid).update({ documentId, locale, status: "draft", data });
    this.strapi.log.info(`transync: ${locale} draft of ${type.uid} ${documentId} written (${results.length} segments)`);
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
      if (payload.outcome === "approved" && payload.fields && type) {
        const entry = await this.sourceEntry(type, task.entry, locales);
        const previous = (await this.store.unit(task.unit))?.segments ?? [];
        if (entry) edited = editorTexts(kit, splitEntry(kit, type, entry, previous), payload.fields);
      }
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
      await this.store.done(task);
    }
  }
}

/** A TransyncError-like error for a raw client call the service refused. */
async function refused(what: string, response: Response, error: { detail?: string } | undefined): Promise<Error> {
  const e = new Error(`${what}: ${response.status} ${error?.detail ?? response.statusText}`) as Error & { status: number };
  e.status = response.status;
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
