import { sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import * as schema from "./schema";

export type ControlDb = ReturnType<typeof controlDb>;

export function controlDb(d1: D1Database) {
  return drizzle(d1, { schema });
}

/** `IN (…)` over any number of ids with one bound parameter (D1 allows 100 per statement). */
export const idList = (ids: readonly number[]) => sql`(SELECT value FROM json_each(${JSON.stringify(ids)}))`;
