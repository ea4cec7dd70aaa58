/**
 * Month close (docs/decisions.md "Billing"): after a UTC month ends, each
 * organization's overage for it (the figures of GET /admin/v1/organizations/{id}/usage: after
 * the month's credits) is recorded once in `billing_closes`, with the credits it took off. Organizations that pay through Stripe get it as one
 * invoice item on their next invoice, created with the idempotency key
 * `overage:<org_id>:<YYYY-MM>`; the row is written only after Stripe accepted the item, so an
 * organization Stripe could not be reached for stays open and the next run tries again
 * (with the same key: Stripe answers a repeat within 24 hours with the first item; after
 * that, the customer's invoice items are searched for one carrying this organization and month).
 */
import { asc, eq, inArray, sql } from "drizzle-orm";
import { QueryBudget } from "../control/budget.control";
import { readCursor, saveCursor } from "../control/cron-cursors.control";
import { type ControlDb, idList } from "../control/db";
import { billingCloses, stripeSubscriptions, subscriptions, usageLedger } from "../control/schema";
import type { Plan } from "../limits";
import { redactError } from "../obs/log";
import { record } from "../obs/metrics";
import { type OrganizationUsage, organizationsUsage } from "./organization-usage";
import { monthOf } from "./plans";
import { billingProvider, type Provider, stripeClient } from "./stripe";

export interface CloseOut {
  organization_id: number;
  month: string;
  plan: Plan | null;
  used_characters: number;
  overage_characters: number;
  overage_cents: number;
  provider: Provider;
  invoice_item_id: string | null;
  closed_at: string;
  /** The month's credits when it was closed (taken off the overage). */
  credited_characters: number;
}

export interface CloseRun {
  /** Every close of the month (this run's and earlier ones), by organization. */
  closes: CloseOut[];
  /** Organizations left open by this run (Stripe failed); the next run retries them. */
  pending: { organization_id: number; detail: string }[];
}

const monthKey = (at: Date) => monthOf(at).key.slice(0, 7);
export const overageKey = (organizationId: number, month: string) => `overage:${organizationId}:${month}`;

const closeOut = (r: typeof billingCloses.$inferSelect): CloseOut => ({
  organization_id: r.organizationId,
  month: r.month,
  plan: r.plan as Plan | null,
  used_characters: r.usedCharacters,
  overage_characters: r.overageCharacters,
  overage_cents: r.overageCents,
  provider: r.provider as Provider,
  invoice_item_id: r.invoiceItemId,
  closed_at: r.closedAt,
  credited_characters: r.creditedCharacters,
});

export async function listCloses(db: ControlDb, month?: string): Promise<CloseOut[]> {
  const rows = await db
    .select()
    .from(billingCloses)
    .where(month ? eq(billingCloses.month, month) : undefined)
    .orderBy(asc(billingCloses.month), asc(billingCloses.organizationId));
  return rows.map(closeOut);
}

/** A month that has ended (UTC) by `at`. */
export const hasEnded = (month: string, at: Date) => month < monthKey(at);

/** Organizations to close for `month`: used characters in it or have a subscription, not closed yet; after `after`, at most `limit`. */
function candidates(db: ControlDb, month: string, after = 0, limit = -1) {
  const ledgerMonth = `${month}-01`;
  return db.all<{ id: number }>(sql`
    SELECT organization_id AS id FROM (
      SELECT DISTINCT ${usageLedger.organizationId} AS organization_id FROM ${usageLedger} WHERE ${usageLedger.month} = ${ledgerMonth}
      UNION SELECT ${subscriptions.organizationId} FROM ${subscriptions}
    ) WHERE organization_id > ${after}
      AND organization_id NOT IN (SELECT ${billingCloses.organizationId} FROM ${billingCloses} WHERE ${billingCloses.month} = ${month})
    ORDER BY organization_id LIMIT ${limit}`);
}

