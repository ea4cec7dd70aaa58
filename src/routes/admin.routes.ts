/**
 * The admin API (docs/configuration.md "The admin API"): the operator's door to provision organizations, subscriptions,
 * sites, keys and glossaries. Every call needs ADMIN_TOKEN (checked in src/auth.ts, before any
 * body is read). Each handler parses, calls one operation of src/ops/ (the same the dashboard
 * calls, with the actor `admin`) and answers; every change is recorded in the audit log there.
 */
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import {
  AdminSiteDetailOut,
  AdminSiteOut,
  AttentionConfirmOut,
  AttentionDecisionIn,
  AuditOut,
  AuditQuery,
  BillingClosesOut,
  BillingMonthQuery,
  GlossaryIn,
  InvitationIn,
  InvitationOut,
  KeyCreatedOut,
  KeyCreateIn,
  KeysOut,
  OrganizationIn,
  OrganizationOut,
  OrganizationUsageOut,
  RestoreIn,
  RestoreOut,
  RestorePreviewOut,
  SiteCreateIn,
  SitePatchIn,
  SubscriptionIn,
  SubscriptionOut,
  UsageMonthQuery,
} from "../api/admin.schemas";
import { EXAMPLES } from "../api/examples";
import { AttentionOut, AttentionQuery, ErrorOut, OptionalMonthQuery, OrgIdParam, SiteIdParam, UserIdParam } from "../api/schemas";
import type { App } from "../context";
import { dashboardBase, mailBase } from "../links";
import { decideAttention, operatorReadsAttention } from "../ops/attention.ops";
import { billingCloses, closeBillingMonth } from "../ops/billing.ops";
import { eraseOrganization, erasePerson, eraseSite } from "../ops/erasure.ops";
import { replaceGlossary } from "../ops/glossary.ops";
import { createKey, listKeys, revokeKey } from "../ops/keys.ops";
import { auditOf, createOrganization, requireOrganization, usageOf } from "../ops/organizations.ops";
import { invite } from "../ops/people.ops";
import { previewRestore, restoreSite } from "../ops/restore.ops";
import { createSite, loadSite, siteDetail, siteOut, updateSiteSettings } from "../ops/sites.ops";
import { deleteSubscription, setSubscription } from "../ops/subscriptions.ops";
import { adminErrors, body, bodyErrors, limitedBy, notFoundResponse, ok } from "./common";

export const adminRoutes = new OpenAPIHono<App>();
const admin = [{ admin: [] as string[] }];
const errorOut = (description: string) => ({ content: { "application/json": { schema: ErrorOut } }, description });
const adminNotFound = { 404: errorOut("Unknown organization or site") };

adminRoutes.openapi(
  createRoute({
    method: "post",
    path: "/admin/v1/organizations",
    operationId: "adminCreateOrganization",
    summary: "Create an organization",
    description: "An organization owns sites, a subscription, a glossary and members.",
    tags: ["admin"],
    security: admin,
    request: body(OrganizationIn, EXAMPLES.organizationIn),
    responses: { 201: ok(OrganizationOut, "The organization", EXAMPLES.organization), ...adminErrors, ...bodyErrors },
  }),
  async (c) => {
    return c.json(await createOrganization(c.env, c.var.adminActor, c.req.valid("json")), 201);
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
      "`included_characters` overrides the plan's monthly volume (a custom contract). Sites of another organization, or unknown ones, are a 422. " +
      "The operator keeps the last word: an organization that pays through Stripe is marked `manual` by this call, and Stripe's webhooks no longer change its subscription until it is DELETEd.",
    tags: ["admin"],
    security: admin,
    request: { params: OrgIdParam, ...body(SubscriptionIn, EXAMPLES.subscriptionIn) },
    responses: { 200: ok(SubscriptionOut, "The subscription", EXAMPLES.subscription), ...adminErrors, ...notFoundResponse, ...bodyErrors },
  }),
  async (c) => {
    return c.json(await setSubscription(c.env, c.var.adminActor, c.req.valid("param").org_id, c.req.valid("json")), 200);
  },
);

