/** Jobs (spec "Create job", "List jobs") and usage, with the billing gate in front of job creation. */
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { EXAMPLES } from "../api/examples";
import { JobEstimateOut, JobIdParam, JobIn, JobOut, JobsQuery, UsageOut } from "../api/schemas";
import type { App } from "../context";
import { cancelJob, requestJob } from "../ops/jobs.ops";
import { siteUsage } from "../ops/organizations.ops";
import { authErrors, bearer, billingErrors, body, bodyErrors, errors, notFoundResponse, ok, siteObject } from "./common";

export const jobRoutes = new OpenAPIHono<App>();

jobRoutes.openapi(
  createRoute({
    method: "post",
    path: "/v1/jobs",
    operationId: "createJob",
    summary: "Estimate or start a translation job",
    description:
      "`delta` covers every missing, stale or rejected segment of the site in its writable target languages (`prefix` narrows it to units whose key starts with it); " +
      "`translate` covers the same segments of the given `units`; a key that names no unit of the site (never pushed, or deleted) is a 422 naming the unknown keys (the first 10), and nothing is created (also with `estimate_only`). `units` on a delta job, or `prefix` on a translate job, is a 422. " +
      "`languages` that are not writable target languages are dropped; if none remain the answer is 422. " +
      "`force: true` retranslates every segment in scope (approved, in review and held back ones too), each forced result getting a new result id; without it, segments held back by QA are not retranslated.\n\n" +
      "`estimate_only: true` answers 200 with the estimate and creates nothing. Otherwise the job is queued (202) and runs after the site's earlier jobs, one at a time in request order; results appear in `listResults` while it runs. " +
      "A job covers the work that existed when it was requested: segments added, restored or made longer after it, units restored or whose `writable_languages` changed, and translations made stale or rejected after it are left to the next job; a segment that needed work and changed since (not longer) is translated as it is now. It never bills more than its `estimated_characters`, and it is never failed because the site changed after it was confirmed. " +
      "No subscription covering the site: 402. A job with more than 100,000 billable characters, or one that would use characters beyond the plan's included volume, needs confirmation: " +
      "without `confirm: true` the answer is 409 `confirmation_required` with the `estimate`; repeating the request with `confirm: true` creates it. " +
      "Billable characters (Unicode code points, per target language) exclude translation-memory hits and repeated texts within the job.",
    tags: ["jobs"],
    security: bearer,
    // No body at all is a delta job of the whole site (every field has a default).
    request: body(JobIn, EXAMPLES.jobIn, false),
    responses: {
      200: ok(JobEstimateOut, "Estimate only (`estimate_only: true`); nothing created", EXAMPLES.jobEstimate),
      202: ok(JobOut, "Job created and queued", {
        ...EXAMPLES.job,
        status: "queued",
        done_segments: 0,
        characters: 0,
        tm_segments: 0,
        tm_characters: 0,
        reused_segments: 0,
        reused_characters: 0,
        qa_failed_segments: 0,
        started_at: null,
      }),
      ...billingErrors,
      ...errors,
      ...bodyErrors,
    },
  }),
  async (c) => {
    // Without a body the validator hands over {} as it is (the body is optional): the defaults, a delta job of the whole site.
    const input = c.req.header("content-type") ? c.req.valid("json") : JobIn.parse({});
    const answer = await requestJob(c.env, null, c.get("site"), input, c.var.clock());
    return answer.kind === "estimate" ? c.json(answer.body, 200) : c.json(answer.job, 202);
  },
);

jobRoutes.openapi(
  createRoute({
    method: "get",
    path: "/v1/jobs",
    operationId: "listJobs",
    summary: "List recent or active jobs",
    description: "Without `active`, the 20 most recent jobs of the site, newest first; with `active=true`, the queued and running ones.",
    tags: ["jobs"],
    security: bearer,
    request: { query: JobsQuery },
    responses: { 200: ok(z.array(JobOut), "The jobs", EXAMPLES.jobs), ...errors },
  }),
  async (c) => {
    const { stub, site } = siteObject(c);
    return c.json(await stub.listJobs(site, c.req.valid("query").active), 200);
  },
);

jobRoutes.openapi(
  createRoute({
    method: "get",
    path: "/v1/jobs/{job_id}",
    operationId: "getJob",
    summary: "Get a job",
    description:
      "A job with its progress (`done_segments`, `failed_segments`, `characters` billed so far) and its per-language `errors` (for example a language no enabled engine supports: those segments stay missing). " +
      "Poll it until `status` is `succeeded`, `failed` or `cancelled`. An unknown id is a 404.",
    tags: ["jobs"],
    security: bearer,
    request: { params: JobIdParam },
    responses: { 200: ok(JobOut, "The job", EXAMPLES.job), ...errors, ...notFoundResponse },
  }),
  async (c) => {
    const { stub, site } = siteObject(c);
    return c.json(await stub.getJob(site, c.req.valid("param").job_id), 200);
  },
);

jobRoutes.openapi(
  createRoute({
    method: "post",
    path: "/v1/jobs/{job_id}/cancel",
    operationId: "cancelJob",
    summary: "Cancel a job",
    description:
      "A queued or running job becomes `cancelled`; segments already translated are kept and delivered. Cancelling a finished job answers it unchanged, so a retried cancel is safe. An unknown id is a 404.",
    tags: ["jobs"],
    security: bearer,
    request: { params: JobIdParam },
    responses: { 200: ok(JobOut, "The job after cancelling", { ...EXAMPLES.job, status: "cancelled", finished_at: "2026-11-22T10:03:00.000Z" }), ...errors, ...notFoundResponse },
  }),
  async (c) => {
    return c.json(await cancelJob(c.env, null, c.get("site"), c.req.valid("param").job_id), 200);
  },
);

jobRoutes.openapi(
  createRoute({
    method: "get",
    path: "/v1/usage",
    operationId: "getUsage",
    summary: "Get this month's usage",
    description:
      "This calendar month's (UTC) billable characters in the site's usage scope — the site itself on the `pro` plan (`per_site: true`), the organization otherwise — with the plan's included volume (null when not metered) and whether hosted translation is available (`entitled`, and `reason` when not).",
    tags: ["usage"],
    security: bearer,
    responses: { 200: ok(UsageOut, "This month's usage", EXAMPLES.usage), ...authErrors },
  }),
  async (c) => c.json(await siteUsage(c.env, c.get("site"), c.var.clock()), 200),
);
