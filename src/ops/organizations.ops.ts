/**
 * Organizations: create (the operator), and what both doors read of one: its month of usage
 * and its audit log. The subscription is in subscriptions.ops.ts, members in people.ops.ts.
 */
import { sql } from "drizzle-orm";
import type { Organization, OrganizationCreate } from "../api/admin.schemas";
import { type OrganizationUsage, organizationUsage } from "../billing/organization-usage";
import { auditStatement, listAudit } from "../control/audit.control";
import { controlDb } from "../control/db";
import { findOrganization, insertOrganizationStatement } from "../control/organizations.control";
import { notFound } from "../errors";
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

/** A page of the audit log, newest first; `cursor` is the id of the previous page's last entry. */
export async function auditOf(env: Env, query: { organizationId?: number; cursor?: number; limit: number }) {
  return listAudit(controlDb(env.DB), query);
}
