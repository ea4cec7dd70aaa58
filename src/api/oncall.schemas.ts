/** Bodies of the operator's lifecycle endpoints (admin API): audit log and organization usage. */
import { z } from "@hono/zod-openapi";
import { LIMITS } from "../limits";
import { page } from "./schemas";

export const AuditQuery = z.object({
  organization_id: z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER).optional(),
  cursor: z.string().max(512).optional(),
  limit: z.coerce.number().int().min(1).max(LIMITS.pageMax).default(LIMITS.pageDefault),
});

export const AuditItemOut = z
  .object({
    at: z.string().openapi({ example: "2026-11-23T14:03:11.512Z", description: "When it happened." }),
    actor: z.string().openapi({
      description: "`admin` (the single ADMIN_TOKEN), `admin:<name>` (a named operator token of ADMIN_TOKENS), `user:<id>` (a dashboard user) or `key:<id>` (a site's API key)",
      example: "admin:alice",
    }),
    action: z.string().openapi({ description: "A dotted verb", example: "key.create" }),
    target: z.string().openapi({ example: "site:12", description: "What it concerned, as `type:id` (e.g. `site:12`, `organization:3`)." }),
    detail: z
      .record(z.string(), z.unknown())
      .nullable()
      .openapi({ description: "What changed; never a secret", example: { name: "production", key_id: 4 } }),
  })
  .openapi("AuditItemOut");

export const AuditOut = page("AuditOut", "items", AuditItemOut, "A page of entries, newest first.");

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
    overage_characters: z.number().int().openapi({ description: "Characters beyond the included volume, after the month's credits: what the month's close bills." }),
    overage_cents: z.number().int().openapi({ description: "Their charge, in cents of `currency`." }),
    currency: z.string().openapi({ description: "ISO 4217 code, lowercase." }),
    credited_characters: z.number().int().openapi({ description: "The month's credits together (`credits`), taken off the overage, never below zero." }),
    credits: z
      .array(
        z.object({
          id: z.number().int().openapi({ description: "The credit's id." }),
          characters: z.number().int().openapi({ description: "Characters credited." }),
          reason: z.string().openapi({ description: "Why, as the organization's people read it on the usage page." }),
          created_at: z.string().openapi({ description: "When it was granted." }),
        }),
      )
      .openapi({ description: "The month's credits, oldest first (`POST /admin/v1/organizations/{org_id}/credits`)." }),
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
    credited_characters: z.number().int().openapi({ description: "The month's credits when it was closed, taken off its overage (`overage_characters` is after them)." }),
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

// ---------------------------------------------------------------- on call (docs/decisions.md "Operating the service")

const at = "2026-11-23T14:03:11.512Z";

export const DeepHealthOut = z
  .object({
    d1: z.enum(["ok", "failed"]).openapi({ description: "Whether D1 answered a query." }),
    site_object: z.enum(["ok", "failed"]).openapi({ description: "Whether a site object (a probe, no site's own) answered." }),
    queue: z.enum(["bound", "missing"]).openapi({ description: "Whether the webhook queue's producer binding is there." }),
    mail: z.enum(["binding", "outbox"]).openapi({ description: "`binding`: mail goes out through Email Sending; `outbox`: into the local outbox (DEV_MAILBOX or no binding)." }),
    dashboard_url_set: z.boolean().openapi({ description: "Whether DASHBOARD_URL is set (mail links need it outside local development)." }),
    dev_flags: z
      .array(z.string())
      .openapi({ description: "Development switches that are on (`DEV_MAILBOX`, `WEBHOOK_ALLOW_LOOPBACK`, `JOB_ALARM_DELAY_MS`, `STRIPE_API_BASE`); empty in production." }),
    billing_provider: z.enum(["manual", "stripe"]).openapi({ description: "Who bills: the operator (`manual`) or Stripe." }),
    engines: z
      .array(z.object({ name: z.string().openapi({ description: "The engine." }), configured: z.boolean().openapi({ description: "Whether its credentials are set." }) }))
      .openapi({ description: "Every engine and whether it can be used." }),
    version: z
      .object({
        id: z.string().nullable().openapi({ description: "The deployed version's id (wrangler `[version_metadata]`)." }),
        tag: z.string().nullable().openapi({ description: "Its tag, when one was given at upload." }),
      })
      .openapi({ description: "The version answering." }),
  })
  .openapi("DeepHealthOut");

