/**
 * Starting a job, as `POST /v1/jobs` and the dashboard both do it: the scope's estimate from
 * the site object, the billing gate (402 without an entitled subscription, 409 when the job
 * needs confirmation and has none), then creation. One copy of the rules for both doors.
 */
import type { JobRequest } from "../api/schemas";
import { estimateCost } from "../billing/billing";
import { now } from "../clock";
import { controlDb } from "../control/db";
import type { SiteSettings } from "../control/sites";
import { ApiError } from "../errors";
import { siteStub } from "../site/stub";

export async function estimateJob(env: Env, site: SiteSettings, request: JobRequest) {
  const scope = await siteStub(env, site.id).estimateJob(site, request);
  const { ent, estimate } = await estimateCost(controlDb(env.DB), site, scope.estimated_characters, now());
  if (!ent.entitled) throw new ApiError(402, `Hosted translation is not available for this site: ${ent.reason}`, { code: ent.code, estimate: null });
  return { scope, estimate };
}

export type JobAnswer =
  | { kind: "estimate"; body: Awaited<ReturnType<typeof estimateJob>>["scope"] & { cost: Awaited<ReturnType<typeof estimateJob>>["estimate"] } }
  | { kind: "created"; job: Awaited<ReturnType<ReturnType<typeof siteStub>["createJob"]>> };

export async function requestJob(env: Env, site: SiteSettings, request: JobRequest): Promise<JobAnswer> {
  const { scope, estimate } = await estimateJob(env, site, request);
  if (request.estimate_only) return { kind: "estimate", body: { ...scope, cost: estimate } };
  if (estimate.requires_confirmation && !request.confirm)
    throw new ApiError(
      409,
      `This job needs confirmation: ${estimate.characters} billable characters` +
        (estimate.overage_characters ? `, ${estimate.overage_characters} of them beyond the included volume (about ${estimate.overage_cents} cents)` : "") +
        ". Repeat the request with confirm: true.",
      { code: "confirmation_required", estimate },
    );
  const job = await siteStub(env, site.id).createJob(site, request, {
    estimate: scope,
    confirmedCharacters: request.confirm ? estimate.characters : null,
  });
  return { kind: "created", job };
}
