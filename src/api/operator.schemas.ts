/** Bodies of the operator's lifecycle endpoints (admin API): audit log and organization usage. */
import { z } from "@hono/zod-openapi";
import { LIMITS } from "../limits";

export const AuditQuery = z.object({
  organization_id: z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER).optional(),
  cursor: z.string().max(512).optional(),
  limit: z.coerce.number().int().min(1).max(LIMITS.pageMax).default(LIMITS.pageDefault),
});

export const AuditItemOut = z
  .object({
    at: z.string().openapi({ example: "2026-11-23T14:03:11.512Z" }),
    actor: z.string().openapi({ description: "`admin` (the operator's token) or `user:<id>` (a dashboard user)", example: "admin" }),
    action: z.string().openapi({ description: "A dotted verb", example: "key.create" }),
    target: z.string().openapi({ example: "site:12" }),
    detail: z
      .record(z.string(), z.unknown())
      .nullable()
      .openapi({ description: "What changed; never a secret", example: { name: "production", key_id: 4 } }),
  })
  .openapi("AuditItemOut");

export const AuditOut = z.object({ items: z.array(AuditItemOut), next_cursor: z.string().nullable() }).openapi("AuditOut");

export const UsageMonthQuery = z.object({
  month: z
    .string()
    .regex(/^\d{4}-(0[1-9]|1[0-2])$/, "must be a month as YYYY-MM")
    .openapi({ example: "2026-11" }),
});

export const OrganizationUsageOut = z
  .object({
    month: z.string(),
    plan: z.enum(["pro", "agency", "growth", "scale"]).nullable(),
    included_characters: z.number().int().nullable().openapi({ description: "null when not metered (scale) or without a subscription" }),
    used_characters: z.number().int(),
    overage_characters: z.number().int(),
    overage_cents: z.number().int(),
    currency: z.string(),
    sites: z.array(z.object({ site_id: z.number().int(), name: z.string().nullable().openapi({ description: "null for an erased site" }), used_characters: z.number().int() })),
    days: z.array(z.object({ date: z.string(), used_characters: z.number().int() })),
  })
  .openapi("OrganizationUsageOut");

export const BillingCloseOut = z
  .object({
    organization_id: z.number().int(),
    month: z.string().openapi({ example: "2026-10" }),
    plan: z.enum(["pro", "agency", "growth", "scale"]).nullable().openapi({ description: "The plan the month was closed under; null without a subscription" }),
    used_characters: z.number().int(),
    overage_characters: z.number().int(),
    overage_cents: z.number().int(),
    provider: z
      .enum(["manual", "stripe"])
      .openapi({ description: "`stripe`: an invoice item was added to the customer's next invoice; `manual`: the operator invoices from this row" }),
    invoice_item_id: z.string().nullable().openapi({ description: "Stripe's invoice item (`ii_…`); null for manual closes and months without overage", example: "ii_1QxYz" }),
    closed_at: z.string(),
  })
  .openapi("BillingCloseOut");

export const BillingClosesOut = z
  .object({
    closes: z.array(BillingCloseOut),
    pending: z
      .array(z.object({ organization_id: z.number().int(), detail: z.string() }))
      .optional()
      .openapi({ description: "Organizations this run left open (Stripe could not be reached); the next run, by hand or by the Cron Trigger, retries them" }),
  })
  .openapi("BillingClosesOut");

export const BillingMonthQuery = z.object({
  month: z
    .string()
    .regex(/^\d{4}-(0[1-9]|1[0-2])$/, "must be a month as YYYY-MM")
    .openapi({ example: "2026-10" }),
});

export const OptionalMonthQuery = z.object({
  month: z
    .string()
    .regex(/^\d{4}-(0[1-9]|1[0-2])$/, "must be a month as YYYY-MM")
    .optional()
    .openapi({ example: "2026-10", description: "Only this month's closes; all closes without it" }),
});
