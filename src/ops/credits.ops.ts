/**
 * Credits (docs/runbook.md "A hot site or a runaway job"; docs/decisions.md "Billing"): characters
 * the operator gives back to an organization for a month, with a reason the customer reads on the
 * usage page. They come off the month's overage at its close (and so off the Stripe invoice item),
 * never below zero and never carried to another month. A closed month is refused: its overage was
 * invoiced already, so the credit goes on the current month, or back as money in Stripe.
 */
import { and, eq } from "drizzle-orm";
import { monthOf } from "../billing/plans";
import { auditStatement } from "../control/audit.control";
import { controlDb } from "../control/db";
import { billingCloses, credits } from "../control/schema";
import { ApiError, invalid } from "../errors";
import type { Actor } from "./actor";
import { requireOrganization } from "./organizations.ops";

export interface CreditInput {
  month: string;
  characters: number;
  reason: string;
}

export async function grantCredit(env: Env, actor: Actor, orgId: number, input: CreditInput, at: Date) {
  await requireOrganization(env, orgId);
  const current = monthOf(at).key.slice(0, 7);
  if (input.month > current) throw invalid(`month: must not be after the current month (${current}); a credit reduces a month's overage when that month is closed`);
  const db = controlDb(env.DB);
  const closed = await db
    .select()
    .from(billingCloses)
    .where(and(eq(billingCloses.organizationId, orgId), eq(billingCloses.month, input.month)))
    .get();
  if (closed) {
    const billed =
      closed.provider === "stripe" && closed.invoiceItemId
        ? `its overage went to Stripe as invoice item ${closed.invoiceItemId}: refund it there (a credit note on that invoice)`
        : closed.overageCents > 0
          ? "its overage was recorded for invoicing by hand: correct that invoice"
          : "it had no overage to reduce";
    throw new ApiError(409, `${input.month} is closed for organization ${orgId} (since ${closed.closedAt}): ${billed}, or credit the current month (${current}) instead.`);
  }
  const createdAt = at.toISOString();
  const [[row]] = await db.batch([
    db.insert(credits).values({ organizationId: orgId, month: input.month, characters: input.characters, reason: input.reason, actor, createdAt }).returning(),
    auditStatement(
      db,
      {
        organizationId: orgId,
        actor,
        action: "organization.credit",
        target: `organization:${orgId}`,
        detail: { month: input.month, characters: input.characters, reason: input.reason },
      },
      at,
    ),
  ]);
  return {
    id: row.id,
    organization_id: row.organizationId,
    month: row.month,
    characters: row.characters,
    reason: row.reason,
    created_by: row.actor,
    created_at: row.createdAt,
  };
}
