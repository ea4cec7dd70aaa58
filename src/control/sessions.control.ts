/**
 * Dashboard sessions: a random token in the cookie, only its SHA-256 in D1. Sessions last
 * 14 days and slide: a session used with less than 13 days left is extended again to 14.
 * `last_used_at` moves at most once an hour, in the same write: a session costs at most one
 * D1 write an hour, not one per page.
 */
import { and, desc, eq, gt, like, lte, ne, sql } from "drizzle-orm";
import { sha256Hex } from "../digest";
import type { ControlDb } from "./db";
import { randomToken } from "./passwords.control";
import { memberships, organizations, sessions, users } from "./schema";

export const SESSION_DAYS = 14;
const DAY_MS = 86_400_000;
const SLIDE_WHEN_LEFT_MS = (SESSION_DAYS - 1) * DAY_MS;
const LAST_USED_GRAIN_MS = 3_600_000;

export interface SessionUser {
  userId: number;
  email: string;
  tokenHash: string;
  /** False until the person follows the verification mail (self-serve sign-up): they can do nothing but verify. */
  verified: boolean;
  /** Two-factor sign-in is on for the person. */
  twoFactor: boolean;
  /** An organization of theirs requires two-factor (and `twoFactor` is false: they must set it up first). */
  twoFactorRequired: boolean;
}

export async function createSession(db: ControlDb, userId: number, now = new Date(), userAgent?: string | null): Promise<string> {
  const token = randomToken();
  await db.insert(sessions).values({
    tokenHash: await sha256Hex(token),
    userId,
    createdAt: now.toISOString(),
    lastUsedAt: now.toISOString(),
    userAgent: userAgent ? userAgent.slice(0, 300) : null,
    expiresAt: new Date(now.getTime() + SESSION_DAYS * DAY_MS).toISOString(),
  });
  return token;
}

/** The signed-in person for a cookie's token, or null (unknown or expired). Extends the session when due. */
export async function sessionUser(db: ControlDb, token: string, now = new Date()): Promise<SessionUser | null> {
  if (!token || token.length > 100) return null;
  const tokenHash = await sha256Hex(token);
  const row = await db
    .select({
      userId: sessions.userId,
      expiresAt: sessions.expiresAt,
      lastUsedAt: sessions.lastUsedAt,
      email: users.email,
      verifiedAt: users.emailVerifiedAt,
      totp: users.totpSecret,
      required: sql<number>`EXISTS (SELECT 1 FROM ${memberships} m JOIN ${organizations} o ON o.id = m.organization_id WHERE m.user_id = ${users.id} AND o.require_two_factor = 1)`,
    })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .where(and(eq(sessions.tokenHash, tokenHash), gt(sessions.expiresAt, now.toISOString())))
    .get();
  if (!row) return null;
  const slide = Date.parse(row.expiresAt) - now.getTime() < SLIDE_WHEN_LEFT_MS;
  const touch = !row.lastUsedAt || now.getTime() - Date.parse(row.lastUsedAt) >= LAST_USED_GRAIN_MS;
  if (slide || touch)
    await db
      .update(sessions)
      .set({ lastUsedAt: now.toISOString(), ...(slide ? { expiresAt: new Date(now.getTime() + SESSION_DAYS * DAY_MS).toISOString() } : {}) })
      .where(eq(sessions.tokenHash, tokenHash));
  const twoFactor = !!row.totp;
  return { userId: row.userId, email: row.email, tokenHash, verified: !!row.verifiedAt, twoFactor, twoFactorRequired: !twoFactor && !!row.required };
}

export async function endSession(db: ControlDb, token: string) {
  await db.delete(sessions).where(eq(sessions.tokenHash, await sha256Hex(token)));
}

/**
 * Ending every session of the person but the one given (after a password change; null: every
 * one, after a password reset), and sweeping expired ones: statements for one batch.
 */
export function endOtherSessionsStatements(db: ControlDb, userId: number, keepTokenHash: string | null, now = new Date()) {
  return [
    keepTokenHash ? db.delete(sessions).where(and(eq(sessions.userId, userId), ne(sessions.tokenHash, keepTokenHash))) : db.delete(sessions).where(eq(sessions.userId, userId)),
    db.delete(sessions).where(lte(sessions.expiresAt, now.toISOString())),
  ] as const;
}

/** A session as the account page shows it: `id` is a prefix of the token's hash (never the token). */
export interface SessionInfo {
  id: string;
  createdAt: string;
  lastUsedAt: string | null;
  userAgent: string | null;
  current: boolean;
}

const ID_CHARS = 16;

export async function listSessions(db: ControlDb, userId: number, currentHash: string, now = new Date()): Promise<SessionInfo[]> {
  const rows = await db
    .select()
    .from(sessions)
    .where(and(eq(sessions.userId, userId), gt(sessions.expiresAt, now.toISOString())))
    .orderBy(desc(sessions.lastUsedAt));
  return rows.map((r) => ({ id: r.tokenHash.slice(0, ID_CHARS), createdAt: r.createdAt, lastUsedAt: r.lastUsedAt, userAgent: r.userAgent, current: r.tokenHash === currentHash }));
}

/** Ends one of the person's own sessions by its id; answers whether one was ended. */
export async function endSessionById(db: ControlDb, userId: number, id: string): Promise<boolean> {
  if (!/^[0-9a-f]{16}$/.test(id)) return false;
  const gone = await db
    .delete(sessions)
    .where(and(eq(sessions.userId, userId), like(sessions.tokenHash, `${id}%`)))
    .returning({ h: sessions.tokenHash });
  return gone.length > 0;
}
