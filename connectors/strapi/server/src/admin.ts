// The admin panel's routes (under /transync, on the admin's own session): the Transync page's
// overview and the content manager's edit-view panel (each locale's state, its conflicts,
// "translate now"). Two permissions of this plugin decide who may do what
// (Settings → Roles → Plugins → Transync): `plugin::transync.read` to see, `plugin::transync.jobs`
// to start jobs. Taking or dismissing a conflict writes the locale's draft, so it also needs the
// content manager's update permission on that content type.
import { adminPath, unitKey } from "./fields";
import type { Schemas } from "./kit";
import { describe, type HandshakeSeen, type Sync } from "./sync";

// biome-ignore lint/suspicious/noExplicitAny: Strapi's instance and Koa's context.
type Any = any;

export const PERMISSIONS = [
  { section: "plugins", displayName: "Read the Transync page and panel", uid: "read", pluginName: "transync" },
  { section: "plugins", displayName: "Start translation jobs", uid: "jobs", pluginName: "transync" },
];
export const READ = "plugin::transync.read";
export const JOBS = "plugin::transync.jobs";

const policies = (action: string) => ["admin::isAuthenticatedAdmin", { name: "admin::hasPermissions", config: { actions: [action] } }];

export const adminRoutes = {
  type: "admin",
  routes: [
    { method: "GET", path: "/overview", handler: "admin.overview", config: { policies: policies(READ) } },
    { method: "POST", path: "/sync", handler: "admin.sync", config: { policies: policies(READ) } },
    { method: "POST", path: "/jobs", handler: "admin.jobs", config: { policies: policies(JOBS) } },
    { method: "GET", path: "/entries/:uid/:documentId", handler: "admin.entry", config: { policies: policies(READ) } },
    { method: "POST", path: "/entries/:uid/:documentId/translate", handler: "admin.translate", config: { policies: policies(JOBS) } },
    { method: "POST", path: "/entries/:uid/:documentId/conflicts", handler: "admin.conflict", config: { policies: policies(READ) } },
  ],
};

/** A call to the service for a page: its answer, or the problem (which also sets the connection's state). */
async function ask<T>(call: () => Promise<{ data?: T; error?: { detail?: string }; response: Response }>): Promise<T> {
  const { data, error, response } = await call();
  if (error || data === undefined) {
    const e = Object.assign(new Error(error?.detail ?? response.statusText), { status: response.status, detail: error?.detail });
    throw e;
  }
  return data;
}

async function noteProblem(sync: Sync, error: unknown): Promise<string> {
  const message = describe(error, sync.config());
  const e = error as { status?: number };
  await sync.setConnection(e?.status === 401 ? "wrong_key" : e?.status ? "refused" : /unreachable/.test(message) ? "unreachable" : "error", message);
  return message;
}

export type LocaleState = "up_to_date" | "translating" | "in_review" | "stale" | "conflict" | "not_sent";

