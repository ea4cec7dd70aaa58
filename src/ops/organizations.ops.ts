/**
 * Organizations: create (the operator), and what both doors read of one: its month of usage
 * and its audit log; and a site's month as its connector reads it (GET /v1/usage). The subscription is in subscriptions.ops.ts, members in people.ops.ts.
 */
import { sql } from "drizzle-orm";
import type { Organization, OrganizationCreate } from "../api/admin.schemas";
import { usageOut } from "../billing/metering";
import { type OrganizationUsage, organizationUsage } from "../billing/organization-usage";
import { auditStatement, listAudit } from "../control/audit.control";
import { controlDb } from "../control/db";
import { findOrganization, insertOrganizationStatement } from "../control/organizations.control";
import type { SiteSettings } from "../control/sites.control";
import { notFound } from "../errors";
import { decodeCursor, encodeCursor, isNumber } from "../site/cursor";
import type { Actor } from "./actor";

export async function createOrganization(env: Env, actor: Actor, input: OrganizationCreate): Promise<Organization> {
  const db = controlDb(env.DB);
  // The new id is known only inside the batch: the audit row takes it from the insert before it.
  const [[row]] = await db.batch([
    insertOrganizationStatement(db, input.name),
    auditStatement(db, {
      organizationId: sql`last_insert_rowid()`,
      actor,
      action: "organization.create",
      target: sql`'organization:' || last_insert_rowid()`,
      detail: { name: input.name },
    }),
  ]);
  return { id: row.id, name: row.name };
}

export async function requireOrganization(env: Env, orgId: number) {
  const org = await findOrganization(controlDb(env.DB), orgId);
  if (!org) throw notFound(`Organization ${orgId}`);
  return org;
}

/** The month (`YYYY-MM`, validated by UsageMonthQuery) as the operator invoices it and the Usage page draws it. */
export async function usageOf(env: Env, orgId: number, month: string): Promise<OrganizationUsage> {
  return organizationUsage(controlDb(env.DB), orgId, month);
}

const isAuditCursor = (v: unknown): v is number => isNumber(v) && v > 0;

/** This month's usage in the site's scope (the site on `pro`, its organization otherwise), as GET /v1/usage answers it. */
export async function siteUsage(env: Env, site: SiteSettings, at: Date) {
  return usageOut(controlDb(env.DB), site, at);
}

/** A page of the audit log, newest first, for both doors: `cursor` is the previous page's `next_cursor` (opaque, as every list's). */
export async function auditOf(env: Env, query: { organizationId?: number; cursor?: string; limit: number }) {
  const page = await listAudit(controlDb(env.DB), { organizationId: query.organizationId, cursor: decodeCursor(query.cursor, isAuditCursor), limit: query.limit });
  return { items: page.items, next_cursor: page.next_cursor === null ? null : encodeCursor(page.next_cursor) };
}
