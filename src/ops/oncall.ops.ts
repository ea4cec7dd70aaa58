/**
 * The on-call engineer's operations (docs/decisions.md "Operating the service"): what is deployed and
 * whether it answers, find an organization, a site or a key's owner, read a site's diagnostics
 * and jobs, and suspend or resume a site — all without reading D1 or object storage by hand.
 * Changes (suspend, resume, a key look-up) are audited with the actor, like every admin change.
 */
import { and, asc, eq, gt, like, or, sql } from "drizzle-orm";
import { discrepancies } from "../billing/reconcile";
import { billingProvider } from "../billing/stripe";
import { auditStatement } from "../control/audit.control";
import { controlDb } from "../control/db";
import { forgetSite, hashKey, isWellFormedKey } from "../control/keys.control";
import { apiKeys, organizations, sites, subscriptions } from "../control/schema";
import { requireSite } from "../control/sites.control";
import { ENGINES, engineConfiguration } from "../engines/registry";
import { ApiError, notFound } from "../errors";
import { devMailbox } from "../mail/send";
import { addLogContext, log, redactError } from "../obs/log";
import { decodeCursor, encodeCursor, isNumber } from "../site/cursor";
import { siteStub } from "../site/stub";
import type { Actor } from "./actor";

/** Rows per page of the operator's lists. */
export const ONCALL_PAGE = 50;

const isIdCursor = (v: unknown): v is number => isNumber(v) && v > 0;

/** The deep health: every dependency the service needs, and the version answering. `ok`: D1 and a site object answered. */
export async function deepHealth(env: Env) {
  const d1 = await env.DB.prepare("SELECT 1 AS ok")
    .first()
    .then(() => "ok" as const)
    .catch((err) => {
      log("error", "d1.fault", { code: "health", error: redactError(err) });
      return "failed" as const;
    });
  // A probe object, never a site's own (site objects are named by numeric ids).
  const siteObject = await env.SITE.getByName("health-probe")
    .ping()
    .then(() => "ok" as const)
    .catch((err) => {
      log("error", "site.fault", { code: "health", error: redactError(err) });
      return "failed" as const;
    });
  const devFlags = [
    env.DEV_MAILBOX === "true" && "DEV_MAILBOX",
    env.WEBHOOK_ALLOW_LOOPBACK === "true" && "WEBHOOK_ALLOW_LOOPBACK",
    Number(env.JOB_ALARM_DELAY_MS ?? 0) > 0 && "JOB_ALARM_DELAY_MS",
    env.STRIPE_API_BASE && "STRIPE_API_BASE",
  ].filter((f): f is string => typeof f === "string");
  const body = {
    d1,
    site_object: siteObject,
    queue: env.WEBHOOK_QUEUE ? ("bound" as const) : ("missing" as const),
    mail: devMailbox(env) ? ("outbox" as const) : ("binding" as const),
    dashboard_url_set: Boolean(env.DASHBOARD_URL),
    dev_flags: devFlags,
    billing_provider: billingProvider(env),
    engines: ENGINES.map((name) => ({ name, configured: engineConfiguration(name, env).configured })),
    version: { id: env.VERSION?.id ?? null, tag: env.VERSION?.tag || null },
  };
  return { body, ok: d1 === "ok" && siteObject === "ok" };
}

/** Organizations by id, with their plan and number of sites; `q` matches a part of the name or an id. */
export async function listOrganizations(env: Env, query: { q?: string; cursor?: string }) {
  const db = controlDb(env.DB);
  const after = decodeCursor(query.cursor, isIdCursor) ?? 0;
  const q = query.q?.trim();
  const match = q ? or(like(organizations.name, `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`), /^\d+$/.test(q) ? eq(organizations.id, Number(q)) : undefined) : undefined;
  const rows = await db
    .select({
      id: organizations.id,
      name: organizations.name,
      created_at: organizations.createdAt,
      plan: subscriptions.plan,
      subscription_status: subscriptions.status,
      sites: sql<number>`(SELECT count(*) FROM ${sites} WHERE ${sites.organizationId} = ${organizations.id})`,
    })
    .from(organizations)
    .leftJoin(subscriptions, eq(subscriptions.organizationId, organizations.id))
    .where(and(gt(organizations.id, after), match))
    .orderBy(asc(organizations.id))
    .limit(ONCALL_PAGE + 1);
  const page = rows.slice(0, ONCALL_PAGE);
  return {
    organizations: page.map((r) => ({ ...r, plan: r.plan ?? null, subscription_status: r.subscription_status ?? null, sites: Number(r.sites) })),
    next_cursor: rows.length > ONCALL_PAGE ? encodeCursor(page[page.length - 1].id) : null,
  };
}