export const OrganizationsQuery = z.object({
  q: z.string().max(200).optional().openapi({ description: "A part of the name (case-insensitive), or an organization id." }),
  cursor: z.string().max(512).optional().openapi({ description: "`next_cursor` of the previous page." }),
});

export const OrganizationsOut = z
  .object({
    organizations: z
      .array(
        z.object({
          id: z.number().int().openapi({ description: "The organization's id." }),
          name: z.string().openapi({ description: "Its name." }),
          created_at: z.string().openapi({ description: "When it was created." }),
          plan: z.string().nullable().openapi({ description: "Its plan; null without a subscription." }),
          subscription_status: z.string().nullable().openapi({ description: "`active`, `paused` or `canceled`; null without a subscription." }),
          sites: z.number().int().openapi({ description: "How many sites it has." }),
        }),
      )
      .openapi({ description: "A page of organizations, by id." }),
    next_cursor: z.string().nullable().openapi({ description: "Pass as `cursor` for the next page; null on the last page." }),
  })
  .openapi("OrganizationsOut");

export const SitesQuery = z.object({
  organization_id: z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER).optional().openapi({ description: "Only this organization's sites." }),
  cursor: z.string().max(512).optional().openapi({ description: "`next_cursor` of the previous page." }),
});

export const SitesOut = z
  .object({
    sites: z
      .array(
        z.object({
          id: z.number().int().openapi({ description: "The site's id." }),
          name: z.string().openapi({ description: "Its name." }),
          organization_id: z.number().int().openapi({ description: "Its organization." }),
          source_language: z.string().openapi({ description: "Its source language." }),
          suspended: z.boolean().openapi({ description: "Whether the operator suspended it." }),
          suspended_reason: z.string().nullable().openapi({ description: "Why; null when it is not suspended." }),
        }),
      )
      .openapi({ description: "A page of sites, by id." }),
    next_cursor: z.string().nullable().openapi({ description: "Pass as `cursor` for the next page; null on the last page." }),
  })
  .openapi("SitesOut");

export const DiagnosticsOut = z
  .object({
    storage_bytes: z.number().int().openapi({ description: "The site object's storage in use (bytes)." }),
    storage_limit_bytes: z.number().int().openapi({ description: "Past this, pushes answer 409 `site_storage_full` (SITE_STORAGE_LIMIT_BYTES, default 9 GiB)." }),
    alarm_at: z.string().nullable().openapi({ description: "When the object's alarm is set for; null when none is." }),
    alarms: z
      .array(
        z.object({
          need: z.string().openapi({ description: "`jobs`, `retention`, `memory_share`, `memory_index` or `memory_merge`." }),
          at: z.string().openapi({ description: "When it is due." }),
        }),
      )
      .openapi({ description: "The timed needs waiting, earliest first." }),
    jobs: z
      .object({ queued: z.number().int().openapi({ description: "Queued jobs." }), running: z.number().int().openapi({ description: "Running jobs (at most one)." }) })
      .openapi({ description: "Jobs waiting or under way." }),
    ledger_outbox: z.number().int().openapi({ description: "Usage rows committed but not yet in D1 (normally 0; more while D1 fails)." }),
    site_migration: z.string().nullable().openapi({ description: "The object's latest schema migration (its timestamp)." }),
    faults: z.record(z.string(), z.unknown()).nullable().openapi({ description: "The job runner's faults in a row (`infrastructure`, `internal`), null when none." }),
    suspended: z.string().nullable().openapi({ description: "The suspension's reason; null when the site is not suspended." }),
  })
  .openapi("DiagnosticsOut");

export const AdminJobsQuery = z.object({
  status: z
    .enum(["active", "queued", "running", "succeeded", "failed", "cancelled"])
    .optional()
    .openapi({ description: "`active` (queued and running), or one status; the latest jobs without it." }),
});

/** A key's prefix as log lines (`key_prefix`) and key listings show it: `tsk_` and the 6 characters after it. */
export const KEY_PREFIX_PATTERN = /^tsk_[0-9A-Za-z]{6}$/;

