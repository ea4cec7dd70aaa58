/**
 * The admin API (DESIGN.md): what site owners' tooling and the dashboard use to provision
 * organizations, subscriptions, sites, keys and glossaries. Every call needs ADMIN_TOKEN.
 */
import { createRoute, OpenAPIHono } from "@hono/zod-openapi";
import { eq, inArray } from "drizzle-orm";
import { timingSafeEqual } from "node:crypto";
import {
  AdminSiteOut,
  AttentionDecisionIn,
  AttentionOut,
  AttentionQuery,
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
import { EXAMPLES } from "../api/examples";
import type { App } from "../context";
import { controlDb } from "../control/db";
import { createKey, forgetSite, listKeys, revokeKey } from "../control/keys";
import { glossaryTerms, organizations, sites, subscriptions, subscriptionSites } from "../control/schema";
import { adminSiteOut, createSite, patchSite, requireSite } from "../control/sites";
import { ApiError, notFound, unauthorized } from "../errors";
import { adminErrors, body, bodyErrors, notFoundResponse, ok, siteStub } from "./common";

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
  createRoute({
    method: "post",
    path: "/admin/v1/organizations",
    operationId: "adminCreateOrganization",
    summary: "Create an organization",
    description:
      "An organization owns sites, a subscription, a glossary and members.",
    tags: ["admin"],
    security: admin,
    request: body(OrganizationIn, EXAMPLES.organizationIn),
    responses: { 201: ok(OrganizationOut, "The organization", EXAMPLES.organization), ...adminErrors, ...bodyErrors },
  }),
  async (c) => {
    const [row] = await controlDb(c.env.DB).insert(organizations).values({ name: c.req.valid("json").name }).returning();
    return c.json({ id: row.id, name: row.name }, 201);
  },
);

