/**
 * Bodies of the admin API (src/routes/admin.routes.ts) and of the dashboard's forms, which take the
 * admin API's body for the same operation (src/dashboard/parse.ts). Where bodies live: one schemas file per door
 * (docs/decisions.md "Extension points").
 */
import { z } from "@hono/zod-openapi";
import { ENGINES } from "../engines/registry";
import { ADAPTERS, LIMITS, PLANS, QA_MODES, REVIEW_MODES } from "../limits";
import { Adapter, displayName, EngineName, Formality, LanguageCode, page, QAIssueOut, Site, Timestamp, text } from "./schemas";

// ---------------------------------------------------------------- admin API (docs/configuration.md "The admin API")

export const OrganizationIn = z.object({
  name: displayName(200).openapi({ description: "The organization's name (1 to 200 characters, no control characters)." }),
});
export const OrganizationOut = z
  .object({ id: z.number().int().openapi({ description: "The organization's id." }), name: z.string().openapi({ description: "The organization's name." }) })
  .openapi("Organization");

export const SubscriptionIn = z.object({
  plan: z.enum(PLANS).openapi({ description: "The plan: `pro` (one site, usage per site), `agency`, `growth` or `scale` (usage pooled)." }),
  status: z.enum(["active", "paused", "canceled"]).openapi({ description: "`active`, `paused` or `canceled`; only `active` allows jobs." }),
  site_ids: z.array(z.number().int().min(1)).max(10_000).openapi({ description: "The sites the subscription covers." }),
  included_characters: z
    .number()
    .int()
    .min(0)
    .nullish()
    .openapi({ description: "Characters included per month; null or omitted: the plan's default (none for `scale`: not metered)." }),
});
export const SubscriptionOut = z
  .object({
    organization_id: z.number().int().openapi({ description: "The organization's id." }),
    plan: z.enum(PLANS).openapi({ description: "The plan code." }),
    status: z.enum(["active", "paused", "canceled"]).openapi({ description: "`active`, `paused` or `canceled`." }),
    site_ids: z.array(z.number().int()).openapi({ description: "The sites the subscription covers." }),
    included_characters: z.number().int().nullable().openapi({ description: "Characters included per month; null when not metered." }),
  })
  .openapi("Subscription");
export type OrganizationCreate = z.infer<typeof OrganizationIn>;
export type Organization = z.infer<typeof OrganizationOut>;
export type SubscriptionSet = z.infer<typeof SubscriptionIn>;
export type Subscription = z.infer<typeof SubscriptionOut>;

export const GlossaryIn = z.object({
  terms: z
    .array(
      z.object({
        source: text(500).min(1).openapi({ description: "The source-language term (1 to 500 characters)." }),
        language: LanguageCode.openapi({ description: "The target language the translation applies to." }),
        target: text(500).min(1).openapi({ description: "Its required translation (1 to 500 characters)." }),
        case_sensitive: z.boolean().optional().openapi({ description: "Match the source term's case exactly (default false)." }),
      }),
    )
    .max(10_000)
    .openapi({ description: "The whole glossary (at most 10,000 terms); it replaces the current one." }),
});
export type GlossaryTerm = z.infer<typeof GlossaryIn>["terms"][number];

export const TargetLanguageIn = z.object({
  code: LanguageCode.openapi({ description: "The target language code." }),
  formality: Formality.default("default").openapi({ description: "`default` (default), `formal` or `informal`." }),
  engine: EngineName.openapi({ description: "The engine that translates it." }),
  writable: z.boolean().default(true).openapi({ description: "Whether jobs may translate into it (default true); the handshake must list it too." }),
});

