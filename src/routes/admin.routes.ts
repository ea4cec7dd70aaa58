/**
 * The admin API (DESIGN.md): what site owners' tooling and the dashboard use to provision
 * organizations, subscriptions, sites, keys and glossaries. Every call needs ADMIN_TOKEN
 * (checked in src/auth.ts, before any body is read); every change is recorded in the audit log.
 */
import { createRoute, OpenAPIHono } from "@hono/zod-openapi";
import { eq, inArray } from "drizzle-orm";
import {
  AdminSiteOut,
  AttentionDecisionIn,
  AttentionOut,
  AttentionQuery,
  ErrorOut,
  GlossaryIn,
  KeyCreatedOut,
  KeyCreateIn,
  KeysOut,
  OrganizationIn,
  OrganizationOut,
  OrgIdParam,
  SiteCreateIn,
  SiteIdParam,
  SitePatchIn,
  SubscriptionIn,
  SubscriptionOut,
} from "../api/schemas";
import { z } from "@hono/zod-openapi";
import type { App } from "../context";
import { controlDb } from "../control/db";
import { AuditOut, AuditQuery, OrganizationUsageOut, UsageMonthQuery } from "../api/operator.schemas";
import { organizationUsage } from "../billing/usage";
import { auditStatement, listAudit, recordAudit } from "../control/audit";
import { eraseOrganization, eraseSite, idList } from "../control/erasure";
import { createKey, forgetSite, listKeys, revokeKey } from "../control/keys";
import { glossaryTerms, organizations, sites, subscriptions, subscriptionSites } from "../control/schema";
import { adminSiteOut, createSite, patchSite, requireSite } from "../control/sites";
import { ApiError, notFound } from "../errors";
import { decodeCursor, encodeCursor, isNumber } from "../site/cursor";
import { body, ok, rateLimited, siteStub } from "./common";

export const adminRoutes = new OpenAPIHono<App>();
const admin = [{ admin: [] as string[] }];
/** Who the audit log names for changes made with the admin token. */
const ADMIN_ACTOR = "admin";
const chunks = <T>(list: T[], size: number) => Array.from({ length: Math.ceil(list.length / size) }, (_, i) => list.slice(i * size, (i + 1) * size));
const errorOut = (description: string) => ({ content: { "application/json": { schema: ErrorOut } }, description });
const adminErrors = {
  401: errorOut("Missing or wrong admin token, or the admin API is disabled (ADMIN_TOKEN unset or shorter than 32 characters)"),
  422: errorOut("Validation failure; `detail` names the field and the rule"),
  429: { ...errorOut("Too many failed authentications from this address (60 a minute)"), headers: rateLimited[429].headers },
};
const adminNotFound = { 404: errorOut("Unknown organization or site") };


async function requireOrganization(c: { env: Env }, orgId: number) {
  const org = await controlDb(c.env.DB).select().from(organizations).where(eq(organizations.id, orgId)).get();
  if (!org) throw notFound(`Organization ${orgId}`);
  return org;
}

adminRoutes.openapi(
  createRoute({ method: "post", path: "/admin/v1/organizations", security: admin, request: body(OrganizationIn), responses: { 201: ok(OrganizationOut) } }),
  async (c) => {
    const db = controlDb(c.env.DB);
    const [row] = await db.insert(organizations).values({ name: c.req.valid("json").name }).returning();
    await recordAudit(db, { organizationId: row.id, actor: ADMIN_ACTOR, action: "organization.create", target: `organization:${row.id}`, detail: { name: row.name } });
    return c.json({ id: row.id, name: row.name }, 201);
  },
);

