/**
 * A site's point-in-time restore (POST /admin/v1/sites/{site_id}/restore, docs/ops/backups.md):
 * the site object's storage goes back to `at` (within the 30 days Cloudflare keeps), audited.
 * D1 (keys, settings, usage) is not touched: D1 has its own Time Travel, for every tenant at once.
 */
import { auditStatement } from "../control/audit";
import { controlDb } from "../control/db";
import { ApiError } from "../errors";
import { log } from "../obs/log";
import type { Actor, SiteRef } from "./actor";

export const RESTORE_WINDOW_MS = 30 * 86_400_000;

export async function restoreSite(env: Env, actor: Actor, site: SiteRef, at: Date, now: Date) {
  if (at.getTime() > now.getTime()) throw new ApiError(422, "at: must not be in the future.");
  if (at.getTime() < now.getTime() - RESTORE_WINDOW_MS) throw new ApiError(422, "at: must be within the last 30 days (what point-in-time recovery keeps).");
  const stub = env.SITE.getByName(String(site.id));
  const bookmark = await stub.restoreTo(at.getTime());
  // The object ends its session: this call fails by design; the next request starts it on the restored storage.
  await stub.endSessionForRestore().catch(() => undefined);
  const db = controlDb(env.DB);
  await auditStatement(db, { organizationId: site.organizationId, actor, action: "site.restore", target: `site:${site.id}`, detail: { at: at.toISOString() } }, now);
  log("warn", "site.restored", { site_id: site.id, org_id: site.organizationId, at: at.toISOString() });
  return { site_id: site.id, at: at.toISOString(), bookmark };
}
