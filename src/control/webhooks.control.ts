/**
 * Webhook rows in D1: the site's endpoint, its delivery log (the last 100 kept) and its
 * marks. Statements are returned where an operation batches them with its audit row.
 */
import { and, desc, eq, inArray, notInArray, sql } from "drizzle-orm";
import { type ControlDb, idList } from "./db";
import { webhookDeliveries, webhookEndpoints, webhookMarks } from "./schema";

export type EndpointRow = typeof webhookEndpoints.$inferSelect;
export type DeliveryRow = typeof webhookDeliveries.$inferSelect;

export async function findEndpoint(db: ControlDb, siteId: number): Promise<EndpointRow | undefined> {
  const [row] = await db.select().from(webhookEndpoints).where(eq(webhookEndpoints.siteId, siteId)).limit(1);
  return row;
}

/** Registers or replaces: a new URL gets a new secret and starts enabled, with no failures. */
export function putEndpointStatement(db: ControlDb, row: { siteId: number; url: string; events: string[] | null; secret: string; at: string }) {
  const values = {
    siteId: row.siteId,
    url: row.url,
    events: row.events,
    secret: row.secret,
    previousSecret: null,
    previousUntil: null,
    createdAt: row.at,
    updatedAt: row.at,
    failingSince: null,
    disabledAt: null,
  };
  return db
    .insert(webhookEndpoints)
    .values(values)
    .onConflictDoUpdate({ target: webhookEndpoints.siteId, set: { ...values, createdAt: sql`${webhookEndpoints.createdAt}` } })
    .returning();
}

export function deleteEndpointStatement(db: ControlDb, siteId: number) {
  return db.delete(webhookEndpoints).where(eq(webhookEndpoints.siteId, siteId));
}

export function rotateStatement(db: ControlDb, siteId: number, secret: string, previousUntil: string, at: string) {
  return db
    .update(webhookEndpoints)
    .set({ previousSecret: sql`${webhookEndpoints.secret}`, previousUntil, secret, updatedAt: at })
    .where(eq(webhookEndpoints.siteId, siteId))
    .returning();
}

export function enableStatement(db: ControlDb, siteId: number, at: string) {
  return db.update(webhookEndpoints).set({ disabledAt: null, failingSince: null, updatedAt: at }).where(eq(webhookEndpoints.siteId, siteId)).returning();
}

/** After an attempt: a success clears the failing streak; a failure starts it (once) and may disable. */
export async function recordEndpointOutcome(db: ControlDb, siteId: number, ok: boolean, at: Date, disableAfterMs: number) {
  if (ok) {
    await db
      .update(webhookEndpoints)
      .set({ failingSince: null })
      .where(and(eq(webhookEndpoints.siteId, siteId), sql`${webhookEndpoints.failingSince} IS NOT NULL`));
    return;
  }
  const iso = at.toISOString();
  const since = new Date(at.getTime() - disableAfterMs).toISOString();
  await db
    .update(webhookEndpoints)
    .set({
      failingSince: sql`coalesce(${webhookEndpoints.failingSince}, ${iso})`,
      disabledAt: sql`CASE WHEN ${webhookEndpoints.disabledAt} IS NULL AND ${webhookEndpoints.failingSince} <= ${since} THEN ${iso} ELSE ${webhookEndpoints.disabledAt} END`,
    })
    .where(eq(webhookEndpoints.siteId, siteId));
}

// ------------------------------------------------------------------ the delivery log

/** A new delivery, and the log trimmed to the newest `keep` of the site. */
export async function insertDelivery(db: ControlDb, row: { id: string; siteId: number; event: string; payload: string; createdAt: string }, keep: number) {
  await db.batch([
    db.insert(webhookDeliveries).values({ ...row, attempts: 0, status: "pending" }),
    db
      .delete(webhookDeliveries)
      .where(
        and(
          eq(webhookDeliveries.siteId, row.siteId),
          notInArray(
            webhookDeliveries.id,
            db
              .select({ id: webhookDeliveries.id })
              .from(webhookDeliveries)
              .where(eq(webhookDeliveries.siteId, row.siteId))
              .orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id))
              .limit(keep),
          ),
        ),
      ),
  ]);
}

export async function findDelivery(db: ControlDb, id: string): Promise<DeliveryRow | undefined> {
  const [row] = await db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, id)).limit(1);
  return row;
}