adminRoutes.openapi(
  createRoute({
    method: "delete",
    path: "/admin/v1/organizations/{org_id}/subscription",
    operationId: "adminDeleteSubscription",
    summary: "Delete the subscription",
    description:
      "Ends hosted translation for every site of the organization: job requests answer 402 `subscription_required` from then on. " +
      "It also ends an operator's override: an organization with a Stripe subscription follows that subscription again (its plan, status and sites, oldest first).",
    tags: ["admin"],
    security: admin,
    request: { params: OrgIdParam },
    responses: { 204: { description: "Deleted" }, ...adminErrors, ...notFoundResponse },
  }),
  async (c) => {
    await deleteSubscription(c.env, c.var.adminActor, c.req.valid("param").org_id, c.var.clock());
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
    responses: {
      200: ok(z.object({ terms: z.number().int().openapi({ description: "Terms the glossary now holds." }) }), "How many terms the glossary now holds", { terms: 1 }),
      ...adminErrors,
      ...notFoundResponse,
      ...bodyErrors,
    },
  }),
  async (c) => {
    const n = await replaceGlossary(c.env, c.var.adminActor, c.req.valid("param").org_id, c.req.valid("json").terms);
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
      "Defaults: `writable` true and `formality` `default` per target language, every adapter enabled, the engines the target languages name, `qa_mode` `editors`, `review_mode` `draft`, `share_memory` true. " +
      "An unknown organization is a 404.",
    tags: ["admin"],
    security: admin,
    request: body(SiteCreateIn, EXAMPLES.siteCreateIn),
    responses: { 201: ok(AdminSiteOut, "The site with its settings", EXAMPLES.adminSite), ...adminErrors, ...notFoundResponse, ...bodyErrors },
  }),
  async (c) => {
    return c.json(siteOut(await createSite(c.env, c.var.adminActor, c.req.valid("json"))), 201);
  },
);

adminRoutes.openapi(
  createRoute({
    method: "patch",
    path: "/admin/v1/sites/{site_id}",
    operationId: "adminUpdateSite",
    summary: "Change a site's settings",
    description: "Changes the given fields only. The site object uses the new settings from its next request on; a queued or running job from its next slice on.",
    tags: ["admin"],
    security: admin,
    request: { params: SiteIdParam, ...body(SitePatchIn, { target_languages: [{ code: "de", engine: "deepl", formality: "informal" }], qa_mode: "separate" }) },
    responses: { 200: ok(AdminSiteOut, "The site with its settings", EXAMPLES.adminSite), ...adminErrors, ...notFoundResponse, ...bodyErrors },
  }),
  async (c) => {
    return c.json(siteOut(await updateSiteSettings(c.env, c.var.adminActor, c.req.valid("param").site_id, c.req.valid("json"))), 200);
  },
);

adminRoutes.openapi(
  createRoute({
    method: "get",
    path: "/admin/v1/sites/{site_id}",
    operationId: "adminGetSite",
    summary: "Get a site",
    description:
      "The site with its settings and `connector`: the latest handshake (time, connector version, declared languages, adapters, capabilities and warnings), or null before the first one.",
    tags: ["admin"],
    security: admin,
    request: { params: SiteIdParam },
    responses: { 200: ok(AdminSiteDetailOut, "The site with its settings and its connector"), ...adminErrors, ...notFoundResponse },
  }),
  async (c) => {
    return c.json(await siteDetail(c.env, c.req.valid("param").site_id), 200);
  },
);

adminRoutes.openapi(
  createRoute({
    method: "post",
    path: "/admin/v1/sites/{site_id}/keys",
    operationId: "adminCreateKey",
    summary: "Create an API key",
    description: "A new key for the site (one per environment is advised). `key` is shown only in this answer; the service keeps only its hash.",
    tags: ["admin"],
    security: admin,
    request: { params: SiteIdParam, ...body(KeyCreateIn, EXAMPLES.keyCreateIn) },
    responses: { 201: ok(KeyCreatedOut, "The key, shown once", EXAMPLES.keyCreated), ...adminErrors, ...notFoundResponse, ...bodyErrors },
  }),
  async (c) => {
    const site = await loadSite(c.env, c.req.valid("param").site_id);
    return c.json(await createKey(c.env, c.var.adminActor, site, c.req.valid("json")), 201);
  },
);

