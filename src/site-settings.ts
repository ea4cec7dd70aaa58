/**
 * The one path by which a site's settings change (the admin API's PATCH and the dashboard):
 * D1 is patched with a bumped `settings_version` and an audit entry in one batch, the
 * isolate's key cache forgets the site, and the new settings are pushed to the site object
 * before the caller answers, so the change is effective at once. The object keeps the
 * highest version it has seen, so a request carrying an older cached copy never undoes it.
 */
import type { SitePatch } from "./api/schemas";
import { auditStatement } from "./control/audit";
import { controlDb } from "./control/db";
import { forgetSite } from "./control/keys";
import { changedFields, patchStatement, requireSite, siteSettingsOf, type SiteSettings } from "./control/sites";
import { notFound, unwrapRpc } from "./errors";
import type { SiteObject } from "./site/object";

export async function updateSiteSettings(env: Env, siteId: number, patch: SitePatch, actor: string): Promise<SiteSettings> {
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
  await pushSettings(env, settings);
  return settings;
}

/** Hands settings to the site object now (it ignores them if it already has a newer version). */
export async function pushSettings(env: Env, settings: SiteSettings) {
  const stub = env.SITE.getByName(String(settings.id)) as unknown as Pick<SiteObject, "applySettings">;
  unwrapRpc(await stub.applySettings(settings));
}
