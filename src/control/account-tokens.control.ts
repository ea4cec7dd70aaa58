/**
 * One-time links and short steps of an account (schema `account_tokens`): a random token
 * goes out (in a mail's link or a cookie); only its SHA-256 is stored. A token is claimed
 * in one conditional update, so it works exactly once even when used twice at once.
 */
import { and, eq, gt, isNull } from "drizzle-orm";
import { sha256Hex } from "../digest";
import type { ControlDb } from "./db";
import { randomToken } from "./passwords.control";
import { accountTokens } from "./schema";

export type TokenPurpose = "reset" | "verify" | "mfa" | "totp_setup" | "unlock";
export const TOKEN_TTL_MS: Record<TokenPurpose, number> = {
  reset: 3_600_000,
  verify: 24 * 3_600_000,
  mfa: 10 * 60_000,
  totp_setup: 30 * 60_000,
  unlock: 24 * 3_600_000,
};

export async function issueToken(db: ControlDb, purpose: TokenPurpose, userId: number, now = new Date(), data?: string) {
  const token = randomToken();
  await db.insert(accountTokens).values({
    tokenHash: await sha256Hex(token),
    purpose,
    userId,
    createdAt: now.toISOString(),
    expiresAt: new Date(now.getTime() + TOKEN_TTL_MS[purpose]).toISOString(),
    data: data ?? null,
  });
  return token;
}

export type TokenState = { state: "open"; userId: number; data: string | null } | { state: "used" | "expired" | "unknown" };

/** What a token is now, without using it (to tell a person plainly that a link was used or expired). */
export async function peekToken(db: ControlDb, purpose: TokenPurpose, token: string, now = new Date()): Promise<TokenState> {
  if (!token || token.length > 100) return { state: "unknown" };
  const row = await db
    .select()
    .from(accountTokens)
    .where(and(eq(accountTokens.tokenHash, await sha256Hex(token)), eq(accountTokens.purpose, purpose)))
    .get();
  if (!row) return { state: "unknown" };
  if (row.usedAt) return { state: "used" };
  if (row.expiresAt <= now.toISOString()) return { state: "expired" };
  return { state: "open", userId: row.userId, data: row.data };
}

/** Uses a token: answers its user (and data) once; later, or after expiry, the state that refused it. */
export async function claimToken(db: ControlDb, purpose: TokenPurpose, token: string, now = new Date()): Promise<TokenState> {
  const peek = await peekToken(db, purpose, token, now);
  if (peek.state !== "open") return peek;
  const claimed = await db
    .update(accountTokens)
    .set({ usedAt: now.toISOString() })
    .where(and(eq(accountTokens.tokenHash, await sha256Hex(token)), isNull(accountTokens.usedAt), gt(accountTokens.expiresAt, now.toISOString())))
    .returning({ userId: accountTokens.userId, data: accountTokens.data });
  return claimed.length ? { state: "open", userId: claimed[0].userId, data: claimed[0].data } : { state: "used" };
}

/** Ends every open token of a purpose for a person (a reset link once the password changed, a pending set-up once confirmed). */
export function closeTokensStatement(db: ControlDb, userId: number, purpose: TokenPurpose, now = new Date()) {
  return db
    .update(accountTokens)
    .set({ usedAt: now.toISOString() })
    .where(and(eq(accountTokens.userId, userId), eq(accountTokens.purpose, purpose), isNull(accountTokens.usedAt)));
}