adminRoutes.openapi(
  createRoute({
    method: "put",
    path: "/admin/v1/organizations/{org_id}/subscription",
    security: admin,
    request: { params: OrgIdParam, ...body(SubscriptionIn) },
    responses: { 200: ok(SubscriptionOut) },
  }),
  async (c) => {
    const { org_id } = c.req.valid("param");
    const input = c.req.valid("json");
    await requireOrganization(c, org_id);
    const db = controlDb(c.env.DB);
    const siteIds = [...new Set(input.site_ids)];
    if (siteIds.length) {
      const found = await db.select({ id: sites.id, org: sites.organizationId }).from(sites).where(inArray(sites.id, idList(siteIds)));
      const foreign = found.filter((s) => s.org !== org_id).map((s) => s.id);
      const unknown = siteIds.filter((id) => !found.some((s) => s.id === id));
      if (unknown.length) throw new ApiError(422, `site_ids: unknown site ${unknown.join(", ")}`);
      if (foreign.length) throw new ApiError(422, `site_ids: site ${foreign.join(", ")} belongs to another organization`);
    }
    const now = new Date().toISOString();
    await db.batch([
      db
        .insert(subscriptions)
        .values({ organizationId: org_id, plan: input.plan, status: input.status, includedCharacters: input.included_characters ?? null, updatedAt: now })
        .onConflictDoUpdate({
          target: subscriptions.organizationId,
          set: { plan: input.plan, status: input.status, includedCharacters: input.included_characters ?? null, updatedAt: now },
        }),
      db.delete(subscriptionSites).where(eq(subscriptionSites.organizationId, org_id)),
      // D1 allows 100 bound parameters per statement: 2 columns → 50 rows per insert.
      ...chunks(siteIds, 50).map((ids) => db.insert(subscriptionSites).values(ids.map((siteId) => ({ organizationId: org_id, siteId })))),
      auditStatement(db, {
        organizationId: org_id,
        actor: ADMIN_ACTOR,
        action: "subscription.update",
        target: `organization:${org_id}`,
        detail: { plan: input.plan, status: input.status, sites: siteIds.length, included_characters: input.included_characters ?? null },
      }),
    ]);
    return c.json({ organization_id: org_id, plan: input.plan, status: input.status, site_ids: siteIds, included_characters: input.included_characters ?? null }, 200);
  },
);

adminRoutes.openapi(
  createRoute({
    method: "delete",
    path: "/admin/v1/organizations/{org_id}/subscription",
    security: admin,
    request: { params: OrgIdParam },
    responses: { 204: { description: "Deleted" } },
  }),
  async (c) => {
    const { org_id } = c.req.valid("param");
    await requireOrganization(c, org_id);
    const db = controlDb(c.env.DB);
    await db.batch([
      db.delete(subscriptionSites).where(eq(subscriptionSites.organizationId, org_id)),
      db.delete(subscriptions).where(eq(subscriptions.organizationId, org_id)),
      auditStatement(db, { organizationId: org_id, actor: ADMIN_ACTOR, action: "subscription.delete", target: `organization:${org_id}` }),
    ]);
    return c.body(null, 204);
  },
);

adminRoutes.openapi(
  createRoute({
    method: "put",
    path: "/admin/v1/organizations/{org_id}/glossary",
    security: admin,
    request: { params: OrgIdParam, ...body(GlossaryIn) },
    responses: { 200: ok(z.object({ terms: z.number().int() })) },
  }),
  async (c) => {
    const { org_id } = c.req.valid("param");
    await requireOrganization(c, org_id);
    const { terms } = c.req.valid("json");
    const db = controlDb(c.env.DB);
    const rows = terms.map((t) => ({ organizationId: org_id, source: t.source, language: t.language, target: t.target, caseSensitive: t.case_sensitive ?? false }));
    // D1 allows 100 bound parameters per statement: 6 columns → 16 rows per insert.
    const inserts = [];
    for (let i = 0; i < rows.length; i += 16) inserts.push(db.insert(glossaryTerms).values(rows.slice(i, i + 16)));
    await db.batch([
      db.delete(glossaryTerms).where(eq(glossaryTerms.organizationId, org_id)),
      ...inserts,
      auditStatement(db, { organizationId: org_id, actor: ADMIN_ACTOR, action: "glossary.replace", target: `organization:${org_id}`, detail: { terms: rows.length } }),
    ]);
    return c.json({ terms: rows.length }, 200);
  },
);

