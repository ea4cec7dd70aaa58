// The plugin's settings (config/plugins.ts → transync.config), their defaults and the checks
// that stop start-up with a message naming the setting. The API key is never a setting: it is
// read from the environment variable named by `keyEnv`, so config/plugins.ts can be committed.

export type JobPolicy = "on_change" | "on_demand";
export type SourceDeletePolicy = "unlink" | "delete";

export interface ContentTypeSettings {
  /** Attribute names to translate; default: every localized string, text, richtext and blocks attribute. */
  fields?: string[];
  /** The attribute sent as the unit's label; default `title`, else `name`, else the first string field. */
  titleField?: string;
}

export interface TransyncConfig {
  /** The service's address, e.g. https://api.transync.dev. */
  url: string;
  /** Name of the environment variable holding the site's API key (`tsk_…`). */
  keyEnv: string;
  /** Content types to translate (uid → settings); default: every i18n-localized `api::` type. */
  contentTypes?: Record<string, ContentTypeSettings>;
  /** Strapi locale code → the site's language code; a locale not listed keeps its own code. */
  locales: Record<string, string>;
  /** The source locale; default: Strapi's default locale. */
  sourceLocale?: string;
  /** `on_change`: a delta job after every push that changed something; `on_demand`: only POST /api/transync/jobs. */
  jobs: JobPolicy;
  /** Confirm jobs that need confirmation (large or beyond the plan's included volume). */
  confirmJobs: boolean;
  /** Cron rule of the sync task (6 fields with seconds). */
  cron: string;
  /** Public address of this Strapi (e.g. https://cms.example.com): the plugin registers its webhook route there. */
  webhookBaseUrl?: string;
  /** Units per push request (the kit cuts batches of at most 100 anyway). */
  batchSize: number;
  /** Milliseconds a change waits before it is pushed, so a burst of saves makes one push (at most five times as long in a steady burst). */
  pushDelay: number;
  /** What becomes of the target locales when the source locale of an entry is deleted: `unlink` keeps them as they are, `delete` deletes those never published. */
  onSourceDelete: SourceDeletePolicy;
}

export const DEFAULTS: Omit<TransyncConfig, "url"> & { url: string } = {
  url: "",
  keyEnv: "TRANSYNC_KEY",
  locales: {},
  jobs: "on_change",
  confirmJobs: false,
  cron: "*/30 * * * * *",
  batchSize: 100,
  pushDelay: 2000,
  onSourceDelete: "unlink",
};

export class ConfigError extends Error {
  constructor(setting: string, problem: string) {
    super(`transync plugin: config.${setting} ${problem} (config/plugins.ts → transync.config)`);
    this.name = "ConfigError";
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const LANGUAGE = /^[A-Za-z0-9_-]{2,15}$/;

/** Checks the settings Strapi merged over DEFAULTS; throws a ConfigError naming the first wrong one. */
export function validateConfig(raw: unknown, env: Record<string, string | undefined> = process.env): void {
  if (!isObject(raw)) throw new ConfigError("", "must be an object");
  if ("key" in raw || "apiKey" in raw) throw new ConfigError("key", `must not be set: the API key is read from the environment (${String(raw.keyEnv ?? DEFAULTS.keyEnv)}) only`);
  const url = raw.url;
  if (typeof url !== "string" || url === "") throw new ConfigError("url", "is missing: set it to the service's address (e.g. env('TRANSYNC_URL'))");
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ConfigError("url", `is not a URL: ${JSON.stringify(url)}`);
  }
  if (parsed.protocol !== "https:" && parsed.protocol !== "http:") throw new ConfigError("url", "must be an http(s) address");
  if (typeof raw.keyEnv !== "string" || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(raw.keyEnv)) throw new ConfigError("keyEnv", "must name an environment variable");
  if (!env[raw.keyEnv]) throw new ConfigError("keyEnv", `names ${raw.keyEnv}, which is not set: put the site's API key (tsk_…) in that environment variable`);
  if (raw.jobs !== "on_change" && raw.jobs !== "on_demand") throw new ConfigError("jobs", `must be "on_change" or "on_demand", not ${JSON.stringify(raw.jobs)}`);
  if (typeof raw.confirmJobs !== "boolean") throw new ConfigError("confirmJobs", "must be true or false");
  if (typeof raw.cron !== "string" || raw.cron.trim().split(/\s+/).length < 5) throw new ConfigError("cron", "must be a cron rule such as '*/30 * * * * *'");
  if (!Number.isInteger(raw.batchSize) || (raw.batchSize as number) < 1 || (raw.batchSize as number) > 100) throw new ConfigError("batchSize", "must be an integer from 1 to 100");
  if (!Number.isInteger(raw.pushDelay) || (raw.pushDelay as number) < 0 || (raw.pushDelay as number) > 600_000)
    throw new ConfigError("pushDelay", "must be a number of milliseconds from 0 to 600000");
  if (raw.onSourceDelete !== "unlink" && raw.onSourceDelete !== "delete")
    throw new ConfigError("onSourceDelete", `must be "unlink" or "delete", not ${JSON.stringify(raw.onSourceDelete)}`);
  if (!isObject(raw.locales)) throw new ConfigError("locales", "must map Strapi locale codes to the site's language codes");
  for (const [locale, language] of Object.entries(raw.locales)) {
    if (typeof language !== "string" || !LANGUAGE.test(language)) throw new ConfigError(`locales["${locale}"]`, "must be a language code (2 to 15 letters, digits, _ or -)");
  }
  if (raw.sourceLocale !== undefined && typeof raw.sourceLocale !== "string") throw new ConfigError("sourceLocale", "must be a Strapi locale code");
  if (raw.webhookBaseUrl !== undefined) {
    try {
      new URL(String(raw.webhookBaseUrl));
    } catch {
      throw new ConfigError("webhookBaseUrl", "must be this Strapi's public address (https://…)");
    }
  }
  if (raw.contentTypes !== undefined) {
    if (!isObject(raw.contentTypes)) throw new ConfigError("contentTypes", "must map content type uids (api::article.article) to settings");
    for (const [uid, settings] of Object.entries(raw.contentTypes)) {
      if (!isObject(settings)) throw new ConfigError(`contentTypes["${uid}"]`, "must be an object ({ fields, titleField })");
      if (settings.fields !== undefined && (!Array.isArray(settings.fields) || settings.fields.some((f) => typeof f !== "string")))
        throw new ConfigError(`contentTypes["${uid}"].fields`, "must be a list of attribute names");
      if (settings.titleField !== undefined && typeof settings.titleField !== "string") throw new ConfigError(`contentTypes["${uid}"].titleField`, "must be an attribute name");
    }
  }
}