const SiteFields = {
  name: displayName(200).openapi({ description: "The site's name (1 to 200 characters, no control characters)." }),
  source_language: LanguageCode.openapi({ description: "The language the site's content is written in." }),
  target_languages: z
    .array(TargetLanguageIn)
    .max(LIMITS.handshakeLanguages)
    .superRefine((langs, ctx) => {
      const seen = new Set<string>();
      langs.forEach((l, i) => {
        const code = l.code.toLowerCase();
        if (seen.has(code)) ctx.addIssue({ code: "custom", path: [i, "code"], message: `duplicates the language ${l.code}` });
        seen.add(code);
      });
    })
    .openapi({ description: "The languages the site is translated into (at most 200, no duplicates), each with its engine." }),
  enabled_adapters: z.array(Adapter).max(ADAPTERS.length).openapi({ description: "The adapters whose units the site accepts; default all four." }),
  enabled_engines: z.array(EngineName).max(ENGINES.length).openapi({ description: "The engines the site may use; default the engines its target languages name." }),
  qa_mode: z.enum(QA_MODES).openapi({
    description: "`editors` (default): QA errors are delivered flagged to connectors declaring `qa_errors`; `separate`: results with QA errors are held back for the dashboard.",
  }),
  review_mode: z.enum(REVIEW_MODES).openapi({ description: "What connectors write results as: `draft` (default) or `suggestion`." }),
  share_memory: z.boolean().openapi({
    description:
      "Whether the site shares its translation memory with the other sites of its organization: what enters its memory is copied to the organization's memory, and its jobs take exact matches from there (unbilled, `tm_exact`). New sites share (default true); sites created before the setting existed do not until it is turned on.",
  }),
};

export const SiteCreateIn = z.object({
  organization_id: z.number().int().min(1).openapi({ description: "The organization that owns the site." }),
  name: SiteFields.name,
  source_language: SiteFields.source_language,
  target_languages: SiteFields.target_languages,
  enabled_adapters: SiteFields.enabled_adapters.optional(),
  enabled_engines: SiteFields.enabled_engines.optional(),
  qa_mode: SiteFields.qa_mode.optional(),
  review_mode: SiteFields.review_mode.optional(),
  share_memory: SiteFields.share_memory.optional(),
});
export type SiteCreate = z.infer<typeof SiteCreateIn>;

export const SitePatchIn = z.object({
  name: SiteFields.name.optional(),
  source_language: SiteFields.source_language.optional(),
  target_languages: SiteFields.target_languages.optional(),
  enabled_adapters: SiteFields.enabled_adapters.optional(),
  enabled_engines: SiteFields.enabled_engines.optional(),
  qa_mode: SiteFields.qa_mode.optional(),
  review_mode: SiteFields.review_mode.optional(),
  share_memory: SiteFields.share_memory.optional(),
});
export type SitePatch = z.infer<typeof SitePatchIn>;

export const AdminSiteOut = Site.extend({
  organization_id: z.number().int().openapi({ description: "The organization that owns the site." }),
  qa_mode: z.enum(QA_MODES).openapi({
    description: "`editors`: results with QA errors are delivered flagged to connectors declaring `qa_errors`; `separate`: they are held back for review in the dashboard.",
  }),
  review_mode: z.enum(REVIEW_MODES).openapi({ description: "What connectors write results as: `draft` (drafts of the translated object) or `suggestion` (suggestions on it)." }),
  share_memory: SiteFields.share_memory,
}).openapi("AdminSite");

export const ConnectorOut = z
  .object({
    at: Timestamp.openapi({ description: "When the latest handshake arrived." }),
    connector_version: z.string().openapi({ description: "The connector's `connector_version`." }),
    languages: z.array(z.string()).nullable().openapi({ description: "The languages it declared; null when it omitted them (then nothing is writable)." }),
    adapters: z.array(z.string()).openapi({ description: "The adapters it declared." }),
    capabilities: z.array(z.string()).openapi({ description: "The capabilities the service understood." }),
    warnings: z.array(z.string()).openapi({ description: "The warnings the handshake was answered with." }),
  })
  .openapi("Connector", { description: "The site's latest handshake." });

export const AdminSiteDetailOut = AdminSiteOut.extend({
  connector: ConnectorOut.nullable().openapi({ description: "The latest handshake; null before the first one." }),
}).openapi("AdminSiteDetail");

export const KeyCreateIn = z.object({ name: text(200).min(1).openapi({ description: "A name for the key (1 to 200 characters), e.g. the environment that uses it." }) });
export const KeyCreatedOut = z
  .object({
    id: z.number().int().openapi({ description: "The key's id." }),
    name: z.string().openapi({ description: "The key's name." }),
    key: z.string().openapi({ description: "The API key itself: shown only in this answer; send it as `Authorization: Bearer <key>`." }),
    created_at: Timestamp.openapi({ description: "When it was created." }),
  })
  .openapi("KeyCreated");
