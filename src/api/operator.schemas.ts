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
    at: z.string().openapi({ example: "2026-11-23T14:03:11.512Z", description: "When it happened." }),
    actor: z.string().openapi({ description: "`admin` (the operator's token) or `user:<id>` (a dashboard user)", example: "admin" }),
    action: z.string().openapi({ description: "A dotted verb", example: "key.create" }),
    target: z.string().openapi({ example: "site:12", description: "What it concerned, as `type:id` (e.g. `site:12`, `organization:3`)." }),
    detail: z
      .record(z.string(), z.unknown())
      .nullable()
      .openapi({ description: "What changed; never a secret", example: { name: "production", key_id: 4 } }),
  })
  .openapi("AuditItemOut");

export const AuditOut = z
  .object({
    items: z.array(AuditItemOut).openapi({ description: "A page of entries, newest first." }),
    next_cursor: z.string().nullable().openapi({ description: "Pass as `cursor` for the next page; null on the last page." }),
  })
  .openapi("AuditOut");

export const UsageMonthQuery = z.object({
  month: z
    .string()
    .regex(/^\d{4}-(0[1-9]|1[0-2])$/, "must be a month as YYYY-MM")
    .openapi({ example: "2026-11" }),
});

export const OrganizationUsageOut = z
  .object({
    month: z.string().openapi({ description: "The month (`YYYY-MM`)." }),
    plan: z.enum(["pro", "agency", "growth", "scale"]).nullable().openapi({ description: "The plan code; null without a subscription." }),
    included_characters: z.number().int().nullable().openapi({ description: "null when not metered (scale) or without a subscription" }),
    used_characters: z.number().int().openapi({ description: "Billable characters used in the month, all sites together." }),
    overage_characters: z.number().int().openapi({ description: "Characters beyond the included volume." }),
    overage_cents: z.number().int().openapi({ description: "Their charge, in cents of `currency`." }),
    currency: z.string().openapi({ description: "ISO 4217 code, lowercase." }),
    sites: z
      .array(
        z.object({
          site_id: z.number().int().openapi({ description: "The site's id." }),
          name: z.string().nullable().openapi({ description: "null for an erased site" }),
          used_characters: z.number().int().openapi({ description: "Billable characters the site used in the month." }),
        }),
      )
      .openapi({ description: "Use per site (erased sites included)." }),
    days: z
      .array(
        z.object({
          date: z.string().openapi({ description: "The day (`YYYY-MM-DD`, UTC)." }),
          used_characters: z.number().int().openapi({ description: "Billable characters used that day." }),
        }),
      )
      .openapi({ description: "Use per day (UTC), every day of the month." }),
  })
  .openapi("OrganizationUsageOut");

export const BillingCloseOut = z
  .object({
    organization_id: z.number().int().openapi({ description: "The organization closed." }),
    month: z.string().openapi({ example: "2026-10", description: "The month closed (`YYYY-MM`)." }),
    plan: z.enum(["pro", "agency", "growth", "scale"]).nullable().openapi({ description: "The plan the month was closed under; null without a subscription" }),
    used_characters: z.number().int().openapi({ description: "Billable characters used in the month." }),
    overage_characters: z.number().int().openapi({ description: "Characters beyond the included volume." }),
    overage_cents: z.number().int().openapi({ description: "Their charge, in cents." }),
    provider: z
      .enum(["manual", "stripe"])
      .openapi({ description: "`stripe`: an invoice item was added to the customer's next invoice; `manual`: the operator invoices from this row" }),
    invoice_item_id: z.string().nullable().openapi({ description: "Stripe's invoice item (`ii_…`); null for manual closes and months without overage", example: "ii_1QxYz" }),
    closed_at: z.string().openapi({ description: "When the month was closed." }),
  })
  .openapi("BillingCloseOut");

export const BillingClosesOut = z
  .object({
    closes: z.array(BillingCloseOut).openapi({ description: "The month's closes, one per organization." }),
    pending: z
      .array(
        z.object({
          organization_id: z.number().int().openapi({ description: "The organization left open." }),
          detail: z.string().openapi({ description: "Why it could not be closed." }),
        }),
      )
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

export const RestoreIn = z
  .object({
    at: z.iso
      .datetime({ offset: true, message: "at: must be an ISO 8601 date and time, e.g. 2027-01-05T10:00:00Z" })
      .openapi({ description: "The moment to restore the site's object storage to: within the last 30 days, not in the future.", example: "2027-01-05T10:00:00Z" }),
  })
  .openapi("RestoreIn");

export const RestoreOut = z
  .object({
    site_id: z.number().int().openapi({ description: "The site restored." }),
    at: z.string().openapi({ description: "The moment restored to." }),
    bookmark: z.string().openapi({ description: "The storage bookmark of that moment (Cloudflare's point-in-time recovery)." }),
  })
  .openapi("RestoreOut");
