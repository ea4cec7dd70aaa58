/**
 * The operator's on-call endpoints of the admin API (docs/decisions.md "Operating the service"): deep
 * health, organizations and sites, a site's diagnostics and jobs, key look-up, suspension and
 * the billing discrepancies. Same door as src/routes/admin.routes.ts (ADMIN_TOKEN, checked in
 * src/auth.ts); each handler calls one operation of src/ops/oncall.ops.ts, which audits changes.
 */
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import {
  AdminJobsQuery,
  CancelIn,
  DeepHealthOut,
  DiagnosticsOut,
  DiscrepanciesOut,
  KeyLookupIn,
  KeyLookupOut,
  ONCALL_EXAMPLES,
  OrganizationsOut,
  OrganizationsQuery,
  SitesOut,
  SitesQuery,
  SuspendIn,
  SuspensionOut,
} from "../api/oncall.schemas";
import { ErrorOut, JobOut, OptionalMonthQuery, SiteIdParam } from "../api/schemas";
import type { App } from "../context";
import { cancelJob } from "../ops/jobs.ops";
import { billingDiscrepancies, deepHealth, listOrganizations, listSites, lookupKey, setSuspension, siteDiagnostics, siteJobs } from "../ops/oncall.ops";
import { loadSite } from "../ops/sites.ops";
import { adminErrors, body, bodyErrors, notFoundResponse, ok } from "./common";

export const oncallRoutes = new OpenAPIHono<App>();
const admin = [{ admin: [] as string[] }];
const JobIdParam = SiteIdParam.extend({ job_id: z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER) });

oncallRoutes.openapi(
  createRoute({
    method: "get",
    path: "/admin/v1/health",
    operationId: "adminGetHealth",
    summary: "Deep health",
    description:
      "Whether D1 and a site object answer (200 when both do, 503 otherwise, with the same body), how mail, the webhook queue and billing are wired, which engines are configured, which development switches are on, and the version answering.",
    tags: ["admin"],
    security: admin,
    responses: {
      200: ok(DeepHealthOut, "Everything the service needs answers", ONCALL_EXAMPLES.health),
      503: ok(DeepHealthOut, "D1 or the site objects did not answer (the body says which)"),
      ...adminErrors,
    },
  }),
  async (c) => {
    const { body, ok } = await deepHealth(c.env);
    return c.json(body, ok ? 200 : 503);
  },
);

oncallRoutes.openapi(
  createRoute({
    method: "get",
    path: "/admin/v1/organizations",
    operationId: "adminListOrganizations",
    summary: "List organizations",
    description: "Organizations by id, 50 a page, with their plan, subscription status and number of sites. `q` matches a part of the name, or an id.",
    tags: ["admin"],
    security: admin,
    request: { query: OrganizationsQuery },
    responses: { 200: ok(OrganizationsOut, "A page of organizations", ONCALL_EXAMPLES.organizations), ...adminErrors },
  }),
  async (c) => c.json(await listOrganizations(c.env, c.req.valid("query")), 200),
);

oncallRoutes.openapi(
  createRoute({
    method: "get",
    path: "/admin/v1/sites",
    operationId: "adminListSites",
    summary: "List sites",
    description: "Sites by id, 50 a page, of one organization or all, with whether each is suspended.",
    tags: ["admin"],
    security: admin,
    request: { query: SitesQuery },
    responses: { 200: ok(SitesOut, "A page of sites", ONCALL_EXAMPLES.sites), ...adminErrors },
  }),
  async (c) => c.json(await listSites(c.env, c.req.valid("query")), 200),
);

oncallRoutes.openapi(
  createRoute({
    method: "get",
    path: "/admin/v1/sites/{site_id}/diagnostics",
    operationId: "adminGetSiteDiagnostics",
    summary: "A site's diagnostics",
    description:
      "What the site object knows of itself: its storage in bytes and its limit, its alarm and timed needs, queued and running jobs, usage rows not yet in D1, its latest migration, the job runner's faults in a row, and its suspension.",
    tags: ["admin"],
    security: admin,
    request: { params: SiteIdParam },
    responses: { 200: ok(DiagnosticsOut, "The site's diagnostics", ONCALL_EXAMPLES.diagnostics), ...adminErrors, ...notFoundResponse },
  }),
  async (c) => c.json(await siteDiagnostics(c.env, c.req.valid("param").site_id), 200),
);

oncallRoutes.openapi(
  createRoute({
    method: "get",
    path: "/admin/v1/sites/{site_id}/jobs",
    operationId: "adminListSiteJobs",
    summary: "A site's jobs",
    description: "The site's latest jobs (as `GET /v1/jobs` lists them), or only `active` ones (queued and running), or those of one status.",
    tags: ["admin"],
    security: admin,
    request: { params: SiteIdParam, query: AdminJobsQuery },
    responses: { 200: ok(z.object({ jobs: z.array(JobOut).openapi({ description: "The jobs, as the connector sees them." }) }), "The jobs"), ...adminErrors, ...notFoundResponse },
  }),
  async (c) => c.json(await siteJobs(c.env, c.req.valid("param").site_id, c.req.valid("query").status), 200),
);