/** How many organizations `month` still has to close (for the `cron.run` line). */
async function openCount(db: ControlDb, month: string) {
  const ledgerMonth = `${month}-01`;
  const [row] = await db.all<{ n: number }>(sql`
    SELECT count(*) AS n FROM (
      SELECT DISTINCT ${usageLedger.organizationId} AS organization_id FROM ${usageLedger} WHERE ${usageLedger.month} = ${ledgerMonth}
      UNION SELECT ${subscriptions.organizationId} FROM ${subscriptions}
    ) WHERE organization_id NOT IN (SELECT ${billingCloses.organizationId} FROM ${billingCloses} WHERE ${billingCloses.month} = ${month})`);
  return Number(row?.n ?? 0);
}

/**
 * D1 queries one page of closes costs: the page (1), its usage with its credits (6), subscriptions
 * and Stripe mirrors (2), the rows (1), whatever the page's size (up to CLOSE_PAGE organizations).
 */
export const CLOSE_PAGE_QUERIES = 10;
export const CLOSE_PAGE = 100;

/**
 * Closes one ended month for every organization that used characters in it or has a
 * subscription, and is not closed for it yet. Safe to repeat: a closed organization is skipped.
 */
export async function closeMonth(env: Env, db: ControlDb, month: string, at: Date): Promise<CloseRun> {
  const pending: CloseRun["pending"] = [];
  for (let page = await closePage(env, db, month, 0, at, pending); page; page = await closePage(env, db, month, page.last, at, pending));
  return { closes: await listCloses(db, month), pending };
}

/** The next CLOSE_PAGE organizations after id `after` closed for the month (CLOSE_PAGE_QUERIES queries): how many were taken and the last id, or null when none is left. */
async function closePage(env: Env, db: ControlDb, month: string, after: number, at: Date, pending: CloseRun["pending"]): Promise<{ taken: number; last: number } | null> {
  const page = await candidates(db, month, after, CLOSE_PAGE);
  if (!page.length) return null;
  await closeOrganizations(
    env,
    db,
    page.map((o) => o.id),
    month,
    at,
    pending,
  );
  return { taken: page.length, last: page[page.length - 1].id };
}

/** Closes a page of organizations' month in CLOSE_PAGE_QUERIES - 1 queries; a Stripe failure leaves its organization open (listed in `pending`). */
async function closeOrganizations(env: Env, db: ControlDb, ids: number[], month: string, at: Date, pending: CloseRun["pending"]) {
  const stripeOn = billingProvider(env) === "stripe";
  const [usages, subs, mirrors] = await Promise.all([
    organizationsUsage(db, ids, month),
    db
      .select()
      .from(subscriptions)
      .where(inArray(subscriptions.organizationId, idList(ids))),
    db
      .select()
      .from(stripeSubscriptions)
      .where(inArray(stripeSubscriptions.organizationId, idList(ids))),
  ]);
  const rows: (typeof billingCloses.$inferInsert)[] = [];
  for (const id of ids) {
    const usage = usages.get(id)!;
    const sub = subs.find((s) => s.organizationId === id);
    const mirror = mirrors.find((m) => m.organizationId === id);
    // Billed through Stripe when Stripe keeps the subscription; an operator's override invoices by hand.
    const viaStripe = stripeOn && sub?.provider === "stripe" && mirror !== undefined;
    let invoiceItemId: string | null = null;
    if (viaStripe && usage.overage_cents > 0) {
      try {
        invoiceItemId = await invoiceOverage(env, mirror.customerId, id, month, usage);
      } catch (err) {
        pending.push({ organization_id: id, detail: `Stripe did not take the invoice item: ${err instanceof Error ? err.message : String(err)}` });
        record(env, "error", "billing.close", { org_id: id, month, status: "pending", code: "stripe_failed", error: redactError(err) });
        continue;
      }
    }
    record(env, "info", "billing.close", {
      org_id: id,
      month,
      status: "closed",
      code: viaStripe ? "stripe" : "manual",
      characters: usage.overage_characters,
      used_characters: usage.used_characters,
      credited_characters: usage.credited_characters,
    });
    rows.push({
      organizationId: id,
      month,
      plan: usage.plan,
      usedCharacters: usage.used_characters,
      overageCharacters: usage.overage_characters,
      overageCents: usage.overage_cents,
      provider: viaStripe ? "stripe" : "manual",
      invoiceItemId,
      closedAt: at.toISOString(),
      creditedCharacters: usage.credited_characters,
    });
  }
  if (!rows.length) return;
  // One statement for the page: the rows as one JSON parameter (D1 binds at most 100 parameters).
  await db.run(sql`
    INSERT INTO ${billingCloses} (organization_id, month, plan, used_characters, overage_characters, overage_cents, provider, invoice_item_id, closed_at, credited_characters)
    SELECT json_extract(value, '$.organizationId'), json_extract(value, '$.month'), json_extract(value, '$.plan'), json_extract(value, '$.usedCharacters'),
      json_extract(value, '$.overageCharacters'), json_extract(value, '$.overageCents'), json_extract(value, '$.provider'), json_extract(value, '$.invoiceItemId'),
      json_extract(value, '$.closedAt'), json_extract(value, '$.creditedCharacters')
    FROM json_each(${JSON.stringify(rows)}) WHERE true
    ON CONFLICT DO NOTHING`);
}

