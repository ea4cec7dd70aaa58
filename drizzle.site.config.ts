import { defineConfig } from "drizzle-kit";

// The site Durable Object's SQLite storage. Applied in SiteObject's constructor.
export default defineConfig({
  dialect: "sqlite",
  driver: "durable-sqlite",
  schema: "./src/site/schema.ts",
  out: "./migrations/site",
});
