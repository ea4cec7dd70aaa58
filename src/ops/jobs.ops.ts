/**
 * Jobs, as `POST /v1/jobs` (the connector) and the dashboard's overview both start them: the
 * scope's estimate from the site object, the billing gate (402 without an entitled
 * subscription, 409 when the job needs confirmation and has none), then creation. One copy
 * of the rules for every door. A person's start and cancel are audited; the connector's are
 * not (the audit log holds the operator's and people's changes).
 */
import type { Job, JobRequest } from "../api/schemas";
import { estimateCost } from "../billing/metering";
import { auditStatement } from "../control/audit.control";
import { controlDb } from "../control/db";
import type { SiteSettings } from "../control/sites.control";
import { ApiError } from "../errors";
import { siteStub } from "../site/stub";
import type { Actor } from "./actor";

/**
 * The scope's estimate (as answered: without the watermark it was taken at, which only the job
 * created from it keeps) and its cost; 402 without an entitled subscription.
 */
export async function estimateJob(env: Env, site: SiteSettings, request: JobRequest, at: Date) {
  const { watermark, ...scope } = await siteStub(env, site.id).estimateJob(site, request);
  const { ent, estimate } = await estimateCost(controlDb(env.DB), site, scope.estimated_characters, at);
  if (!ent.entitled) throw new ApiError(402, `Hosted translation is not available for this site: ${ent.reason}`, { code: ent.code, estimate: null });
  return { scope, estimate, watermark };
}

type Estimated = Awaited<ReturnType<typeof estimateJob>>;
export type JobAnswer = { kind: "estimate"; body: Estimated["scope"] & { cost: Estimated["estimate"] } } | { kind: "created"; job: Job };

/** An estimate (`estimate_only`) or a created job, priced at `at`; `actor` null is the site's connector. */
export async function requestJob(env: Env, actor: Actor | null, site: SiteSettings, request: JobRequest, at: Date): Promise<JobAnswer> {
  const { scope, estimate, watermark } = await estimateJob(env, site, request, at);
  if (request.estimate_only) return { kind: "estimate", body: { ...scope, cost: estimate } };
  if (estimate.requires_confirmation && !request.confirm)
    throw new ApiError(
      409,
      `This job needs confirmation: ${estimate.characters} billable characters` +
        (estimate.overage_characters ? `, ${estimate.overage_characters} of them beyond the included volume (about ${estimate.overage_cents} cents)` : "") +
        ". Repeat the request with confirm: true.",
      { code: "confirmation_required", estimate },
    );
  // The job's scope is the work its estimate counted: created with the estimate's watermark.
  const job = await siteStub(env, site.id).createJob(site, request, {
    estimate: { ...scope, watermark },
    confirmedCharacters: request.confirm ? estimate.characters : null,
  });
  if (actor) {
    const db = controlDb(env.DB);
    await auditStatement(db, {
      organizationId: site.organizationId,
      actor,
      action: "job.create",
      target: `site:${site.id}`,
      detail: { job_id: job.id, languages: job.languages, estimated_characters: job.estimated_characters },
    }).run();
  }
  return { kind: "created", job };
}

/**
 * Cancels a queued or running job (a finished one is answered unchanged); `actor` null is the site's
 * connector. `reason` (the operator's) is kept on the job for the customer to read.
 */
export async function cancelJob(env: Env, actor: Actor | null, site: SiteSettings, jobId: number, reason: string | null = null): Promise<Job> {
  const job = await siteStub(env, site.id).cancelJob(site, jobId, reason);
  if (actor) {
    const db = controlDb(env.DB);
    const detail = reason === null ? { job_id: jobId } : { job_id: jobId, reason };
    await auditStatement(db, { organizationId: site.organizationId, actor, action: "job.cancel", target: `site:${site.id}`, detail }).run();
  }
  return job;
}