/** The overage as one invoice item on the customer's next invoice; answers its id. */
async function invoiceOverage(env: Env, customer: string, id: number, month: string, usage: OrganizationUsage) {
  const stripe = stripeClient(env);
  // Stripe forgets idempotency keys after 24 hours: an item an earlier run created (its answer
  // lost) is found by its metadata first, so a retry days later still bills once.
  const earlier = (await stripe.invoiceItems.list({ customer, limit: 100 })).data.find((i) => i.metadata?.organization_id === String(id) && i.metadata?.month === month);
  const item =
    earlier ??
    (await stripe.invoiceItems.create(
      {
        customer,
        amount: usage.overage_cents,
        currency: usage.currency,
        description:
          `Translation overage ${month}: ${usage.overage_characters.toLocaleString("en-US")} characters beyond the included volume` +
          (usage.credited_characters ? ` (after ${usage.credited_characters.toLocaleString("en-US")} characters credited)` : ""),
        metadata: { organization_id: String(id), month, overage_characters: String(usage.overage_characters), credited_characters: String(usage.credited_characters) },
      },
      { idempotencyKey: overageKey(id, month) },
    ));
  return item.id;
}

/**
 * What the Cron Triggers run (the daily one, and every 15 minutes while a month is open): every
 * ended month with ledger rows of an organization not closed for it, and the month just ended
 * (for subscriptions without usage). Bounded by `budget`: organizations are taken in id order
 * after the month's cursor while the budget holds one more close; the cursor records the last one
 * taken, so the next invocation goes on from there. A pass that reaches the end starts the cursor
 * over, so organizations Stripe refused are tried again on the next pass.
 */
export async function closeEndedMonths(env: Env, db: ControlDb, at: Date, budget: QueryBudget = new QueryBudget(Number.POSITIVE_INFINITY)) {
  const current = monthOf(at).start;
  const previous = new Date(Date.UTC(current.getUTCFullYear(), current.getUTCMonth() - 1, 1)).toISOString().slice(0, 7);
  const open = await db.all<{ month: string }>(sql`
    SELECT DISTINCT substr(l.month, 1, 7) AS month FROM ${usageLedger} l
    WHERE l.month < ${monthOf(at).key}
      AND NOT EXISTS (SELECT 1 FROM ${billingCloses} c WHERE c.organization_id = l.organization_id AND c.month = substr(l.month, 1, 7))`);
  const months = [...new Set([...open.map((r) => r.month), previous])].sort();
  const runs: { month: string; closed: number; pending: number; left: number }[] = [];
  for (const month of months) {
    // The cursor's read and write, a page, and the count of what is left.
    if (!budget.allows(3 + CLOSE_PAGE_QUERIES)) break;
    const name = `month_close:${month}`;
    let after = await readCursor(db, name);
    const pending: CloseRun["pending"] = [];
    let taken = 0;
    while (budget.allows(2 + CLOSE_PAGE_QUERIES)) {
      const page = await closePage(env, db, month, after, at, pending);
      if (!page) {
        after = 0; // the end of a pass: the next one starts over (for what Stripe refused)
        break;
      }
      taken += page.taken;
      after = page.last;
    }
    await saveCursor(db, name, after, at);
    runs.push({ month, closed: taken - pending.length, pending: pending.length, left: await openCount(db, month) });
  }
  return runs;
}
