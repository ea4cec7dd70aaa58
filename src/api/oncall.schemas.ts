/**
 * Bodies of the on-call engineer's endpoints (src/routes/oncall.routes.ts, docs/decisions.md "Operating the
 * service"): deep health, organizations and sites, a site's diagnostics and jobs, key look-up, suspension,
 * billing discrepancies.
 */
import { z } from "@hono/zod-openapi";
import { page } from "./schemas";

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

export const OrganizationsOut = page(
  "OrganizationsOut",
  "organizations",
  z.object({
    id: z.number().int().openapi({ description: "The organization's id." }),
    name: z.string().openapi({ description: "Its name." }),
    created_at: z.string().openapi({ description: "When it was created." }),
    plan: z.string().nullable().openapi({ description: "Its plan; null without a subscription." }),
    subscription_status: z.string().nullable().openapi({ description: "`active`, `paused` or `canceled`; null without a subscription." }),
    sites: z.number().int().openapi({ description: "How many sites it has." }),
  }),
  "A page of organizations, by id.",
);

export const SitesQuery = z.object({
  organization_id: z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER).optional().openapi({ description: "Only this organization's sites." }),
  cursor: z.string().max(512).optional().openapi({ description: "`next_cursor` of the previous page." }),
});

export const SitesOut = page(
  "SitesOut",
  "sites",
  z.object({
    id: z.number().int().openapi({ description: "The site's id." }),
    name: z.string().openapi({ description: "Its name." }),
    organization_id: z.number().int().openapi({ description: "Its organization." }),
    source_language: z.string().openapi({ description: "Its source language." }),
    suspended: z.boolean().openapi({ description: "Whether the operator suspended it." }),
    suspended_reason: z.string().nullable().openapi({ description: "Why; null when it is not suspended." }),
  }),
  "A page of sites, by id.",
);

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

export const CancelIn = z
  .object({
    reason: z.string().trim().min(1).max(300).optional().openapi({
      description: "Why the job is cancelled, in words for the customer: kept on the job (`cancel_reason`) and shown on the site's page of the dashboard.",
      example: "Cancelled by support: the job was retranslating the whole site (about 1.8 million characters) after a settings change; the characters done are credited.",
    }),
  })
  .openapi("CancelIn");