export const KeyLookupIn = z
  .object({
    key: z.string().min(1, "key must not be empty").max(200, "key must have at most 200 characters").optional().openapi({ description: "The whole key (`tsk_…`), as found." }),
    prefix: z
      .string()
      .max(200)
      .refine((v) => KEY_PREFIX_PATTERN.test(v), { message: "must be tsk_ and the 6 characters after it (10 in all), as log lines and key listings show a key" })
      .optional()
      .openapi({ description: "Extension: the key's first 10 characters (`tsk_` + 6), as log lines' `key_prefix` show it; instead of `key`.", example: "tsk_Zk3q9v" }),
  })
  .superRefine((v, ctx) => {
    if ((v.key === undefined) === (v.prefix === undefined))
      ctx.addIssue({ code: "custom", path: [], message: "must have either key (the whole key) or prefix (its first 10 characters), not both" });
  })
  .openapi("KeyLookupIn");

export const KeyLookupOut = z
  .object({
    key_id: z.number().int().openapi({ description: "The key's id." }),
    name: z.string().openapi({ description: "The name it was given." }),
    prefix: z.string().openapi({ description: "Its first characters, as listings show it." }),
    site_id: z.number().int().openapi({ description: "The site it opens." }),
    organization_id: z.number().int().openapi({ description: "The site's organization." }),
    created_at: z.string().openapi({ description: "When it was created." }),
    last_used_at: z.string().nullable().openapi({ description: "When it was last used (to the minute); null if never." }),
    revoked_at: z.string().nullable().openapi({ description: "When it was revoked; null while it works." }),
  })
  .openapi("KeyLookupOut");

export const SuspendIn = z
  .object({
    reason: z
      .string()
      .trim()
      .min(1, "reason must not be empty")
      .max(300, "reason must have at most 300 characters")
      .openapi({ description: "Shown to the site's callers: `site suspended: <reason>; contact support`." }),
  })
  .openapi("SuspendIn");

export const SuspensionOut = z
  .object({
    site_id: z.number().int().openapi({ description: "The site." }),
    suspended: z.string().nullable().openapi({ description: "The reason while suspended; null once resumed." }),
    suspended_at: z.string().nullable().openapi({ description: "Since when; null once resumed." }),
  })
  .openapi("SuspensionOut");

export const DiscrepanciesOut = z
  .object({
    discrepancies: z
      .array(
        z.object({
          organization_id: z.number().int().openapi({ description: "The organization." }),
          month: z.string().openapi({ description: "The closed month (`YYYY-MM`)." }),
          closed_characters: z.number().int().openapi({ description: "What the close billed." }),
          ledger_characters: z.number().int().openapi({ description: "What the usage ledger holds for the month now." }),
          late_characters: z.number().int().openapi({ description: "The difference: usage that reached D1 after the close, to invoice by hand." }),
          late_credit_characters: z
            .number()
            .int()
            .openapi({ description: "Credits of the month granted while it was being closed (after the close read them): to refund by hand; 0 almost always." }),
          closed_at: z.string().openapi({ description: "When the month was closed." }),
        }),
      )
      .openapi({ description: "Closes whose month's usage changed after closing; empty when the books agree." }),
  })
  .openapi("DiscrepanciesOut");

export const StorageFullOut = z
  .object({
    detail: z.string().openapi({ description: "What is wrong, in plain language." }),
    code: z.literal("site_storage_full").openapi({ description: "The site's storage is at its limit: delete units, or contact support. Retrying does not help." }),
  })
  .openapi("StorageFullOut");

export const ONCALL_EXAMPLES = {
  health: {
    d1: "ok",
    site_object: "ok",
    queue: "bound",
    mail: "binding",
    dashboard_url_set: true,
    dev_flags: [],
    billing_provider: "stripe",
    engines: [
      { name: "pseudo", configured: true },
      { name: "deepl", configured: true },
    ],
    version: { id: "a5d691f9-7f0e-4924-91d2-0baefc488e82", tag: "v1.4.0" },
  },
  organizations: {
    organizations: [{ id: 3, name: "Acme Publishing", created_at: at, plan: "agency", subscription_status: "active", sites: 4 }],
    next_cursor: null,
  },
  sites: { sites: [{ id: 42, name: "acme.example", organization_id: 3, source_language: "en", suspended: false, suspended_reason: null }], next_cursor: null },
  diagnostics: {
    storage_bytes: 18_452_480,
    storage_limit_bytes: 9 * 1024 ** 3,
    alarm_at: at,
    alarms: [{ need: "jobs", at }],
    jobs: { queued: 1, running: 1 },
    ledger_outbox: 0,
    site_migration: "1763300000000",
    faults: null,
    suspended: null,
  },
  keyLookupIn: { key: "tsk_Zk3q9vJ0bYp2XwR7mN5sT1aL8cD4eF6gH2jK4l" },
  keyLookup: { key_id: 21, name: "production", prefix: "tsk_Zk3q9v", site_id: 42, organization_id: 3, created_at: at, last_used_at: at, revoked_at: null },
  suspendIn: { reason: "unpaid invoices" },
  suspended: { site_id: 42, suspended: "unpaid invoices", suspended_at: at },
  resumed: { site_id: 42, suspended: null, suspended_at: null },
  discrepancies: {
    discrepancies: [
      { organization_id: 3, month: "2026-10", closed_characters: 1_200_000, ledger_characters: 1_204_500, late_characters: 4500, late_credit_characters: 0, closed_at: at },
    ],
  },
  siteSuspended: { detail: "site suspended: unpaid invoices; contact support" },
  overloaded: { detail: "This site is receiving more requests than it can serve: retry in 5 seconds." },
  storageFull: {
    detail:
      "The site's storage is full: it holds 9663676000 bytes and this push would take it past its limit of 9663676416 bytes. Delete units the site no longer needs, or contact support; retrying will not help.",
    code: "site_storage_full",
  },
} as const;