adminRoutes.openapi(
  createRoute({ method: "post", path: "/admin/v1/sites", security: admin, request: body(SiteCreateIn), responses: { 201: ok(AdminSiteOut) } }),
  async (c) => {
    const db = controlDb(c.env.DB);
    const site = await createSite(db, c.req.valid("json"));
    await recordAudit(db, {
      organizationId: site.organizationId,
      actor: ADMIN_ACTOR,
      action: "site.create",
      target: `site:${site.id}`,
      detail: { name: site.name, source_language: site.sourceLanguage, target_languages: site.targetLanguages.map((t) => t.code) },
    });
    return c.json(adminSiteOut(site), 201);
  },
);

adminRoutes.openapi(
  createRoute({
    method: "patch",
    path: "/admin/v1/sites/{site_id}",
    security: admin,
    request: { params: SiteIdParam, ...body(SitePatchIn) },
    responses: { 200: ok(AdminSiteOut) },
  }),
  async (c) => {
    const { site_id } = c.req.valid("param");
    const site = await patchSite(controlDb(c.env.DB), site_id, c.req.valid("json"));
    forgetSite(site_id);
    return c.json(adminSiteOut(site), 200);
  },
);

adminRoutes.openapi(
  createRoute({
    method: "post",
    path: "/admin/v1/sites/{site_id}/keys",
    security: admin,
    request: { params: SiteIdParam, ...body(KeyCreateIn) },
    responses: { 201: ok(KeyCreatedOut) },
  }),
  async (c) => {
    const { site_id } = c.req.valid("param");
    const db = controlDb(c.env.DB);
    const site = await requireSite(db, site_id);
    const key = await createKey(db, site_id, c.req.valid("json").name);
    // The key itself is a secret: only its id and name are recorded.
    await recordAudit(db, { organizationId: site.organizationId, actor: ADMIN_ACTOR, action: "key.create", target: `site:${site_id}`, detail: { key_id: key.id, name: key.name } });
    return c.json(key, 201);
  },
);

adminRoutes.openapi(
  createRoute({ method: "get", path: "/admin/v1/sites/{site_id}/keys", security: admin, request: { params: SiteIdParam }, responses: { 200: ok(KeysOut) } }),
  async (c) => {
    const { site_id } = c.req.valid("param");
    const db = controlDb(c.env.DB);
    await requireSite(db, site_id);
    return c.json({ keys: await listKeys(db, site_id) }, 200);
  },
);

adminRoutes.openapi(
  createRoute({
    method: "delete",
    path: "/admin/v1/sites/{site_id}/keys/{key_id}",
    security: admin,
    request: { params: SiteIdParam.extend({ key_id: z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER) }) },
    responses: { 204: { description: "Revoked" } },
  }),
  async (c) => {
    const { site_id, key_id } = c.req.valid("param");
    const db = controlDb(c.env.DB);
    const site = await requireSite(db, site_id);
    await revokeKey(db, site_id, key_id);
    await recordAudit(db, { organizationId: site.organizationId, actor: ADMIN_ACTOR, action: "key.revoke", target: `site:${site_id}`, detail: { key_id } });
    return c.body(null, 204);
  },
);

adminRoutes.openapi(
  createRoute({
    method: "get",
    path: "/admin/v1/sites/{site_id}/attention",
    security: admin,
    request: { params: SiteIdParam, query: AttentionQuery },
    responses: { 200: ok(AttentionOut) },
  }),
  async (c) => {
    const { site_id } = c.req.valid("param");
    const site = await requireSite(controlDb(c.env.DB), site_id);
    return c.json(await siteStub(c.env, site.id).attention(site, c.req.valid("query")), 200);
  },
);

adminRoutes.openapi(
  createRoute({
    method: "post",
    path: "/admin/v1/sites/{site_id}/attention/{result_id}",
    security: admin,
    request: { params: SiteIdParam.extend({ result_id: z.string().min(1).max(64) }), ...body(AttentionDecisionIn) },
    responses: { 200: ok(z.object({ id: z.string(), state: z.enum(["ok", "missing"]) })) },
  }),
  async (c) => {
    const { site_id, result_id } = c.req.valid("param");
    const db = controlDb(c.env.DB);
    const site = await requireSite(db, site_id);
    const decision = c.req.valid("json");
    const out = await siteStub(c.env, site.id).decideAttention(site, result_id, decision);
    // The fixed text is content, not an audit detail.
    await recordAudit(db, { organizationId: site.organizationId, actor: ADMIN_ACTOR, action: `attention.${decision.action}`, target: `site:${site_id}`, detail: { result_id } });
    return c.json(out, 200);
  },
);