/** Sites by id, of one organization or all. */
export async function listSites(env: Env, query: { organization_id?: number; cursor?: string }) {
  const db = controlDb(env.DB);
  const after = decodeCursor(query.cursor, isIdCursor) ?? 0;
  const rows = await db
    .select({ id: sites.id, name: sites.name, organization_id: sites.organizationId, source_language: sites.sourceLanguage, reason: sites.suspendedReason })
    .from(sites)
    .where(and(gt(sites.id, after), query.organization_id === undefined ? undefined : eq(sites.organizationId, query.organization_id)))
    .orderBy(asc(sites.id))
    .limit(ONCALL_PAGE + 1);
  const page = rows.slice(0, ONCALL_PAGE);
  return {
    sites: page.map(({ reason, ...r }) => ({ ...r, suspended: reason !== null, suspended_reason: reason })),
    next_cursor: rows.length > ONCALL_PAGE ? encodeCursor(page[page.length - 1].id) : null,
  };
}

/** Closed months whose usage changed after their close (late usage, credits granted during it); empty when the books agree. */
export async function billingDiscrepancies(env: Env, month?: string) {
  return discrepancies(controlDb(env.DB), month);
}

export async function siteDiagnostics(env: Env, siteId: number) {
  const site = await requireSite(controlDb(env.DB), siteId);
  return siteStub(env, site.id).diagnostics(site);
}

export type JobFilter = "active" | "queued" | "running" | "succeeded" | "failed" | "cancelled";

/** The site's jobs: the active ones, or the latest (as GET /v1/jobs lists them), narrowed to one status. */
export async function siteJobs(env: Env, siteId: number, status?: JobFilter) {
  const site = await requireSite(controlDb(env.DB), siteId);
  const jobs = await siteStub(env, site.id).listJobs(site, status === "active" || status === "queued" || status === "running");
  return { jobs: status === undefined || status === "active" ? jobs : jobs.filter((j) => j.status === status) };
}

/**
 * Which site a key (found in a leak, quoted in a ticket) belongs to, by the whole key (only its
 * hash is looked up; the key is neither stored nor logged) or by its prefix (`tsk_` + 6, as log
 * lines show it). Revoked keys are found too. Audited (`key.lookup`).
 */
export async function lookupKey(env: Env, actor: Actor, by: { key?: string; prefix?: string }) {
  const unknown = notFound("The key");
  const key = by.key?.trim();
  if (key !== undefined && !isWellFormedKey(key)) throw unknown;
  const db = controlDb(env.DB);
  const rows = await db
    .select({
      key_id: apiKeys.id,
      name: apiKeys.name,
      prefix: apiKeys.prefix,
      site_id: apiKeys.siteId,
      organization_id: sites.organizationId,
      created_at: apiKeys.createdAt,
      last_used_at: apiKeys.lastUsedAt,
      revoked_at: apiKeys.revokedAt,
    })
    .from(apiKeys)
    .innerJoin(sites, eq(sites.id, apiKeys.siteId))
    .where(key !== undefined ? eq(apiKeys.hash, await hashKey(key)) : eq(apiKeys.prefix, by.prefix ?? ""))
    .orderBy(asc(apiKeys.id))
    .limit(10);
  const [row] = rows;
  if (!row) throw unknown;
  // Two keys may share a prefix (1 in 56 billion a pair): the operator is told which, and asks with the whole key.
  if (rows.length > 1)
    throw new ApiError(
      409,
      `${rows.length} keys begin with ${by.prefix}: ${rows.map((r) => `key ${r.key_id} of site ${r.site_id}`).join(", ")}. Send the whole key to tell them apart.`,
    );
  addLogContext({ site_id: row.site_id, org_id: row.organization_id });
  await auditStatement(db, {
    organizationId: row.organization_id,
    actor,
    action: "key.lookup",
    target: `site:${row.site_id}`,
    detail: key !== undefined ? { key_id: row.key_id } : { key_id: row.key_id, by: "prefix" },
  }).run();
  return row;
}

/**
 * Suspends (reason) or resumes (null) a site: D1 and its audit row in one batch, with the
 * settings version bumped so the site object adopts it; this isolate's key cache forgets the site
 * (others within KEY_CACHE_MS, 30 s); the object hears it before the answer, so its jobs stop at
 * their next step (or, resumed, are due again).
 */
export async function setSuspension(env: Env, actor: Actor, siteId: number, reason: string | null, at = new Date()) {
  const db = controlDb(env.DB);
  const current = await requireSite(db, siteId);
  const [rows] = await db.batch([
    db
      .update(sites)
      .set({ suspendedReason: reason, suspendedAt: reason === null ? null : at.toISOString(), settingsVersion: sql`${sites.settingsVersion} + 1` })
      .where(eq(sites.id, siteId))
      .returning({ suspendedAt: sites.suspendedAt }),
    auditStatement(
      db,
      {
        organizationId: current.organizationId,
        actor,
        action: reason === null ? "site.resume" : "site.suspend",
        target: `site:${siteId}`,
        detail: reason === null ? undefined : { reason },
      },
      at,
    ),
  ]);
  if (!rows[0]) throw notFound(`Site ${siteId}`);
  forgetSite(siteId);
  const settings = await requireSite(db, siteId);
  await siteStub(env, siteId).applySettings(settings);
  return { site_id: siteId, suspended: reason, suspended_at: rows[0].suspendedAt };
}
