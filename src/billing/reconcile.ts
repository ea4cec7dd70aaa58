/**
 * Billing reconciliation (docs/decisions.md "Billing"): usage that reached D1 after its
 * month was closed (a site's ledger outbox flushed late: D1 was down at the month's end, an
 * object evicted before its flush) is in the ledger but not in the close. It is found by
 * comparing each close's `used_characters` with the ledger's sum for the same organization and
 * month now; the daily check logs each difference as `billing.late_usage`, and
 * GET /admin/v1/billing/discrepancies lists them for the operator to invoice by hand.
 */
import { sql } from "drizzle-orm";
import type { ControlDb } from "../control/db";
import { billingCloses, credits, usageLedger } from "../control/schema";
import { type MetricsSink, record } from "../obs/metrics";

export interface Discrepancy {
  organization_id: number;
  month: string;
  closed_characters: number;
  ledger_characters: number;
  late_characters: number;
  /** Credits granted while the month was being closed (refused once it is closed: src/ops/credits.ops.ts). */
  late_credit_characters: number;
  closed_at: string;
}

/** Closes whose month's ledger sum, or credits, differ from what was closed; one month, or every closed month. */
export async function discrepancies(db: ControlDb, month?: string): Promise<Discrepancy[]> {
  const rows = await db.all<{ organization_id: number; month: string; closed: number; ledger: number; credited: number; credits: number; closed_at: string }>(sql`
    SELECT c.organization_id, c.month, c.used_characters AS closed, c.credited_characters AS credited, c.closed_at,
      coalesce((SELECT sum(l.characters) FROM ${usageLedger} l WHERE l.organization_id = c.organization_id AND l.month = c.month || '-01'), 0) AS ledger,
      coalesce((SELECT sum(k.characters) FROM ${credits} k WHERE k.organization_id = c.organization_id AND k.month = c.month), 0) AS credits
    FROM ${billingCloses} c
    WHERE ${month === undefined ? sql`1` : sql`c.month = ${month}`}
    ORDER BY c.month, c.organization_id`);
  return rows
    .filter((r) => r.ledger !== r.closed || r.credits !== r.credited)
    .map((r) => ({
      organization_id: r.organization_id,
      month: r.month,
      closed_characters: r.closed,
      ledger_characters: r.ledger,
      late_characters: r.ledger - r.closed,
      late_credit_characters: r.credits - r.credited,
      closed_at: r.closed_at,
    }));
}

/** The daily check: each discrepancy of the months closed in the last `months` months, logged as `billing.late_usage`. */
export async function lateUsageCheck(env: { METRICS?: MetricsSink }, db: ControlDb, at: Date, months = 3): Promise<Discrepancy[]> {
  const since = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() - months, 1)).toISOString().slice(0, 7);
  const found = (await discrepancies(db)).filter((d) => d.month >= since);
  for (const d of found.filter((f) => f.late_characters !== 0))
    record(env, "warn", "billing.late_usage", { org_id: d.organization_id, month: d.month, characters: d.late_characters, count: 1 });
  return found;
}
