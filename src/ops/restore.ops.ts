/**
 * A site's point-in-time restore (POST /admin/v1/sites/{site_id}/restore, docs/ops/backups.md):
 * the site object's storage goes back to `at` (within the 30 days Cloudflare keeps), audited.
 * A dry run answers what the restore would change and whether this runtime can restore at all.
 *
 * After the restore the object's first call cancels the jobs that were queued or running at `at`
 * (with a reason the customer reads) and skips the job ids D1 has seen since; the site's
 * reservations in D1 are released. D1 (keys, settings, the usage ledger) and the organization's
 * shared memory are not rewound: usage billed since `at` stays billed once. Undo: restore again,
 * to `restored_at` (the moment before this restore).
 */
import { eq, sql } from "drizzle-orm";
import { auditStatement } from "../control/audit.control";
import { controlDb } from "../control/db";
import { reservations } from "../control/schema";
import type { SiteSettings } from "../control/sites.control";
import { ApiError } from "../errors";
import { log } from "../obs/log";
import { siteStub } from "../site/stub";
import type { Actor } from "./actor";

export const RESTORE_WINDOW_MS = 30 * 86_400_000;

/** The reason a restore's cancelled jobs carry (`cancel_reason`). */
export const restoreReason = (at: Date) =>
  `The site was restored to ${at.toISOString()} by support: this job was under way then, and was cancelled. Start a new job to translate what is missing.`;

function checkMoment(at: Date, now: Date) {
  if (at.getTime() > now.getTime()) throw new ApiError(422, "at: must not be in the future.");
  if (at.getTime() < now.getTime() - RESTORE_WINDOW_MS) throw new ApiError(422, "at: must be within the last 30 days (what point-in-time recovery keeps).");
}

/** The dry run: what the site held at `at` and what would change (counts), whether it can be restored here; nothing changes. */
export async function previewRestore(env: Env, site: SiteSettings, at: Date, now: Date) {
  checkMoment(at, now);
  const preview = await siteStub(env, site.id).restorePreview(site, at.getTime());
  return { site_id: site.id, at: at.toISOString(), dry_run: true as const, ...preview };
}

export async function restoreSite(env: Env, actor: Actor, site: SiteSettings, at: Date, now: Date) {
  checkMoment(at, now);
  // 501 where the runtime has no point-in-time recovery (nothing changed then).
  const { bookmark, undo } = await siteStub(env, site.id).restoreTo(site, at.getTime());
  // The object ends its session: this call fails by design; the next call starts it on the restored storage.
  await env.SITE.getByName(String(site.id))
    .endSessionForRestore()
    .catch(() => undefined);
  const db = controlDb(env.DB);
  // Audited as soon as the storage is restored, whatever happens next (the next steps are repeated by restoring again).
  await auditStatement(
    db,
    {
      organizationId: site.organizationId,
      actor,
      action: "site.restore",
      target: `site:${site.id}`,
      detail: { at: at.toISOString(), restored_at: now.toISOString(), undo_bookmark: undo },
    },
    now,
  ).run();
  // The highest job id D1 holds for the site: the restored object's next job gets a higher one.
  const seen = await db.get<{ id: number | null }>(
    sql`SELECT max(job_id) AS id FROM (SELECT job_id FROM usage_ledger WHERE site_id = ${site.id} UNION ALL SELECT job_id FROM reservations WHERE site_id = ${site.id})`,
  );
  const { cancelled } = await afterRestore(env, site, restoreReason(at), seen?.id ?? 0);
  // No job of the restored site is under way: every reservation of the site goes.
  const released = await db.delete(reservations).where(eq(reservations.siteId, site.id)).returning({ jobId: reservations.jobId });
  log("warn", "site.restored", { site_id: site.id, org_id: site.organizationId, at: at.toISOString(), cancelled: cancelled.length, released: released.length });
  return {
    site_id: site.id,
    at: at.toISOString(),
    bookmark,
    restored_at: now.toISOString(),
    cancelled_jobs: cancelled,
    released_reservations: released.length,
  };
}

/** The restored object's first call; the object may still be starting after its abort, so it is asked twice before the error stands. */
async function afterRestore(env: Env, site: SiteSettings, reason: string, minJobId: number) {
  try {
    return await siteStub(env, site.id).afterRestore(site, reason, minJobId);
  } catch (err) {
    if (err instanceof ApiError) throw err;
    return siteStub(env, site.id).afterRestore(site, reason, minJobId);
  }
}
