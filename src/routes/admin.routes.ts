/**
 * The admin API (DESIGN.md): what site owners' tooling and the dashboard use to provision
 * organizations, subscriptions, sites, keys and glossaries. Every call needs ADMIN_TOKEN.
 */
import { createRoute, OpenAPIHono } from "@hono/zod-openapi";
import { eq, inArray } from "drizzle-orm";
import { timingSafeEqual } from "node:crypto";
import {
  AdminSiteDetailOut,
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
import { createKey, listKeys, revokeKey } from "../control/keys";
import { glossaryTerms, organizations, sites, subscriptions, subscriptionSites } from "../control/schema";
import { adminSiteOut, createSite, requireSite } from "../control/sites";
import { pushGlossary } from "../glossary";
import { updateSiteSettings } from "../site-settings";
import { ApiError, notFound, unauthorized } from "../errors";
import { body, ok, siteStub } from "./common";

export const adminRoutes = new OpenAPIHono<App>();
const admin = [{ admin: [] as string[] }];

adminRoutes.use("/admin/*", async (c, next) => {
  const expected = c.env.ADMIN_TOKEN;
  const header = c.req.header("authorization") ?? "";
  const token = /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1] ?? "";
  const a = new TextEncoder().encode(token);
  const b = new TextEncoder().encode(expected ?? "");
  // Constant time over the token; an unset ADMIN_TOKEN disables the admin API.
  const equal = !!expected && a.length === b.length && timingSafeEqual(a, b);
  if (!equal) throw unauthorized("A valid admin token is required.");
  await next();
});

async function requireOrganization(c: { env: Env }, orgId: number) {
  const org = await controlDb(c.env.DB).select().from(organizations).where(eq(organizations.id, orgId)).get();
  if (!org) throw notFound(`Organization ${orgId}`);
  return org;
}

adminRoutes.openapi(
  createRoute({ method: "post", path: "/admin/v1/organizations", security: admin, request: body(OrganizationIn), responses: { 201: ok(OrganizationOut) } }),
  async (c) => {
    const [row] = await controlDb(c.env.DB).insert(organizations).values({ name: c.req.valid("json").name }).returning();
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
      const found = await db.select({ id: sites.id, org: sites.organizationId }).from(sites).where(inArray(sites.id, siteIds));
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
      ...siteIds.map((siteId) => db.insert(subscriptionSites).values({ organizationId: org_id, siteId })),
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
    await db.batch([db.delete(glossaryTerms).where(eq(glossaryTerms.organizationId, org_id)), ...inserts]);
    await pushGlossary(c.env, org_id, rows);
    return c.json({ terms: rows.length }, 200);
  },
);

adminRoutes.openapi(
  createRoute({ method: "post", path: "/admin/v1/sites", security: admin, request: body(SiteCreateIn), responses: { 201: ok(AdminSiteOut) } }),
  async (c) => {
    const site = await createSite(controlDb(c.env.DB), c.req.valid("json"));
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
    const site = await updateSiteSettings(c.env, site_id, c.req.valid("json"), "admin");
    return c.json(adminSiteOut(site), 200);
  },
);

adminRoutes.openapi(
  createRoute({
    method: "get",
    path: "/admin/v1/sites/{site_id}",
    operationId: "adminGetSite",
    summary: "Get a site",
    description: "The site with its settings and `connector`: the latest handshake (time, connector version, declared languages, adapters, capabilities and warnings), or null before the first one.",
    tags: ["admin"],
    security: admin,
    request: { params: SiteIdParam },
    responses: {
      200: ok(AdminSiteDetailOut),
      401: { content: { "application/json": { schema: ErrorOut } }, description: "Missing or wrong admin token" },
      404: { content: { "application/json": { schema: ErrorOut } }, description: "Unknown site" },
    },
  }),
  async (c) => {
    const { site_id } = c.req.valid("param");
    const site = await requireSite(controlDb(c.env.DB), site_id);
    const connector = await siteStub(c.env, site.id).connector(site);
    return c.json({ ...adminSiteOut(site), connector }, 200);
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
    await requireSite(db, site_id);
    return c.json(await createKey(db, site_id, c.req.valid("json").name), 201);
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
    await revokeKey(controlDb(c.env.DB), site_id, key_id);
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
    const site = await requireSite(controlDb(c.env.DB), site_id);
    return c.json(await siteStub(c.env, site.id).decideAttention(site, result_id, c.req.valid("json")), 200);
  },
);
