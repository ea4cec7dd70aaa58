// Sessions at the domain depth: only the token's hash is stored, a session slides while it is
// used, and ending the others keeps the one given.
import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { controlDb } from "../../src/control/db";
import { sessions, users } from "../../src/control/schema";
import { createSession, endOtherSessionsStatements, endSession, SESSION_DAYS, sessionUser } from "../../src/control/sessions.control";
import { sha256Hex } from "../../src/digest";

const db = controlDb(env.DB);
const DAY = 86_400_000;

async function user() {
  const [row] = await db
    .insert(users)
    .values({ email: `session-${crypto.randomUUID()}@example.com`, passwordHash: "x" })
    .returning();
  return row;
}

describe("sessions", () => {
  it("store only the token's SHA-256, and end on sign-out", async () => {
    const u = await user();
    const token = await createSession(db, u.id);
    const rows = await db.select().from(sessions).where(eq(sessions.userId, u.id));
    expect(rows.map((r) => r.tokenHash)).toEqual([await sha256Hex(token)]);
    expect(JSON.stringify(rows)).not.toContain(token);
    expect((await sessionUser(db, token))?.userId).toBe(u.id);
    await endSession(db, token);
    expect(await sessionUser(db, token)).toBeNull();
  });

  it(`last ${SESSION_DAYS} days, slid forward when used with less than a day's slide left`, async () => {
    const u = await user();
    const t0 = new Date("2026-11-01T00:00:00Z");
    const token = await createSession(db, u.id, t0);
    const expiry = async () => (await db.select().from(sessions).where(eq(sessions.userId, u.id)).get())!.expiresAt;
    expect(await expiry()).toBe(new Date(t0.getTime() + SESSION_DAYS * DAY).toISOString());
    await sessionUser(db, token, new Date(t0.getTime() + DAY / 2)); // not yet due: no write
    expect(await expiry()).toBe(new Date(t0.getTime() + SESSION_DAYS * DAY).toISOString());
    const later = new Date(t0.getTime() + 2 * DAY);
    await sessionUser(db, token, later);
    expect(await expiry()).toBe(new Date(later.getTime() + SESSION_DAYS * DAY).toISOString());
    expect(await sessionUser(db, token, new Date(later.getTime() + SESSION_DAYS * DAY + 1))).toBeNull();
  });

  it("ending the others keeps the one given", async () => {
    const u = await user();
    const keep = await createSession(db, u.id);
    const other = await createSession(db, u.id);
    await db.batch([...endOtherSessionsStatements(db, u.id, await sha256Hex(keep))]);
    expect(await sessionUser(db, keep)).not.toBeNull();
    expect(await sessionUser(db, other)).toBeNull();
  });
});