export const RestoreIn = z
  .object({
    at: z.iso
      .datetime({ offset: true, message: "at: must be an ISO 8601 date and time, e.g. 2027-01-05T10:00:00Z" })
      .openapi({ description: "The moment to restore the site's object storage to: within the last 30 days, not in the future.", example: "2027-01-05T10:00:00Z" }),
    dry_run: z.boolean().default(false).openapi({
      description: "Change nothing: answer what the site held at `at`, what would go back, the jobs a restore would cancel, and whether this runtime can restore at all.",
    }),
  })
  .openapi("RestoreIn");

const count = (description: string) => z.number().int().openapi({ description });

export const RestorePreviewOut = z
  .object({
    site_id: z.number().int().openapi({ description: "The site." }),
    at: z.string().openapi({ description: "The moment asked for." }),
    dry_run: z.literal(true).openapi({ description: "Nothing was changed." }),
    restorable: z.boolean().openapi({ description: "Whether this runtime can restore the site to `at` (false locally: `detail` says why)." }),
    bookmark: z.string().nullable().openapi({ description: "The storage bookmark of `at`; null when `restorable` is false." }),
    detail: z.string().nullable().openapi({ description: "Why the site cannot be restored here; null when it can." }),
    now: z
      .object({
        units: count("Units (not deleted)."),
        jobs: count("Jobs."),
        results: count("Results (translations delivered or waiting)."),
        memory_entries: count("The site's memory entries."),
      })
      .openapi({ description: "What the site holds now." }),
    at_time: z
      .object({
        units: count("Units last pushed by `at` and not deleted by then (units pushed since existed then too when they were not new: see `since.units_pushed`)."),
        jobs: count("Jobs made by `at`."),
        results: count("Results made by `at` (those purged since by retention come back too, and are not counted)."),
      })
      .openapi({ description: "What the site held at `at`, as far as its own timestamps tell." }),
    since: z
      .object({
        units_pushed: count("Units pushed after `at`: each goes back to its state then, or goes if it is newer."),
        units_deleted: count("Units deleted after `at`: they come back."),
        jobs: count("Jobs made after `at`: they go (their billed usage stays billed)."),
        results: count("Results made after `at`: they go; the connector keeps what it wrote."),
        memory_entries: count("The site's memory entries written after `at`: they go (the organization's shared memory keeps its copies)."),
      })
      .openapi({ description: "What changed after `at`, and so goes back." }),
    cancelled_on_restore: z.array(z.number().int()).openapi({ description: "Jobs queued or running at `at`: the restored site cancels them (with a reason the customer reads)." }),
  })
  .openapi("RestorePreviewOut");

export const RestoreOut = z
  .object({
    site_id: z.number().int().openapi({ description: "The site restored." }),
    at: z.string().openapi({ description: "The moment restored to." }),
    bookmark: z.string().openapi({ description: "The storage bookmark of that moment (Cloudflare's point-in-time recovery)." }),
    restored_at: z.string().openapi({ description: "When this restore happened: restore to this moment to undo it." }),
    cancelled_jobs: z.array(z.number().int()).openapi({ description: "Jobs that were queued or running at `at`, cancelled on the restored site with a reason (`cancel_reason`)." }),
    released_reservations: z.number().int().openapi({ description: "The site's job reservations released in D1 (no job of the restored site is under way)." }),
  })
  .openapi("RestoreOut");
