import { defineConfig } from "drizzle-kit";

// D1 (control plane). `npm run db:generate` writes SQL migrations that wrangler applies.
export default defineConfig({
  dialect: "sqlite",
  schema: "./src/control/schema.ts",
  out: "./migrations/control",
});
