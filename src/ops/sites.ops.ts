/**
 * Sites and their settings: create (the operator), read with the connector's latest
 * handshake, and change settings — the one path by which settings change, for the admin
 * API's PATCH and the dashboard's Settings page alike: D1 is patched with a bumped
 * `settings_version` and an audit entry in one batch, the isolate's key cache forgets the
 * site, and the new settings reach the site object before the caller answers, so the change
 * is effective at once. The object keeps the highest version it has seen, so a request
 * carrying an older cached copy never undoes it.
 */
import { sql } from "drizzle-orm";
import type { SiteCreate, SitePatch } from "../api/admin.schemas";
import { auditStatement } from "../control/audit.control";
import { controlDb } from "../control/db";
import { forgetSite } from "../control/keys.control";
import { changedFields, insertSiteStatement, patchStatement, requireSite, type SiteSettings, siteSettingsOf } from "../control/sites.control";
import { notFound } from "../errors";
import { siteStub } from "../site/stub";
import type { Actor } from "./actor";
import { requireOrganization } from "./organizations.ops";

/** The admin API's site body: Site plus organization id, qa_mode and review_mode. */
export function siteOut(site: SiteSettings) {
  return {
    id: site.id,
    name: site.name,
    organization: site.organization,
    organization_id: site.organizationId,
    source_language: site.sourceLanguage,
    target_languages: site.targetLanguages,
    enabled_adapters: site.enabledAdapters,
    enabled_engines: site.enabledEngines,
    qa_mode: site.qaMode,
    review_mode: site.reviewMode,
    share_memory: site.shareMemory,
  };
}

/** The site's settings from D1, or 404. */
export async function loadSite(env: Env, siteId: number): Promise<SiteSettings> {
  return requireSite(controlDb(env.DB), siteId);
}

export async function createSite(env: Env, actor: Actor, input: SiteCreate): Promise<SiteSettings> {
  const org = await requireOrganization(env, input.organization_id);
  const db = controlDb(env.DB);
  const [[row]] = await db.batch([
    insertSiteStatement(db, org.id, input),
    auditStatement(db, {
      organizationId: org.id,
      actor,
      action: "site.create",
      // The new id is known only inside the batch: taken from the insert before it.
      target: sql`'site:' || last_insert_rowid()`,
      detail: { name: input.name, source_language: input.source_language, target_languages: input.target_languages.map((t) => t.code) },
    }),
  ]);
  return siteSettingsOf(row, org.name);
}

/** The site with its settings and the connector's latest handshake (null before one). */
export async function siteDetail(env: Env, siteId: number) {
  const site = await loadSite(env, siteId);
  const connector = await siteStub(env, site.id).connector(site);
  return { ...siteOut(site), connector };
}

export async function updateSiteSettings(env: Env, actor: Actor, siteId: number, patch: SitePatch): Promise<SiteSettings> {
  const db = controlDb(env.DB);
  const current = await requireSite(db, siteId);
  const fields = changedFields(current, patch);
  const [rows] = await db.batch([
    patchStatement(db, siteId, patch),
    // Field names only: values may be long or sensitive, and the settings themselves are in D1.
    auditStatement(db, { organizationId: current.organizationId, actor, action: "site.update", target: `site:${siteId}`, detail: { fields } }),
  ]);
  const row = rows[0];
  if (!row) throw notFound(`Site ${siteId}`); // deleted between the read and the patch
  const settings = siteSettingsOf(row, current.organization);
  forgetSite(siteId);
  // The object ignores them if it already has a newer version.
  await siteStub(env, settings.id).applySettings(settings);
  return settings;
}

/** The site's overview as the dashboard shows it: settings as the object sees them, the connector, counts, the latest jobs. */
export async function siteOverview(env: Env, site: SiteSettings) {
  const stub = siteStub(env, site.id);
  const [view, connector, status, jobs] = await Promise.all([stub.site(site), stub.connector(site), stub.status(site, ""), stub.listJobs(site, false)]);
  return { view, connector, status, jobs };
}