export async function findSiteDelivery(db: ControlDb, siteId: number, id: string): Promise<DeliveryRow | undefined> {
  const [row] = await db
    .select()
    .from(webhookDeliveries)
    .where(and(eq(webhookDeliveries.id, id), eq(webhookDeliveries.siteId, siteId)))
    .limit(1);
  return row;
}

export function listDeliveries(db: ControlDb, siteId: number, limit: number, status?: string): Promise<DeliveryRow[]> {
  return db
    .select()
    .from(webhookDeliveries)
    .where(and(eq(webhookDeliveries.siteId, siteId), status === undefined ? undefined : eq(webhookDeliveries.status, status)))
    .orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id))
    .limit(limit);
}

/** Deliveries the dead-letter queue's consumer ended (`error` is its fixed reason), newest first; of one site or all. */
export function listDeadLetters(db: ControlDb, reason: string, limit: number, siteId?: number): Promise<DeliveryRow[]> {
  return db
    .select()
    .from(webhookDeliveries)
    .where(and(eq(webhookDeliveries.status, "failed"), eq(webhookDeliveries.error, reason), siteId === undefined ? undefined : eq(webhookDeliveries.siteId, siteId)))
    .orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id))
    .limit(limit);
}

export async function recordAttempt(
  db: ControlDb,
  id: string,
  outcome: { status: "pending" | "delivered" | "failed"; statusCode: number | null; durationMs: number; error: string | null; nextAttemptAt: string | null },
) {
  await db
    .update(webhookDeliveries)
    .set({ attempts: sql`${webhookDeliveries.attempts} + 1`, ...outcome })
    .where(eq(webhookDeliveries.id, id));
}

/** Ends a delivery without an attempt (its endpoint was removed or disabled). */
export async function failDelivery(db: ControlDb, id: string, error: string) {
  await db.update(webhookDeliveries).set({ status: "failed", error, nextAttemptAt: null }).where(eq(webhookDeliveries.id, id));
}

/** Sends it again as a fresh delivery with the same `webhook-id`: attempts count from zero. */
export function resetDeliveryStatement(db: ControlDb, siteId: number, id: string) {
  return db
    .update(webhookDeliveries)
    .set({ status: "pending", attempts: 0, statusCode: null, durationMs: null, error: null, nextAttemptAt: null })
    .where(and(eq(webhookDeliveries.id, id), eq(webhookDeliveries.siteId, siteId)));
}

// ------------------------------------------------------------------ marks

/**
 * Claims the next send of a coalesced event (at most one per `windowMs`): answers the delay
 * in ms before it goes out (0 when the window is free; the rest of the window when one was
 * sent within it), or null when a send is already waiting for the window's end and will
 * carry this event too. One statement, so concurrent claims cannot both win.
 */
export async function claimWindow(db: ControlDb, siteId: number, mark: string, nowMs: number, windowMs: number): Promise<number | null> {
  const rows = await db
    .insert(webhookMarks)
    .values({ siteId, mark, at: nowMs })
    .onConflictDoUpdate({
      target: [webhookMarks.siteId, webhookMarks.mark],
      set: { at: sql`max(excluded.at, ${webhookMarks.at} + ${windowMs})` },
      setWhere: sql`${webhookMarks.at} <= excluded.at`,
    })
    .returning({ at: webhookMarks.at });
  return rows.length ? Math.max(0, rows[0].at - nowMs) : null;
}

/** Sets a mark once: true the first time (`usage.threshold` once a month per threshold). */
export async function markOnce(db: ControlDb, siteId: number, mark: string, nowMs: number): Promise<boolean> {
  const rows = await db.insert(webhookMarks).values({ siteId, mark, at: nowMs }).onConflictDoNothing().returning({ at: webhookMarks.at });
  return rows.length > 0;
}

/** Erasure: the sites' endpoints (their secrets), delivery logs (event bodies) and marks. */
export function deleteWebhookRows(db: ControlDb, siteIds: number[]) {
  return [
    db.delete(webhookEndpoints).where(inArray(webhookEndpoints.siteId, idList(siteIds))),
    db.delete(webhookDeliveries).where(inArray(webhookDeliveries.siteId, idList(siteIds))),
    db.delete(webhookMarks).where(inArray(webhookMarks.siteId, idList(siteIds))),
  ] as const;
}