adminRoutes.openapi(
  createRoute({
    method: "get",
    path: "/admin/v1/sites/{site_id}/keys",
    operationId: "adminListKeys",
    summary: "List a site's API keys",
    description: "Every key of the site, revoked ones included, with its prefix and when it was last used (written at most once a minute).",
    tags: ["admin"],
    security: admin,
    request: { params: SiteIdParam },
    responses: { 200: ok(KeysOut, "The keys"), ...adminErrors, ...notFoundResponse },
  }),
  async (c) => {
    const site = await loadSite(c.env, c.req.valid("param").site_id);
    return c.json({ keys: await listKeys(c.env, site) }, 200);
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
    await revokeKey(c.env, c.var.adminActor, await loadSite(c.env, site_id), key_id);
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
    description:
      "The site's review queue, as `listAttention` answers it to the site's connector. The texts are the customer's: each call is audited (`attention.read`, with the operator's name and the number of items shown).",
    tags: ["admin"],
    request: { params: SiteIdParam, query: AttentionQuery },
    responses: { 200: ok(AttentionOut, "A page of the review queue", EXAMPLES.attention), ...adminErrors, ...notFoundResponse },
  }),
  async (c) => {
    const site = await loadSite(c.env, c.req.valid("param").site_id);
    return c.json(await operatorReadsAttention(c.env, c.var.adminActor, site, c.req.valid("query"), dashboardBase(c), c.var.clock()), 200);
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
    request: {
      params: SiteIdParam.extend({ result_id: z.string().min(1).max(64) }),
      ...body(AttentionDecisionIn, { action: "fix", text: '<p>Willkommen, {name}! Lesen Sie <a href="/more">mehr</a>.</p>' }),
    },
    responses: {
      200: ok(
        z.object({
          id: z.string().openapi({ description: "The result decided on." }),
          state: z.enum(["ok", "missing"]).openapi({ description: "The segment's new state in the language: `ok` after a fix, `missing` after a discard." }),
        }),
        "The segment's new state",
        { id: "r_7000000103", state: "ok" },
      ),
      409: ok(AttentionConfirmOut, "The fix has QA errors and `confirm: true` was not sent: nothing was saved; `qa` lists the findings.", EXAMPLES.attentionConfirm),
      ...adminErrors,
      ...notFoundResponse,
      ...bodyErrors,
    },
  }),
  async (c) => {
    const { site_id, result_id } = c.req.valid("param");
    return c.json(await decideAttention(c.env, c.var.adminActor, await loadSite(c.env, site_id), result_id, c.req.valid("json")), 200);
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
    await eraseSite(c.env, c.var.adminActor, c.req.valid("param").site_id);
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
    await eraseOrganization(c.env, c.var.adminActor, c.req.valid("param").org_id);
    return c.body(null, 204);
  },
);

adminRoutes.openapi(
  createRoute({
    method: "delete",
    path: "/admin/v1/users/{user_id}",
    operationId: "adminDeleteUser",
    summary: "Erase a person",
    description:
      "Erases one person: their sessions, account tokens, two-factor recovery codes, memberships, the invitations and mails addressed to them, and their address wherever the audit log recorded it (entries keep `user:<id>` as who acted). 409 while they are the only owner of an organization: make another member owner first, or erase the organization.",
    tags: ["admin"],
    security: admin,
    request: { params: UserIdParam },
    responses: { 204: { description: "Erased" }, ...adminErrors, ...adminNotFound, 409: errorOut("The only owner of an organization") },
  }),
  async (c) => {
    await erasePerson(c.env, c.var.adminActor, c.req.valid("param").user_id);
    return c.body(null, 204);
  },
);

adminRoutes.openapi(
  createRoute({
    method: "post",
    path: "/admin/v1/sites/{site_id}/restore",
    operationId: "adminRestoreSite",
    summary: "Restore a site's object storage to a moment",
    description:
      "Point-in-time recovery of one site (docs/ops/backups.md): its object storage (units, translations, results, jobs, memory) goes back to `at`, within the last 30 days. " +
      "Jobs queued or running at `at` are cancelled on the restored site with a reason, and the site's reservations released; D1 (keys, settings, the usage ledger) and the organization's shared memory are not rewound. " +
      "`dry_run: true` changes nothing and answers what the site held at `at`, what goes back, and whether this runtime can restore at all. " +
      "501 where the runtime has no point-in-time recovery (local workerd: `wrangler dev`, the tests). Undo: restore to the answer's `restored_at`. Audited as `site.restore`.",
    tags: ["admin"],
    security: admin,
    request: { params: SiteIdParam, ...body(RestoreIn, { at: "2027-01-05T10:00:00Z", dry_run: true }) },
    responses: {
      200: ok(
        z.union([RestoreOut, RestorePreviewOut]),
        "Restored (RestoreOut): the object starts on the restored storage at its next request; or, for a dry run, what it would change (RestorePreviewOut)",
      ),
      501: errorOut("This runtime's storage has no point-in-time recovery: nothing was changed"),
      ...bodyErrors,
      ...adminErrors,
      ...adminNotFound,
    },
  }),
  async (c) => {
    const site = await loadSite(c.env, c.req.valid("param").site_id);
    const { at, dry_run } = c.req.valid("json");
    if (dry_run) return c.json(await previewRestore(c.env, site, new Date(at), c.var.clock()), 200);
    return c.json(await restoreSite(c.env, c.var.adminActor, site, new Date(at), c.var.clock()), 200);
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
    await requireOrganization(c.env, org_id);
    return c.json(await usageOf(c.env, org_id, c.req.valid("query").month), 200);
  },
);

