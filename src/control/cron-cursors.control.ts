/** Where a paged cron task stopped (`cron_cursors`, src/control/schema.ts): read, move, forget. */
import { eq, inArray, like } from "drizzle-orm";
import type { ControlDb } from "./db";
import { cronCursors } from "./schema";

/** The last organization id the task finished, 0 when it starts from the beginning. */
export async function readCursor(db: ControlDb, name: string): Promise<number> {
  const row = await db.select({ position: cronCursors.position }).from(cronCursors).where(eq(cronCursors.name, name)).get();
  return row?.position ?? 0;
}

export async function saveCursor(db: ControlDb, name: string, position: number, now = new Date()) {
  await db
    .insert(cronCursors)
    .values({ name, position, updatedAt: now.toISOString() })
    .onConflictDoUpdate({ target: cronCursors.name, set: { position, updatedAt: now.toISOString() } });
}

/** Cursors of finished days and months (`digest:2031-01-05`, `month_close:2031-01`) older than `before`. */
export async function forgetCursors(db: ControlDb, prefix: string, before: string) {
  const rows = await db
    .select({ name: cronCursors.name })
    .from(cronCursors)
    .where(like(cronCursors.name, `${prefix}%`));
  const old = rows.filter((r) => r.name.slice(prefix.length) < before).map((r) => r.name);
  if (old.length) await db.delete(cronCursors).where(inArray(cronCursors.name, old.slice(0, 90)));
  return old.length;
}