export const KeyOut = z
  .object({
    id: z.number().int().openapi({ description: "The key's id." }),
    name: z.string().openapi({ description: "The key's name." }),
    prefix: z.string().openapi({ description: "The key's first characters, to recognise it; the key itself is never shown again." }),
    created_at: Timestamp.openapi({ description: "When it was created." }),
    last_used_at: Timestamp.nullable().openapi({ description: "When it last authenticated a request; null if never." }),
    revoked_at: Timestamp.nullable().openapi({ description: "When it was revoked; null while it works." }),
  })
  .openapi("ApiKey");
export const KeysOut = z.object({ keys: z.array(KeyOut).openapi({ description: "The site's keys, revoked ones included." }) });
export type KeyCreate = z.infer<typeof KeyCreateIn>;
export type KeyCreated = z.infer<typeof KeyCreatedOut>;
export type ApiKey = z.infer<typeof KeyOut>;

export const AttentionDecisionIn = z.discriminatedUnion("action", [
  z.object({
    action: z.literal("fix").openapi({ description: "`fix`: save `text` as the translation." }),
    text: text(LIMITS.segmentText).openapi({ description: "The corrected translation (at most 100,000 characters)." }),
    confirm: z
      .boolean()
      .optional()
      .openapi({ description: "Save the fix even though it has QA errors. Without it, a fix with QA errors is not saved: the answer is 409 with its findings." }),
  }),
  z.object({ action: z.literal("discard").openapi({ description: "`discard`: drop the translation (state missing; the next delta job translates it again)." }) }),
]);
export type AttentionDecision = z.infer<typeof AttentionDecisionIn>;
/** 409 of a fix with QA errors sent without `confirm: true`: nothing was saved. */
export const AttentionConfirmOut = z
  .object({
    detail: z.string().openapi({ description: "Why the fix was not saved." }),
    qa: z.array(QAIssueOut).openapi({ description: "The fix's findings (errors first), as the segment would show them once saved." }),
    source_text: z.string().openapi({ description: "The source the fix was checked against." }),
  })
  .openapi("AttentionConfirmOut");

// ------------------------------------------------------------------ people (dashboard)

export const InvitationIn = z.object({
  email: z.string().trim().max(254).email({ message: "must be an email address" }).openapi({ description: "Who is invited (at most 254 characters)." }),
  role: z.enum(["owner", "admin", "editor"]).openapi({ description: "`owner`, `admin` or `editor`." }),
});
export const InvitationOut = z
  .object({
    id: z.number().int().openapi({ description: "The invitation's id." }),
    email: z.string().openapi({ description: "Who is invited." }),
    role: z.enum(["owner", "admin", "editor"]).openapi({ description: "The role they get on accepting." }),
    url: z.string().openapi({ description: "The one-time link that opens the dashboard's accept-invitation page; shown only in this answer." }),
    expires_at: Timestamp.openapi({ description: "When the link stops working." }),
  })
  .openapi("Invitation");
export type InvitationCreate = z.infer<typeof InvitationIn>;
export type Invitation = z.infer<typeof InvitationOut>;

// ------------------------------------------------------------------ translation memory (the memory page)

/** A memory entry's key: its source text's fingerprint, source and target language. */
export const MemoryKeyIn = z.object({
  source_fingerprint: z.string().regex(/^[0-9a-f]{64}$/, { message: "must be a fingerprint (64 lowercase hex digits)" }),
  source_language: LanguageCode,
  target_language: LanguageCode,
});
/** An editor's correction of a memory entry's text. */
export const MemoryEditIn = MemoryKeyIn.extend({
  text: text(LIMITS.segmentText).refine((t) => t.trim() !== "", { message: "must not be empty" }),
});
export type MemoryKeyInput = z.infer<typeof MemoryKeyIn>;
export type MemoryEdit = z.infer<typeof MemoryEditIn>;

// ---------------------------------------------------------------- audit log, usage and month close

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

// ---------------------------------------------------------------- point-in-time restore

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
