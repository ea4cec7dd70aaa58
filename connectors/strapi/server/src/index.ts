// The Strapi plugin `transync` (@transync/strapi): its settings, hidden content types, the
// Document Service middleware, the cron task, the routes under /api/transync (API tokens, the
// webhook) and under /transync (the admin panel's page and edit-view panel, admin.ts).
import { adminController, adminRoutes, PERMISSIONS } from "./admin";
import { DEFAULTS, validateConfig } from "./config";
import { type ContentTypeSchema, resolveTypes } from "./fields";
import { loadKit } from "./kit";
import { documentMiddleware } from "./middleware";
import { RecentIds } from "./recent-ids";
import { contentTypes, Store } from "./store";
import { describe, Sync } from "./sync";

// biome-ignore lint/suspicious/noExplicitAny: Strapi's instance and Koa's context.
type Any = any;

let sync: Sync | undefined;
const current = () => {
  if (!sync) throw new Error("transync plugin is not started");
  return sync;
};

/**
 * Keeps the raw body of requests (koa-body's `includeUnparsed`): a webhook's signature is made
 * over the exact bytes sent, which a re-serialized JSON body need not reproduce.
 */
function keepRawBody(strapi: Any): void {
  const middlewares: Any[] = strapi.config.get("middlewares", []);
  strapi.config.set(
    "middlewares",
    middlewares.map((m) => {
      if (m === "strapi::body") return { name: "strapi::body", config: { includeUnparsed: true } };
      if (m?.name === "strapi::body") return { ...m, config: { ...m.config, includeUnparsed: true } };
      return m;
    }),
  );
}

const deliveries = new RecentIds();

const controller = ({ strapi }: { strapi: Any }) => ({
  /** GET /api/transync/status: the queue, the site's counts and the units with work. */
  async status(ctx: Any) {
    const s = current();
    const tasks = await s.store.all();
    const queue = {
      pending: tasks.length,
      failing: tasks.filter((t) => t.lastError).map((t) => ({ unit: t.unit, kind: t.kind, attempts: t.attempts, error: t.lastError, due: t.due })),
    };
    try {
      const { api } = await s.client();
      const site = await api.GET("/v1/status");
      const units = await api.GET("/v1/units", { params: { query: { limit: 100 } } });
      if (site.error || units.error) throw Object.assign(new Error((site.error ?? units.error)?.detail), { status: (site.error ? site.response : units.response).status });
      ctx.body = { queue, site: site.data, units: units.data!.units, more_units: units.data!.next_cursor !== null };
    } catch (error) {
      ctx.status = 502;
      ctx.body = { queue, error: describe(error, s.config()) };
    }
  },
  /** POST /api/transync/sync: a pass now (push, job by the policy, pull, reviews). */
  async sync(ctx: Any) {
    await current().run("manual");
    ctx.body = { ok: true };
  },
  /** POST /api/transync/jobs: starts a delta job now (the way to translate with `jobs: "on_demand"`). */
  async jobs(ctx: Any) {
    const s = current();
    await s.run(); // push what is queued first
    try {
      const { api } = await s.client();
      const job = await s.startJob(api);
      if (job) await s.setStored("backfill", []); // a delta job for every writable language back-fills too
      ctx.status = job ? 202 : 409;
      ctx.body = job ? { job } : { error: "no job started: see Strapi's log" };
    } catch (error) {
      ctx.status = 502;
      ctx.body = { error: describe(error, s.config()) };
    }
  },
  /** POST /api/transync/webhook: the service's webhook; verified, then a pass soon (the cron is the fallback). */
  async webhook(ctx: Any) {
    const s = current();
    const settings = await s.webhookSettings();
    if (!settings) return ctx.notFound("no webhook registered");
    const body = ctx.request.body ?? {};
    const raw: string = body[Symbol.for("unparsedBody")] ?? JSON.stringify(body);
    const kit = await loadKit();
    let event: { type: string };
    try {
      event = kit.verifyWebhook(settings.secret, ctx.request.headers, raw);
    } catch {
      strapi.log.warn("transync: a webhook delivery with a wrong signature was refused");
      return ctx.unauthorized("invalid signature");
    }
    const id = String(ctx.request.headers["webhook-id"] ?? "");
    if (!deliveries.add(id)) {
      strapi.log.info("transync: a webhook delivery seen before was ignored");
      ctx.status = 204;
      return;
    }
    if (event.type === "results.available" || event.type === "job.finished") void s.run("prompt");
    ctx.status = 204;
  },
});

export default {
  config: {
    default: DEFAULTS,
    validator: (config: unknown) => validateConfig(config),
  },
  contentTypes,
  controllers: { transync: controller, admin: adminController },
  services: { sync: () => current() },
  routes: {
    admin: adminRoutes,
    "content-api": {
      type: "content-api",
      routes: [
        { method: "GET", path: "/status", handler: "transync.status", config: { policies: [] } },
        { method: "POST", path: "/sync", handler: "transync.sync", config: { policies: [] } },
        { method: "POST", path: "/jobs", handler: "transync.jobs", config: { policies: [] } },
        { method: "POST", path: "/webhook", handler: "transync.webhook", config: { auth: false, policies: [] } },
      ],
    },
  },
  register({ strapi }: { strapi: Any }) {
    sync = new Sync(strapi, new Store(strapi));
    keepRawBody(strapi);
    strapi.documents.use(documentMiddleware(strapi, sync));
  },
  async bootstrap({ strapi }: { strapi: Any }) {
    const s = current();
    s.types = resolveTypes(s.config(), strapi.contentTypes as Record<string, ContentTypeSchema>);
    const locales = await s.locales();
    const config = s.config();
    for (const locale of Object.keys(config.locales))
      if (locale !== locales.source && !locales.targets.includes(locale))
        strapi.log.warn(`transync: config.locales names "${locale}", which is not a locale of this Strapi (Settings → Internationalization)`);
    await strapi.service("admin::permission").actionProvider.registerMany(PERMISSIONS);
    strapi.cron.add({ transyncSync: { task: () => s.run("scheduled"), options: { rule: config.cron } } });
    strapi.log.info(`transync: tracking ${[...s.types.values()].map((t) => `${t.uid} (${t.fields.map((f) => f.name).join(", ")})`).join("; ") || "no content type"}`);
  },
  destroy() {
    sync?.stop();
    sync = undefined;
  },
};