export const adminController = ({ strapi }: { strapi: Any }) => {
  const sync = (): Sync => strapi.plugin("transync").service("sync");
  const can = (ctx: Any, action: string, subject?: string) => ctx.state.userAbility?.can(action, subject) === true;

  return {
    /** GET /transync/overview: everything the Transync page shows. */
    async overview(ctx: Any) {
      const s = sync();
      const config = s.config();
      const locales = await s.locales();
      const handshake = await s.getStored<HandshakeSeen>("handshake");
      const tasks = await s.store.all();
      const webhook = await s.webhookSettings();
      const body: Record<string, unknown> = {
        service: { url: config.url, dashboard: null },
        connection: await s.getConnection(),
        handshake,
        locales: {
          source: locales.source,
          targets: locales.targets.map((locale) => {
            const language = locales.language(locale);
            const target = handshake?.targets.find((t) => t.code === language);
            // null before the first handshake: not known yet.
            return { locale, language, atSite: handshake ? Boolean(target) : null, writable: target?.writable ?? false };
          }),
          // The site's languages this Strapi has no locale for (the owner adds them in Settings → Internationalization).
          notInStrapi: (handshake?.targets ?? []).map((t) => t.code).filter((code) => !locales.targets.some((l) => locales.language(l) === code)),
        },
        backfill: (await s.getStored<string[]>("backfill")) ?? [],
        jobs: { policy: config.jobs, active: [] as Schemas["JobOut"][] },
        queue: {
          pending: tasks.length,
          failing: tasks.filter((t) => t.lastError).map((t) => ({ unit: t.unit, kind: t.kind, attempts: t.attempts, error: t.lastError, due: t.due })),
        },
        errors: (await s.getStored("errors")) ?? [],
        conflicts: await Promise.all(
          (await s.store.allConflicts()).map(async (c) => {
            const row = await s.store.unit(c.unit);
            const type = row ? s.types.get(row.contentType) : undefined;
            const source = type && row ? await s.sourceEntry(type, row.entry, locales) : null;
            const label = type?.titleField && typeof source?.[type.titleField] === "string" ? (source[type.titleField] as string) : null;
            return { ...c, label, path: type && row ? adminPath(type, row.entry, c.locale) : null };
          }),
        ),
        webhook: { registered: Boolean(webhook), url: webhook?.url ?? null },
        site: null,
        units: [],
        moreUnits: false,
        canStartJobs: can(ctx, JOBS),
      };
      try {
        const { api } = await s.client();
        const [site, units, active] = await Promise.all([
          ask(() => api.GET("/v1/status")),
          ask(() => api.GET("/v1/units", { params: { query: { limit: 50 } } })),
          ask(() => api.GET("/v1/jobs", { params: { query: { active: true } } })),
        ]);
        body.site = site;
        body.units = units.units;
        body.moreUnits = units.next_cursor !== null;
        (body.jobs as { active: unknown }).active = active;
        if ((await s.getConnection()).state !== "ok") await s.setConnection("ok", null);
        body.connection = await s.getConnection();
      } catch (error) {
        await noteProblem(s, error);
        body.connection = await s.getConnection();
      }
      ctx.body = body;
    },

    /** POST /transync/sync: a pass now. */
    async sync(ctx: Any) {
      await sync().run("manual");
      ctx.body = { connection: await sync().getConnection() };
    },

    /** POST /transync/jobs: a delta job now (also back-fills the languages the site gained). */
    async jobs(ctx: Any) {
      const s = sync();
      await s.run("manual");
      try {
        const { api } = await s.client();
        const job = await s.startJob(api, { type: "delta" });
        if (!job) return answerRefusal(ctx, s);
        await s.setStored("backfill", []);
        ctx.status = 202;
        ctx.body = { job };
      } catch (error) {
        ctx.status = 502;
        ctx.body = { error: await noteProblem(s, error) };
      }
    },

    /** GET /transync/entries/:uid/:documentId: each target locale's state, its conflicts, and whether this admin may start jobs. */
    async entry(ctx: Any) {
      const s = sync();
      const { uid, documentId } = ctx.params;
      const type = s.types.get(uid);
      if (!type) {
        ctx.body = { tracked: false };
        return;
      }
      const locales = await s.locales();
      const unit = unitKey(uid, documentId);
      const tasks = await s.store.tasksOf(unit);
      const drafts = await s.store.drafts(unit);
      const source = await s.sourceEntry(type, documentId, locales);
      let status: Schemas["UnitStatusOut"] | null = null;
      let active: Schemas["JobOut"][] = [];
      let problem: string | null = null;
      try {
        const { api } = await s.client();
        const answer = await api.GET("/v1/units/{external_key}/status", { params: { path: { external_key: unit } } });
        if (answer.response.status !== 404) status = await ask(async () => answer);
        active = await ask(() => api.GET("/v1/jobs", { params: { query: { active: true } } }));
      } catch (error) {
        problem = await noteProblem(s, error);
      }
      const pushing = tasks.some((t) => t.kind === "push");
      const covers = (job: Schemas["JobOut"], language: string) =>
        job.languages.includes(language) && (job.units ? job.units.includes(unit) : !job.prefix || unit.startsWith(job.prefix));
      const states = locales.targets.map((locale) => {
        const language = locales.language(locale);
        const counts = status?.languages.find((l) => l.code === language) ?? null;
        const conflicts = drafts.get(locale)?.conflicts ?? [];
        const work = counts ? counts.missing + counts.stale : 0;
        let state: LocaleState;
        if (conflicts.length) state = "conflict";
        else if (pushing || (work > 0 && active.some((j) => covers(j, language)))) state = "translating";
        else if (!status) state = "not_sent";
        else if (work > 0) state = "stale";
        else if (counts && counts.review + counts.attention > 0) state = "in_review";
        else state = "up_to_date";
        return { locale, language, state, counts, conflicts: conflicts.map(({ theirsValue: _, ...c }) => c) };
      });
      ctx.body = {
        tracked: true,
        unit,
        published: Boolean(source),
        queued: tasks.map((t) => ({ kind: t.kind, error: t.lastError })),
        dashboardUrl: status?.dashboard_url || null,
        problem,
        locales: states,
        canStartJobs: can(ctx, JOBS),
        canEdit: can(ctx, "plugin::content-manager.explorer.update", uid),
      };
    },

    /** POST /transync/entries/:uid/:documentId/translate `{locales?}`: the entry pushed and translated now (a `translate` job). */
    async translate(ctx: Any) {
      const s = sync();
      const { uid, documentId } = ctx.params;
      const type = s.types.get(uid);
      if (!type) return ctx.notFound("this content type is not translated by Transync");
      const locales = await s.locales();
      const asked: unknown = ctx.request.body?.locales;
      if (asked !== undefined && (!Array.isArray(asked) || asked.some((l) => typeof l !== "string" || !locales.targets.includes(l))))
        return ctx.badRequest(`locales must be a list of this Strapi's target locales (${locales.targets.join(", ")})`);
      if (!(await s.sourceEntry(type, documentId, locales))) return ctx.badRequest("the entry's source locale is not published: publish it first");
      const unit = unitKey(uid, documentId);
      await s.store.enqueue("push", unit, uid, documentId);
      await s.run("manual");
      try {
        const { api } = await s.client();
        const languages = (asked as string[] | undefined)?.map(locales.language);
        const job = await s.startJob(api, { type: "translate", units: [unit], ...(languages ? { languages } : {}) }, `translation job for ${unit}`);
        if (!job) return answerRefusal(ctx, s);
        ctx.status = 202;
        ctx.body = { job };
      } catch (error) {
        ctx.status = 502;
        ctx.body = { error: await noteProblem(s, error) };
      }
    },

    /** POST /transync/entries/:uid/:documentId/conflicts `{locale, target, choice: "take" | "keep"}`: resolves one conflict. */
    async conflict(ctx: Any) {
      const s = sync();
      const { uid, documentId } = ctx.params;
      if (!can(ctx, "plugin::content-manager.explorer.update", uid)) return ctx.forbidden("you may not edit this content type");
      const { locale, target, choice } = ctx.request.body ?? {};
      if (typeof locale !== "string" || typeof target !== "string" || (choice !== "take" && choice !== "keep"))
        return ctx.badRequest('the body must be {locale, target, choice: "take" | "keep"}');
      try {
        if (!(await s.resolveConflict(uid, documentId, locale, target, choice))) return ctx.notFound("no such conflict");
      } catch (error) {
        ctx.status = 502;
        ctx.body = { error: await noteProblem(s, error) };
        return;
      }
      ctx.body = { ok: true };
    },
  };
};

function answerRefusal(ctx: Any, s: Sync) {
  const refusal = s.lastJobRefusal;
  ctx.status = refusal?.status === 409 ? 409 : refusal?.status === 402 ? 402 : 422;
  ctx.body = { error: `no job started: ${refusal?.detail ?? "see Strapi's log"}` };
}
