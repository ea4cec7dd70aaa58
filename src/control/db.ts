import { sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import * as schema from "./schema";

const open = (d1: D1Database) => drizzle(d1, { schema });
export type ControlDb = ReturnType<typeof open>;

/** One drizzle handle per D1 binding: making one walks the whole schema, and a job's commits ask for it each time. */
const handles = new WeakMap<D1Database, ControlDb>();

export function controlDb(d1: D1Database): ControlDb {
  let db = handles.get(d1);
  if (!db) handles.set(d1, (db = open(d1)));
  return db;
}

/** `IN (…)` over any number of ids with one bound parameter (D1 allows 100 per statement). */
export const idList = (ids: readonly number[]) => sql`(SELECT value FROM json_each(${JSON.stringify(ids)}))`;
