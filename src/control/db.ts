import { drizzle } from "drizzle-orm/d1";
import * as schema from "./schema";

export type ControlDb = ReturnType<typeof controlDb>;

export function controlDb(d1: D1Database) {
  return drizzle(d1, { schema });
}
