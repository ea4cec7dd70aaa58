/**
 * The audit log: every admin-API and dashboard change, who made it and on what, and every
 * operator read of a customer's texts (`attention.read`). Details never hold a secret (no keys,
 * tokens, passwords or texts of translations).
 */
import { and, desc, eq, lt, type SQL } from "drizzle-orm";
import type { ControlDb } from "./db";
import { auditLog } from "./schema";

/**
 * Every action the log records. Typed, so a new action is added here first; the suite has a row
 * for each (test/lifecycle/audit-actions.test.ts fails for an action no test produces and reads back).
 */
export const AUDIT_ACTIONS = [
  "organization.create",
  "organization.erase",
  "organization.require_two_factor",
  "organization.allow_without_two_factor",
  "site.create",
  "site.update",
  "site.erase",
  "key.create",
  "key.revoke",
  "glossary.replace",
  "glossary.add",
  "glossary.remove",
  "invitation.create",
  "invitation.resend",
  "invitation.revoke",
  "invitation.accept",
  "member.remove",
  "job.create",
  "job.cancel",
  "attention.fix",
  "attention.discard",
  "attention.read",
  "memory.edit",
  "memory.delete",
  "memory.import",
  "memory.export",
  "webhook.put",
  "webhook.delete",
  "webhook.rotate",
  "webhook.redeliver",
  "webhook.enable",
  "subscription.update",
  "subscription.delete",
  "subscription.sync",
  "billing.checkout",
  "billing.plan_change",
  "billing.sites",
  "billing.portal",
  "billing.cancel",
  "billing.resume",
  "billing.close",
  "user.sign_up",
  "user.password_change",
  "user.password_reset",
  "user.session_end",
  "user.sessions_end_others",
  "user.two_factor_on",
  "user.two_factor_off",
  "user.recovery_code_used",
  "user.two_factor_reset",
  "user.verify",
  "user.sign_in_paused",
  "user.unlock",
  "person.erase",
  "key.lookup",
  "site.suspend",
  "site.resume",
  "site.restore",
  "organization.credit",
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export interface AuditEntry {
  /** A number, or a SQL expression for an id made earlier in the same batch (`last_insert_rowid()`). */
  organizationId: number | null | SQL;
  /** `admin` (the single ADMIN_TOKEN), `admin:<name>` (a named operator token), `user:<id>` (a dashboard user) or `key:<id>` (a site key). */
  actor: string;
  /** A dotted verb: `site.update`, `key.create`, `member.remove` … */
  action: AuditAction;
  /** What it was done to: `site:12`, `key:4`, `organization:3` … (or a SQL expression, as for the id) */
  target: string | SQL;
  /** Plain data, or a SQL expression for a value known only inside the batch (a new row's id). */
  detail?: Record<string, unknown> | SQL;
}

export interface AuditItem {
  id: number;
  at: string;
  organization_id: number | null;
  actor: string;
  action: string;
  target: string;
  detail: Record<string, unknown> | null;
}

/** The insert as a statement, so callers can put it in the same `db.batch` as the change. */
export function auditStatement(db: ControlDb, entry: AuditEntry, at = new Date()) {
  return db.insert(auditLog).values({
    organizationId: entry.organizationId,
    at: at.toISOString(),
    actor: entry.actor,
    action: entry.action,
    target: entry.target,
    detail: entry.detail ?? null,
  });
}

/** Newest first; `cursor` is the id of the last item of the previous page. */
export async function listAudit(db: ControlDb, query: { organizationId?: number; cursor?: number; limit: number }) {
  const where: SQL[] = [];
  if (query.organizationId !== undefined) where.push(eq(auditLog.organizationId, query.organizationId));
  if (query.cursor !== undefined) where.push(lt(auditLog.id, query.cursor));
  const rows = await db
    .select()
    .from(auditLog)
    .where(where.length ? and(...where) : undefined)
    .orderBy(desc(auditLog.id))
    .limit(query.limit + 1);
  const page = rows.slice(0, query.limit);
  const items: AuditItem[] = page.map((r) => ({
    id: r.id,
    at: r.at,
    organization_id: r.organizationId,
    actor: r.actor,
    action: r.action,
    target: r.target,
    detail: r.detail ?? null,
  }));
  return { items, next_cursor: rows.length > query.limit ? page[page.length - 1].id : null };
}
