/**
 * The admin API (DESIGN.md): what site owners' tooling and the dashboard use to provision
 * organizations, subscriptions, sites, keys and glossaries. Every call needs ADMIN_TOKEN
 * (checked in src/auth.ts, before any body is read); every change is recorded in the audit log.
 */
import { createRoute, OpenAPIHono } from "@hono/zod-openapi";
import { eq, inArray } from "drizzle-orm";
import {
  AdminSiteDetailOut,
  AdminSiteOut,
  AttentionConfirmOut,
  AttentionDecisionIn,
  AttentionOut,
  AttentionQuery,
  ErrorOut,
  GlossaryIn,
  InvitationIn,
  InvitationOut,
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
import { AuditOut, AuditQuery, OrganizationUsageOut, UsageMonthQuery } from "../api/operator.schemas";
import { organizationUsage } from "../billing/usage";
import { auditStatement, listAudit, recordAudit } from "../control/audit";
import { eraseOrganization, eraseSite, idList } from "../control/erasure";
import { replaceGlossary } from "../control/glossary";
import { createKey, listKeys, revokeKey } from "../control/keys";
import { inviteByMail } from "../ops/accounts";
import { organizations, sites, subscriptions, subscriptionSites } from "../control/schema";
import { adminSiteOut, createSite, requireSite } from "../control/sites";
import { glossaryChanged } from "../glossary";
import { updateSiteSettings } from "../site-settings";
import { ApiError, notFound, unauthorized } from "../errors";
import { decodeCursor, encodeCursor, isNumber } from "../site/cursor";
import { adminErrors, body, bodyErrors, dashboardBase, errors, notFoundResponse, ok, siteStub } from "./common";

export const adminRoutes = new OpenAPIHono<App>();
const admin = [{ admin: [] as string[] }];
/** Who the audit log names for changes made with the admin token. */
const ADMIN_ACTOR = "admin";
const chunks = <T>(list: T[], size: number) => Array.from({ length: Math.ceil(list.length / size) }, (_, i) => list.slice(i * size, (i + 1) * size));
const errorOut = (description: string) => ({ content: { "application/json": { schema: ErrorOut } }, description });
const adminNotFound = { 404: errorOut("Unknown organization or site") };


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
      auditStatement(db, { organizationId: org_id, actor: ADMIN_ACTOR, action: "subscription.delete", target: `organization:${org_id}` }),
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
    const n = await replaceGlossary(controlDb(c.env.DB), org_id, terms, {
      actor: ADMIN_ACTOR,
      action: "glossary.replace",
      target: `organization:${org_id}`,
      detail: { terms: terms.length },
    });
    await glossaryChanged(c.env, org_id);
    return c.json({ terms: n }, 200);
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
    responses: { 200: ok(AdminSiteDetailOut, "The site with its settings and its connector"), ...adminErrors, ...notFoundResponse },
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
    const site = await requireSite(db, site_id);
    const key = await createKey(db, site_id, c.req.valid("json").name);
    // The key itself is a secret: only its id and name are recorded.
    await recordAudit(db, { organizationId: site.organizationId, actor: ADMIN_ACTOR, action: "key.create", target: `site:${site_id}`, detail: { key_id: key.id, name: key.name } });
    return c.json(key, 201);
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
    return c.json(await siteStub(c.env, site.id).attention(site, c.req.valid("query"), dashboardBase(c)), 200);
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
      "`fix` stores the given text (origin `human`, state ok, added to the translation memory) and delivers it as a new result in GET /v1/results; `discard` drops the translation (state missing: the next delta job translates it again). " +
      "A fix runs the same QA checks as engine output: when it has QA errors it is saved only with `confirm: true`; without it nothing changes and the answer is 409 with the findings. Saved, its findings stay on the segment (`qa`), and never hold it back. " +
      "A result that is not waiting for a decision (already decided, superseded, or its source changed since) is a 404.",
    tags: ["admin"],
    request: { params: SiteIdParam.extend({ result_id: z.string().min(1).max(64) }), ...body(AttentionDecisionIn, { action: "fix", text: "<p>Willkommen, {name}! Lesen Sie <a href=\"/more\">mehr</a>.</p>" }) },
    responses: {
      200: ok(z.object({ id: z.string(), state: z.enum(["ok", "missing"]) }), "The segment's new state", { id: "r_7000000103", state: "ok" }),
      409: ok(AttentionConfirmOut, "The fix has QA errors and `confirm: true` was not sent: nothing was saved; `qa` lists the findings.", EXAMPLES.attentionConfirm),
      ...adminErrors,
      ...notFoundResponse,
      ...bodyErrors,
    },
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

adminRoutes.openapi(
  createRoute({
    method: "post",
    path: "/admin/v1/organizations/{org_id}/invitations",
    operationId: "adminCreateInvitation",
    summary: "Invite a person to an organization",
    description:
      "Creates a one-time invitation (valid 7 days) for the email with the role, and answers the link that opens the dashboard's " +
      "accept-invitation page. The link is mailed to the address and shown only in this answer (only a hash of its token is stored). " +
      "This is how the operator hands out an organization's first owner; owners and admins invite others from the dashboard.",
    tags: ["admin"],
    security: admin,
    request: { params: OrgIdParam, ...body(InvitationIn) },
    responses: { 201: ok(InvitationOut, "The invitation and its one-time link"), ...adminErrors, ...notFoundResponse, ...bodyErrors },
  }),
  async (c) => {
    const { org_id } = c.req.valid("param");
    const { email, role } = c.req.valid("json");
    const inv = await inviteByMail(c.env, { organizationId: org_id, email, role, invitedBy: null, actor: "admin" }, dashboardBase(c));
    return c.json({ id: inv.id, email: inv.email, role: inv.role, url: `${dashboardBase(c)}/invitations/${inv.token}`, expires_at: inv.expires_at }, 201);
  },
);