oncallRoutes.openapi(
  createRoute({
    method: "post",
    path: "/admin/v1/sites/{site_id}/jobs/{job_id}/cancel",
    operationId: "adminCancelSiteJob",
    summary: "Cancel a site's job",
    description:
      "As the connector's cancel: a queued job is cancelled at once and its reservation released; a running one stops at its next step, keeping what it translated. A finished job is answered as it is. " +
      "An optional `reason` is kept on the job (`cancel_reason`), which the connector and the dashboard show the customer. Audited (`job.cancel`, with the operator's name and the reason).",
    tags: ["admin"],
    security: admin,
    request: { params: JobIdParam, ...body(CancelIn, { reason: "Cancelled by support: a runaway job; the characters done are credited." }, false) },
    responses: { 200: ok(JobOut, "The job"), ...adminErrors, ...notFoundResponse, ...bodyErrors },
  }),
  async (c) => {
    const { site_id, job_id } = c.req.valid("param");
    // Without a body (no Content-Type) there is no reason: the validator hands over {} unread.
    const reason = c.req.header("content-type") ? (c.req.valid("json").reason ?? null) : null;
    return c.json(await cancelJob(c.env, c.var.adminActor, await loadSite(c.env, site_id), job_id, reason), 200);
  },
);

oncallRoutes.openapi(
  createRoute({
    method: "post",
    path: "/admin/v1/keys/lookup",
    operationId: "adminGetKeyOwner",
    summary: "Find a key's site",
    description:
      "Which site and organization a key belongs to (a leaked key, a key quoted in a ticket), revoked keys included: by the whole `key` (only its hash is looked up; the key is neither stored nor logged), or by its `prefix` (`tsk_` + 6 characters, as log lines' `key_prefix` show it). 404 when no key matches; 409 when two keys share the prefix (`detail` names them). Audited (`key.lookup`). Revoke it with `DELETE /admin/v1/sites/{site_id}/keys/{key_id}`.",
    tags: ["admin"],
    security: admin,
    request: body(KeyLookupIn, ONCALL_EXAMPLES.keyLookupIn),
    responses: {
      200: ok(KeyLookupOut, "The key's site", ONCALL_EXAMPLES.keyLookup),
      409: ok(ErrorOut, "More than one key begins with the prefix: send the whole key"),
      ...adminErrors,
      ...notFoundResponse,
      ...bodyErrors,
    },
  }),
  async (c) => c.json(await lookupKey(c.env, c.var.adminActor, c.req.valid("json")), 200),
);

oncallRoutes.openapi(
  createRoute({
    method: "post",
    path: "/admin/v1/sites/{site_id}/suspend",
    operationId: "adminSetSiteSuspension",
    summary: "Suspend a site",
    description:
      "The site's keys answer 403 `site suspended: <reason>; contact support` (at once in this isolate, within 30 seconds everywhere), its jobs stop at their next step (they stay queued or running, and go on once resumed), and the dashboard shows the suspension. Audited (`site.suspend`).",
    tags: ["admin"],
    security: admin,
    request: { params: SiteIdParam, ...body(SuspendIn, ONCALL_EXAMPLES.suspendIn) },
    responses: { 200: ok(SuspensionOut, "The site is suspended", ONCALL_EXAMPLES.suspended), ...adminErrors, ...notFoundResponse, ...bodyErrors },
  }),
  async (c) => c.json(await setSuspension(c.env, c.var.adminActor, c.req.valid("param").site_id, c.req.valid("json").reason, c.var.clock()), 200),
);

oncallRoutes.openapi(
  createRoute({
    method: "delete",
    path: "/admin/v1/sites/{site_id}/suspend",
    operationId: "adminDeleteSiteSuspension",
    summary: "Resume a site",
    description: "Ends a suspension: the keys work again and the site's waiting jobs go on. Audited (`site.resume`).",
    tags: ["admin"],
    security: admin,
    request: { params: SiteIdParam },
    responses: { 200: ok(SuspensionOut, "The site is no longer suspended", ONCALL_EXAMPLES.resumed), ...adminErrors, ...notFoundResponse },
  }),
  async (c) => c.json(await setSuspension(c.env, c.var.adminActor, c.req.valid("param").site_id, null, c.var.clock()), 200),
);

oncallRoutes.openapi(
  createRoute({
    method: "get",
    path: "/admin/v1/billing/discrepancies",
    operationId: "adminListBillingDiscrepancies",
    summary: "Usage that arrived after its month was closed",
    description:
      "Closes whose month's usage in the ledger differs from what was closed (usage that reached D1 after the close, e.g. while D1 was unavailable at the month's end): invoice `late_characters` by hand. The daily check logs each as `billing.late_usage`. All closed months without `month`.",
    tags: ["admin"],
    security: admin,
    request: { query: OptionalMonthQuery },
    responses: { 200: ok(DiscrepanciesOut, "The discrepancies", ONCALL_EXAMPLES.discrepancies), ...adminErrors },
  }),
  async (c) => c.json({ discrepancies: await billingDiscrepancies(c.env, c.req.valid("query").month) }, 200),
);