adminRoutes.openapi(
  createRoute({
    method: "put",
    path: "/admin/v1/organizations/{org_id}/subscription",
    operationId: "adminSetSubscription",
    summary: "Create or replace the subscription",
    description:
      "Sets the organization's plan, status and covered sites (replacing the list). A plan covers at most its number of sites (`agency` 10, `growth` 25): the first ones by id; the others answer `site_not_covered`. " +
      "`included_characters` overrides the plan's monthly volume (a custom contract). Sites of another organization, or unknown ones, are a 422.",
    tags: ["admin"],
    security: admin,
    request: { params: OrgIdParam, ...body(SubscriptionIn, EXAMPLES.subscriptionIn) },
    responses: { 200: ok(SubscriptionOut, "The subscription", EXAMPLES.subscription), ...adminErrors, ...notFoundResponse, ...bodyErrors },
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
    operationId: "adminDeleteSubscription",
    summary: "Delete the subscription",
    description:
      "Ends hosted translation for every site of the organization: job requests answer 402 `subscription_required` from then on.",
    tags: ["admin"],
    security: admin,
    request: { params: OrgIdParam },
    responses: { 204: { description: "Deleted" }, ...adminErrors, ...notFoundResponse },
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
    operationId: "adminReplaceGlossary",
    summary: "Replace the glossary",
    description:
      "Replaces the organization's glossary, used by every site of it: DeepL glossaries and LLM prompts get the terms, and QA warns (`glossary`) when a term's required translation is absent.",
    tags: ["admin"],
    security: admin,
    request: { params: OrgIdParam, ...body(GlossaryIn, EXAMPLES.glossaryIn) },
    responses: { 200: ok(z.object({ terms: z.number().int() }), "How many terms the glossary now holds", { terms: 1 }), ...adminErrors, ...notFoundResponse, ...bodyErrors },
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
    return c.json({ terms: rows.length }, 200);
  },
);

adminRoutes.openapi(
  createRoute({
    method: "post",
    path: "/admin/v1/sites",
    operationId: "adminCreateSite",
    summary: "Create a site",
    description:
      "Defaults: `writable` true and `formality` `default` per target language, every adapter enabled, the engines the target languages name, `qa_mode` `editors`, `review_mode` `draft`. " +
      "An unknown organization is a 404.",
    tags: ["admin"],
    security: admin,
    request: body(SiteCreateIn, EXAMPLES.siteCreateIn),
    responses: { 201: ok(AdminSiteOut, "The site with its settings", EXAMPLES.adminSite), ...adminErrors, ...notFoundResponse, ...bodyErrors },
  }),
  async (c) => {
    const site = await createSite(controlDb(c.env.DB), c.req.valid("json"));
    return c.json(adminSiteOut(site), 201);
  },
);

adminRoutes.openapi(
  createRoute({
    method: "patch",
    path: "/admin/v1/sites/{site_id}",
    operationId: "adminUpdateSite",
    summary: "Change a site's settings",
    description:
      "Changes the given fields only. The site object uses the new settings from its next request on; a queued or running job from its next slice on.",
    tags: ["admin"],
    security: admin,
    request: { params: SiteIdParam, ...body(SitePatchIn, { target_languages: [{ code: "de", engine: "deepl", formality: "informal" }], qa_mode: "separate" }) },
    responses: { 200: ok(AdminSiteOut, "The site with its settings", EXAMPLES.adminSite), ...adminErrors, ...notFoundResponse, ...bodyErrors },
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
    operationId: "adminCreateKey",
    summary: "Create an API key",
    description:
      "A new key for the site (one per environment is advised). `key` is shown only in this answer; the service keeps only its hash.",
    tags: ["admin"],
    security: admin,
    request: { params: SiteIdParam, ...body(KeyCreateIn, EXAMPLES.keyCreateIn) },
    responses: { 201: ok(KeyCreatedOut, "The key, shown once", EXAMPLES.keyCreated), ...adminErrors, ...notFoundResponse, ...bodyErrors },
  }),
  async (c) => {
    const { site_id } = c.req.valid("param");
    const db = controlDb(c.env.DB);
    await requireSite(db, site_id);
    return c.json(await createKey(db, site_id, c.req.valid("json").name), 201);
  },
);

adminRoutes.openapi(
  createRoute({
    method: "get",
    path: "/admin/v1/sites/{site_id}/keys",
    operationId: "adminListKeys",
    summary: "List a site's API keys",
    description:
      "Every key of the site, revoked ones included, with its prefix and when it was last used (written at most once a minute).",
    tags: ["admin"],
    security: admin,
    request: { params: SiteIdParam },
    responses: { 200: ok(KeysOut, "The keys"), ...adminErrors, ...notFoundResponse },
  }),
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
    operationId: "adminRevokeKey",
    summary: "Revoke an API key",
    description: "The key answers 401 from then on (at once in this isolate, within 30 seconds everywhere). Rotation: create a new key, deploy it, revoke the old one.",
    tags: ["admin"],
    request: { params: SiteIdParam.extend({ key_id: z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER) }) },
    responses: { 204: { description: "Revoked" }, ...adminErrors, ...notFoundResponse },
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
    operationId: "adminListAttention",
    summary: "List a site's translations held back by QA",
    description: "The site's review queue, as `listAttention` answers it to the site's connector.",
    tags: ["admin"],
    request: { params: SiteIdParam, query: AttentionQuery },
    responses: { 200: ok(AttentionOut, "A page of the review queue", EXAMPLES.attention), ...adminErrors, ...notFoundResponse },
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
    operationId: "adminDecideAttention",
    summary: "Fix or discard a held-back translation",
    description:
      "`fix` stores the given text (origin `human`, state ok, added to the translation memory); `discard` drops the translation (state missing: the next delta job translates it again). " +
      "A result that is not waiting for a decision (already decided, superseded, or its source changed since) is a 404.",
    tags: ["admin"],
    request: { params: SiteIdParam.extend({ result_id: z.string().min(1).max(64) }), ...body(AttentionDecisionIn, { action: "fix", text: "<p>Willkommen, {name}! Lesen Sie <a href=\"/more\">mehr</a>.</p>" }) },
    responses: { 200: ok(z.object({ id: z.string(), state: z.enum(["ok", "missing"]) }), "The segment's new state", { id: "r_7000000103", state: "ok" }), ...adminErrors, ...notFoundResponse, ...bodyErrors },
  }),
  async (c) => {
    const { site_id, result_id } = c.req.valid("param");
    const site = await requireSite(controlDb(c.env.DB), site_id);
    return c.json(await siteStub(c.env, site.id).decideAttention(site, result_id, c.req.valid("json")), 200);
  },
);
