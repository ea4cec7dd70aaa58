/** Jobs (spec "Create job", "List jobs") and usage, with the billing gate in front of job creation. */
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { JobEstimateOut, JobIdParam, JobIn, JobOut, JobsQuery, UsageOut } from "../api/schemas";
import { usageOut } from "../billing/billing";
import { now } from "../clock";
import type { App } from "../context";
import { controlDb } from "../control/db";
import { bearer, billingErrors, body, errors, notFoundResponse, ok, siteObject } from "./common";
import { requestJob } from "./job-request";

export const jobRoutes = new OpenAPIHono<App>();

jobRoutes.openapi(
  createRoute({
    method: "post",
    path: "/v1/jobs",
    security: bearer,
    request: body(JobIn),
    responses: {
      200: ok(JobEstimateOut, "Estimate only; nothing created"),
      202: ok(JobOut, "Job created and queued"),
      ...billingErrors,
      ...errors,
    },
  }),
  async (c) => {
    const answer = await requestJob(c.env, c.get("site"), c.req.valid("json"));
    return answer.kind === "estimate" ? c.json(answer.body, 200) : c.json(answer.job, 202);
  },
);

jobRoutes.openapi(
  createRoute({ method: "get", path: "/v1/jobs", security: bearer, request: { query: JobsQuery }, responses: { 200: ok(z.array(JobOut)), ...errors } }),
  async (c) => {
    const { stub, site } = siteObject(c);
    return c.json(await stub.listJobs(site, c.req.valid("query").active), 200);
  },
);

jobRoutes.openapi(
  createRoute({ method: "get", path: "/v1/jobs/{job_id}", security: bearer, request: { params: JobIdParam }, responses: { 200: ok(JobOut), ...errors, ...notFoundResponse } }),
  async (c) => {
    const { stub, site } = siteObject(c);
    return c.json(await stub.getJob(site, c.req.valid("param").job_id), 200);
  },
);

jobRoutes.openapi(
  createRoute({
    method: "post",
    path: "/v1/jobs/{job_id}/cancel",
    security: bearer,
    request: { params: JobIdParam },
    responses: { 200: ok(JobOut), ...errors, ...notFoundResponse },
  }),
  async (c) => {
    const { stub, site } = siteObject(c);
    return c.json(await stub.cancelJob(site, c.req.valid("param").job_id), 200);
  },
);

jobRoutes.openapi(
  createRoute({ method: "get", path: "/v1/usage", security: bearer, responses: { 200: ok(UsageOut), ...errors } }),
  async (c) => c.json(await usageOut(controlDb(c.env.DB), c.get("site"), now()), 200),
);
