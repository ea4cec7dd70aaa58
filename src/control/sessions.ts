/**
 * Dashboard sessions: a random token in the cookie, only its SHA-256 in D1. Sessions last
 * 14 days and slide: a session used with less than 13 days left is extended again to 14
 * (so a session costs at most one D1 write a day, not one per page).
 */
import { and, eq, gt, lte, ne } from "drizzle-orm";
import { sha256Hex } from "../digest";
import type { ControlDb } from "./db";
import { randomToken } from "./passwords";
import { sessions, users } from "./schema";

export const SESSION_DAYS = 14;
const DAY_MS = 86_400_000;
const SLIDE_WHEN_LEFT_MS = (SESSION_DAYS - 1) * DAY_MS;

export interface SessionUser {
  userId: number;
  email: string;
  tokenHash: string;
}

export async function createSession(db: ControlDb, userId: number, now = new Date()): Promise<string> {
  const token = randomToken();
  await db.insert(sessions).values({
    tokenHash: await sha256Hex(token),
    userId,
    createdAt: now.toISOString(),
    expiresAt: new Date(now.getTime() + SESSION_DAYS * DAY_MS).toISOString(),
  });
  return token;
}

/** The signed-in person for a cookie's token, or null (unknown or expired). Extends the session when due. */
export async function sessionUser(db: ControlDb, token: string, now = new Date()): Promise<SessionUser | null> {
  if (!token || token.length > 100) return null;
  const tokenHash = await sha256Hex(token);
  const row = await db
    .select({ userId: sessions.userId, expiresAt: sessions.expiresAt, email: users.email })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .where(and(eq(sessions.tokenHash, tokenHash), gt(sessions.expiresAt, now.toISOString())))
    .get();
  if (!row) return null;
  if (Date.parse(row.expiresAt) - now.getTime() < SLIDE_WHEN_LEFT_MS)
    await db
      .update(sessions)
      .set({ expiresAt: new Date(now.getTime() + SESSION_DAYS * DAY_MS).toISOString() })
      .where(eq(sessions.tokenHash, tokenHash));
  return { userId: row.userId, email: row.email, tokenHash };
}

export async function endSession(db: ControlDb, token: string) {
  await db.delete(sessions).where(eq(sessions.tokenHash, await sha256Hex(token)));
}

/** Ending every session of the person but the one given (after a password change), and sweeping expired ones: statements for one batch. */
export function endOtherSessionsStatements(db: ControlDb, userId: number, keepTokenHash: string, now = new Date()) {
  return [
    db.delete(sessions).where(and(eq(sessions.userId, userId), ne(sessions.tokenHash, keepTokenHash))),
    db.delete(sessions).where(lte(sessions.expiresAt, now.toISOString())),
  ] as const;
}