adminRoutes.openapi(
  createRoute({
    method: "get",
    path: "/admin/v1/audit",
    operationId: "adminListAudit",
    summary: "The audit log",
    description:
      "Every change made through the admin API and the dashboard, and every operator read of a customer's texts, newest first: who (`admin`, `admin:<name>`, `user:<id>` or `key:<id>`), what, when and on what. Filter by `organization_id`; follow `next_cursor` (opaque) until it is null.",
    tags: ["admin"],
    security: admin,
    request: { query: AuditQuery },
    responses: { 200: ok(AuditOut), ...adminErrors },
  }),
  async (c) => {
    const query = c.req.valid("query");
    const page = await auditOf(c.env, { organizationId: query.organization_id, cursor: query.cursor, limit: query.limit });
    return c.json({ items: page.items.map((i) => ({ at: i.at, actor: i.actor, action: i.action, target: i.target, detail: i.detail })), next_cursor: page.next_cursor }, 200);
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
      "This is how the operator hands out an organization's first owner; owners and admins invite others from the dashboard. " +
      "Invitation mails (new ones and resends, through any door) are limited per 24 hours: 50 per organization, 20 per inviting member (the operator excepted), 3 per address from one organization, 10 per address in all; over a limit, 429 with `Retry-After`.",
    tags: ["admin"],
    security: admin,
    request: { params: OrgIdParam, ...body(InvitationIn) },
    responses: {
      201: ok(InvitationOut, "The invitation and its one-time link"),
      ...adminErrors,
      ...limitedBy("Too many invitation mails in the last 24 hours (`detail` says which limit); wait `Retry-After` seconds. Also the admin API's general limits."),
      ...notFoundResponse,
      ...bodyErrors,
    },
  }),
  async (c) => {
    const inviter = { actor: c.var.adminActor, userId: null, role: null };
    return c.json(await invite(c.env, inviter, c.req.valid("param").org_id, c.req.valid("json"), dashboardBase(c), undefined, mailBase(c)), 201);
  },
);

// ------------------------------------------------------------------ month close

adminRoutes.openapi(
  createRoute({
    method: "post",
    path: "/admin/v1/billing/close",
    operationId: "adminCreateBillingCloses",
    summary: "Close a month by hand",
    description:
      "The same close the daily Cron Trigger runs, for one ended UTC month: each organization's overage (the figures of the usage endpoint) is recorded once; " +
      "organizations that pay through Stripe get it as one invoice item on their next invoice (idempotency key `overage:<org_id>:<YYYY-MM>`). " +
      "Safe to repeat: closed organizations are skipped. Organizations Stripe could not be reached for are listed in `pending` and stay open for the next run. A month that has not ended is a 422. " +
      "Each call is audited (`billing.close`, with the operator's name).",
    tags: ["admin"],
    security: admin,
    request: { query: BillingMonthQuery },
    responses: { 200: ok(BillingClosesOut, "Every close of the month"), ...adminErrors },
  }),
  async (c) => c.json(await closeBillingMonth(c.env, c.var.adminActor, c.req.valid("query").month, c.var.clock()), 200),
);

adminRoutes.openapi(
  createRoute({
    method: "get",
    path: "/admin/v1/billing/closes",
    operationId: "adminListBillingCloses",
    summary: "List closed months",
    description: "What month close recorded: per organization and month, the characters, overage, provider and Stripe invoice item.",
    tags: ["admin"],
    security: admin,
    request: { query: OptionalMonthQuery },
    responses: { 200: ok(BillingClosesOut, "The closes, by month and organization"), ...adminErrors },
  }),
  async (c) => c.json({ closes: await billingCloses(c.env, c.req.valid("query").month) }, 200),
);