// ------------------------------------------------------------------ erasure

adminRoutes.openapi(
  createRoute({
    method: "delete",
    path: "/admin/v1/sites/{site_id}",
    operationId: "adminDeleteSite",
    summary: "Erase a site",
    description:
      "Erases the site: its keys (they answer 401 from then on), its object storage (units, segments, translations, results, jobs, memory), its R2 objects and its subscription entry. Usage-ledger rows stay as billing records (ids, month, day and counts). The site id is never reused. Retrying after a failure is safe.",
    tags: ["admin"],
    security: admin,
    request: { params: SiteIdParam },
    responses: { 204: { description: "Erased" }, ...adminErrors, ...adminNotFound },
  }),
  async (c) => {
    await eraseSite(c.env, c.req.valid("param").site_id);
    return c.body(null, 204);
  },
);

adminRoutes.openapi(
  createRoute({
    method: "delete",
    path: "/admin/v1/organizations/{org_id}",
    operationId: "adminDeleteOrganization",
    summary: "Erase an organization",
    description:
      "Erases the organization and all its sites (as DELETE /admin/v1/sites/{site_id}), its subscription, glossary, members and invitations; people who belong to no other organization are deleted with their sessions. Usage-ledger rows stay as billing records; audit entries keep who, what, when and target but lose their detail.",
    tags: ["admin"],
    security: admin,
    request: { params: OrgIdParam },
    responses: { 204: { description: "Erased" }, ...adminErrors, ...adminNotFound },
  }),
  async (c) => {
    await eraseOrganization(c.env, c.req.valid("param").org_id);
    return c.body(null, 204);
  },
);

// ------------------------------------------------------------------ the operator's figures and audit log

adminRoutes.openapi(
  createRoute({
    method: "get",
    path: "/admin/v1/organizations/{org_id}/usage",
    operationId: "adminGetOrganizationUsage",
    summary: "An organization's month of usage",
    description:
      "What an invoice is made from: the plan, included and used characters, overage and its price for the UTC month, per site (erased sites keep their figures, with a null name) and per day (the days add up to the month).",
    tags: ["admin"],
    security: admin,
    request: { params: OrgIdParam, query: UsageMonthQuery },
    responses: { 200: ok(OrganizationUsageOut), ...adminErrors, ...adminNotFound },
  }),
  async (c) => {
    const { org_id } = c.req.valid("param");
    await requireOrganization(c, org_id);
    return c.json(await organizationUsage(controlDb(c.env.DB), org_id, c.req.valid("query").month), 200);
  },
);

const isAuditCursor = (v: unknown): v is number => isNumber(v) && v > 0;

adminRoutes.openapi(
  createRoute({
    method: "get",
    path: "/admin/v1/audit",
    operationId: "adminListAudit",
    summary: "The audit log",
    description:
      "Every change made through the admin API and the dashboard, newest first: who (`admin` or `user:<id>`), what, when and on what. Filter by `organization_id`; follow `next_cursor` (opaque) until it is null.",
    tags: ["admin"],
    security: admin,
    request: { query: AuditQuery },
    responses: { 200: ok(AuditOut), ...adminErrors },
  }),
  async (c) => {
    const query = c.req.valid("query");
    const page = await listAudit(controlDb(c.env.DB), {
      organizationId: query.organization_id,
      cursor: decodeCursor(query.cursor, isAuditCursor),
      limit: query.limit,
    });
    return c.json(
      {
        items: page.items.map((i) => ({ at: i.at, actor: i.actor, action: i.action, target: i.target, detail: i.detail })),
        next_cursor: page.next_cursor === null ? null : encodeCursor(page.next_cursor),
      },
      200,
    );
  },
);
