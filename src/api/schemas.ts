/**
 * The interface's bodies (spec/interface.md), one zod schema each. These are the single
 * source of truth: routes validate with them, handlers are typed by them and the OpenAPI
 * document at GET /v1/openapi.json is generated from them.
 */
import { z } from "@hono/zod-openapi";
import { characters } from "../characters";
import { ADAPTERS, CAPABILITIES, ENGINES, FORMALITIES, FORMATS, LIMITS, PLANS, QA_MODES, REVIEW_MODES } from "../limits";

// ---------------------------------------------------------------- common formats

/** Lone surrogates cannot be stored as UTF-8: a string that has one is refused, never silently altered. */
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;
const wellFormed = (s: string) => !LONE_SURROGATE.test(s);

/**
 * A request string: well-formed Unicode without U+0000, and — given `max` — at most `max`
 * characters counted as Unicode code points (DESIGN.md: the same count for every limit,
 * estimate and bill), so 100,000 emoji are within a 100,000-character limit.
 */
export const text = (max?: number) => {
  // `isPlainText` below must accept exactly what this accepts without an issue.
  const schema = z.string().superRefine((value, ctx) => {
    if (value.includes("\u0000")) ctx.addIssue({ code: "custom", message: "must not contain U+0000 (NUL)" });
    if (!wellFormed(value)) ctx.addIssue({ code: "custom", message: "must be well-formed Unicode (it contains a lone surrogate)" });
    // Code points never outnumber UTF-16 units: only a long string needs counting.
    if (max !== undefined && value.length > max && characters(value) > max)
      ctx.addIssue({ code: "custom", message: `must have at most ${max} character${max === 1 ? "" : "s"} (Unicode code points)` });
  });
  return max === undefined ? schema : schema.openapi({ maxLength: max });
};

/** True when `text(max)` accepts the string `value` (the same three rules, without their messages). */
export const isPlainText = (value: string, max?: number) =>
  !value.includes("\u0000") && wellFormed(value) && (max === undefined || value.length <= max || characters(value) <= max);

/**
 * Why free-form JSON (unit metadata) breaks its bounds, or undefined: nested deeper than
 * `LIMITS.jsonDepth` levels (its own brackets counted, as src/api/json-text.ts counts them on
 * the text) or longer than `maxChars` as JSON (`JSON.stringify(value).length`). One walk with
 * an explicit stack that stops as soon as a bound is passed: the work is bounded by `maxChars`
 * whatever the value's shape, and nothing is stringified but single strings within the budget.
 */
/** `JSON.stringify(s).length`, or a lower bound of it past `budget` (escapes only lengthen a string). */
const jsonStringChars = (s: string, budget: number) => (s.length + 2 > budget ? s.length + 2 : JSON.stringify(s).length);

export function jsonBoundsProblem(value: unknown, maxChars: number): string | undefined {
  const tooLong = `must be at most ${maxChars} characters as JSON`;
  let chars = 0;
  const stack: { v: unknown; depth: number }[] = [{ v: value, depth: 0 }];
  while (stack.length) {
    const { v, depth } = stack.pop()!;
    if (typeof v === "string") {
      chars += jsonStringChars(v, maxChars - chars);
    } else if (v === null || typeof v !== "object") {
      chars += typeof v === "number" || typeof v === "boolean" ? String(v).length : 4;
    } else {
      if (depth + 1 > LIMITS.jsonDepth) return `must be nested at most ${LIMITS.jsonDepth} levels deep`;
      if (Array.isArray(v)) {
        chars += 2 + Math.max(0, v.length - 1);
        for (let i = v.length - 1; i >= 0 && chars <= maxChars; i--) stack.push({ v: v[i] ?? null, depth: depth + 1 });
      } else {
        const keys = Object.keys(v);
        chars += 2 + Math.max(0, keys.length - 1) + keys.length;
        for (let i = keys.length - 1; i >= 0 && chars <= maxChars; i--) {
          const k = keys[i];
          chars += jsonStringChars(k, maxChars - chars);
          stack.push({ v: (v as Record<string, unknown>)[k], depth: depth + 1 });
        }
      }
    }
    if (chars > maxChars) return tooLong;
  }
  return undefined;
}

export const LanguageCode = z
  .string()
  .min(LIMITS.languageCode.min)
  .max(LIMITS.languageCode.max)
  .regex(/^[A-Za-z0-9_-]+$/)
  .openapi({ example: "de" });

export const UnitKey = z
  .string()
  .min(1)
  .max(LIMITS.unitKey)
  .regex(/^[A-Za-z0-9_.:-]+$/)
  // "." and ".." match the pattern but cannot appear in a URL path (/v1/units/{key}).
  .refine((k) => k !== "." && k !== "..", { message: 'must not be "." or ".."' })
  .openapi({ example: "post:42" });

export const ResultId = z.string().min(1).max(64).openapi({ example: "r_1042", description: "Opaque; clients must not parse it." });

const Timestamp = z.string().openapi({ format: "date-time", example: "2026-11-22T10:00:00.000Z" });

export const ErrorOut = z.object({ detail: z.string() }).openapi("ErrorOut");

export const HealthOut = z.object({ status: z.string(), api_version: z.string() }).openapi("HealthOut");

// ---------------------------------------------------------------- site and handshake

export const Formality = z.enum(FORMALITIES);
export const EngineName = z.enum(ENGINES);
export const Adapter = z.enum(ADAPTERS);

export const TargetLanguage = z
  .object({
    code: LanguageCode,
    formality: Formality,
    engine: EngineName,
    writable: z.boolean(),
  })
  .openapi("TargetLanguage");

export const Site = z
  .object({
    id: z.number().int(),
    name: z.string(),
    organization: z.string(),
    source_language: z.string(),
    target_languages: z.array(TargetLanguage),
    enabled_adapters: z.array(z.string()),
    enabled_engines: z.array(z.string()),
  })
  .openapi("Site");

export const HandshakeIn = z
  .object({
    connector_version: text(LIMITS.connectorVersion),
    adapters: z.array(text(100)).max(LIMITS.handshakeAdapters).optional(),
    source_language: LanguageCode,
    languages: z.array(LanguageCode).max(LIMITS.handshakeLanguages).optional(),
    capabilities: z.array(text(100)).max(LIMITS.handshakeCapabilities).optional(),
  })
  .openapi("HandshakeIn");

export const HandshakeOut = Site.extend({
  review_mode: z.enum(REVIEW_MODES),
  qa_mode: z.enum(QA_MODES),
  capabilities: z.array(z.enum(CAPABILITIES)),
  warnings: z.array(z.string()),
}).openapi("HandshakeOut");

// ---------------------------------------------------------------- units

export const SegmentIn = z
  .object({
    key: text(LIMITS.segmentKey).min(1),
    text: text(LIMITS.segmentText),
    format: z.enum(FORMATS).default("plain"),
    field: text(LIMITS.field).nullish(),
    kind: text(LIMITS.kind).nullish(),
    max_length: z.number().int().min(1).nullish(),
    position: z.number().int().min(0).nullish(),
    parent_key: text(LIMITS.parentKey).nullish(),
    fingerprint: text(128).nullish(),
    translations: z.record(LanguageCode, text(LIMITS.segmentText)).nullish(),
  })
  .openapi("SegmentIn");

export const UnitSnapshotIn = z
  .object({
    external_key: UnitKey,
    adapter: Adapter,
    label: text(LIMITS.unitLabel).nullish(),
    path: text(LIMITS.unitPath).nullish(),
    source_language: LanguageCode.nullish(),
    writable_languages: z.array(LanguageCode).max(LIMITS.handshakeLanguages).nullish(),
    metadata: z
      .record(text(), z.unknown())
      .superRefine((m, ctx) => {
        const problem = jsonBoundsProblem(m, LIMITS.metadataChars);
        if (problem) ctx.addIssue({ code: "custom", message: problem });
      })
      .openapi({
        description: `Free-form. At most ${LIMITS.metadataChars} characters as JSON, nested at most ${LIMITS.jsonDepth} levels (its own braces counted), no array or object of more than ${LIMITS.jsonWidth} items or keys.`,
      })
      .optional(),
    segments: z
      .array(SegmentIn)
      .max(LIMITS.segmentsPerUnit)
      .superRefine((segments, ctx) => {
        const seen = new Set<string>();
        segments.forEach((s, i) => {
          if (seen.has(s.key)) ctx.addIssue({ code: "custom", path: [i, "key"], message: `duplicates the key "${s.key.slice(0, 80)}" within the unit` });
          seen.add(s.key);
        });
      }),
  })
  .openapi("UnitSnapshotIn");

export type UnitSnapshot = z.infer<typeof UnitSnapshotIn>;
export type SegmentInput = z.infer<typeof SegmentIn>;

export const SyncOut = z
  .object({
    external_key: z.string(),
    unit_created: z.boolean(),
    added: z.number().int(),
    changed: z.number().int(),
    removed: z.number().int(),
    unchanged: z.number().int(),
    stale_translations: z.number().int(),
    imported_translations: z.number().int(),
    fingerprint_mismatches: z.array(z.string()),
  })
  .openapi("SyncOut");
export type SyncResult = z.infer<typeof SyncOut>;

export const BatchIn = z.object({ units: z.array(UnitSnapshotIn).min(1).max(LIMITS.unitsPerBatch) }).openapi("BatchIn");

/** What the Worker validates for a batch as a whole: each unit is then checked on its own. */
export const BatchEnvelope = z.object({ units: z.array(z.unknown()).min(1).max(LIMITS.unitsPerBatch) });

export const BatchItemOut = z
  .object({
    external_key: z.string(),
    ok: z.boolean(),
    result: SyncOut.nullable(),
    error: z.string().nullable(),
  })
  .openapi("BatchItemOut");
export type BatchItem = z.infer<typeof BatchItemOut>;

export const BatchOut = z.object({ results: z.array(BatchItemOut) }).openapi("BatchOut");

// ---------------------------------------------------------------- status

export const LanguageCountsOut = z
  .object({
    code: z.string(),
    ok: z.number().int(),
    stale: z.number().int(),
    review: z.number().int(),
    missing: z.number().int(),
    attention: z.number().int(),
    attention_url: z.string().default(""),
  })
  .openapi("LanguageCountsOut");
export type LanguageCounts = z.infer<typeof LanguageCountsOut>;

export const SiteStatusOut = z
  .object({
    units_total: z.number().int(),
    segments_total: z.number().int(),
    glossary_terms: z.number().int(),
    languages: z.array(LanguageCountsOut),
  })
  .openapi("SiteStatusOut");

/** A language's work in one unit: the counts without `ok`. */
export const WorkCountsOut = LanguageCountsOut.omit({ ok: true }).openapi("WorkCountsOut");

export const UnitWorkOut = z
  .object({
    external_key: z.string(),
    label: z.string(),
    path: z.string(),
    adapter: z.string(),
    last_synced_at: Timestamp.nullable(),
    dashboard_url: z.string(),
    languages: z.array(WorkCountsOut),
  })
  .openapi("UnitWorkOut");

export const UnitsWorkOut = z.object({ units: z.array(UnitWorkOut), next_cursor: z.string().nullable() }).openapi("UnitsWorkOut");
export type UnitsWork = z.infer<typeof UnitsWorkOut>;

export const SegmentState = z.enum(["ok", "stale", "review", "missing", "attention"]);

export const QAIssueOut = z.object({ code: z.string(), severity: z.enum(["error", "warning"]), message: z.string() }).openapi("QAIssueOut");
export type QAIssue = z.infer<typeof QAIssueOut>;

export const SegmentStatusOut = z
  .object({
    key: z.string(),
    field: z.string(),
    kind: z.string(),
    parent_key: z.string(),
    position: z.number().int(),
    states: z.record(z.string(), SegmentState),
    qa: z.record(z.string(), z.array(QAIssueOut)).optional(),
    held_back: z.array(z.string()).optional(),
  })
  .openapi("SegmentStatusOut");

export const UnitStatusOut = z
  .object({
    external_key: z.string(),
    label: z.string(),
    path: z.string(),
    adapter: z.string(),
    last_synced_at: Timestamp.nullable(),
    segments_total: z.number().int(),
    segments_needing_work: z.number().int(),
    languages: z.array(LanguageCountsOut),
    segments: z.array(SegmentStatusOut),
    dashboard_url: z.string().default(""),
  })
  .openapi("UnitStatusOut");
export type UnitStatus = z.infer<typeof UnitStatusOut>;

// ---------------------------------------------------------------- usage and estimates

export const UsageOut = z
  .object({
    plan: z.string().nullable(),
    entitled: z.boolean(),
    reason: z.string(),
    month_start: Timestamp,
    month_end: Timestamp,
    included_characters: z.number().int().nullable(),
    used_characters: z.number().int(),
    per_site: z.boolean(),
  })
  .openapi("UsageOut");

export const EstimateOut = z
  .object({
    characters: z.number().int(),
    included_characters: z.number().int().nullable(),
    used_characters: z.number().int(),
    reserved_characters: z.number().int(),
    remaining_characters: z.number().int().nullable(),
    overage_characters: z.number().int(),
    overage_cents: z.number().int(),
    currency: z.string(),
    requires_confirmation: z.boolean(),
  })
  .openapi("EstimateOut");
export type Estimate = z.infer<typeof EstimateOut>;

export const BillingErrorOut = z
  .object({
    detail: z.string(),
    code: z.enum(["subscription_required", "subscription_inactive", "site_not_covered", "confirmation_required"]),
    estimate: EstimateOut.nullable(),
  })
  .openapi("BillingErrorOut");

// ---------------------------------------------------------------- jobs

export const JobIn = z
  .object({
    type: z.enum(["delta", "translate"]).default("delta"),
    units: z.array(UnitKey).max(LIMITS.unitsPerJob).nullish(),
    prefix: text(LIMITS.jobPrefix)
      .regex(/^[a-z0-9_]+:\S*$/)
      .nullish(),
    languages: z.array(LanguageCode).max(LIMITS.handshakeLanguages).nullish(),
    force: z.boolean().default(false),
    confirm: z.boolean().default(false),
    estimate_only: z.boolean().default(false),
  })
  .superRefine((job, ctx) => {
    if (job.type === "translate" && !job.units?.length) ctx.addIssue({ code: "custom", path: ["units"], message: "is required (at least one unit key) for a translate job" });
    if (job.type === "translate" && job.prefix) ctx.addIssue({ code: "custom", path: ["prefix"], message: "is only allowed for delta jobs" });
    // A delta job is narrowed with prefix; silently ignoring units would run (and bill) the whole site.
    if (job.type === "delta" && job.units != null)
      ctx.addIssue({ code: "custom", path: ["units"], message: 'is only allowed for translate jobs (narrow a delta job with "prefix")' });
  })
  .openapi("JobIn");
export type JobRequest = z.infer<typeof JobIn>;

export const JobError = z.object({ language: z.string(), message: z.string(), segments: z.number().int() }).openapi("JobError");

export const JobOut = z
  .object({
    id: z.number().int(),
    type: z.string(),
    status: z.enum(["queued", "running", "succeeded", "failed", "cancelled"]),
    languages: z.array(z.string()),
    units: z.array(z.string()).nullable().optional(),
    prefix: z.string().default(""),
    force: z.boolean(),
    estimated_segments: z.number().int(),
    estimated_characters: z.number().int(),
    estimated_tm_segments: z.number().int(),
    done_segments: z.number().int(),
    failed_segments: z.number().int(),
    characters: z.number().int(),
    qa_failed_segments: z.number().int(),
    tm_segments: z.number().int(),
    tm_characters: z.number().int(),
    reused_segments: z.number().int(),
    reused_characters: z.number().int(),
    errors: z.array(JobError),
    created_at: Timestamp,
    started_at: Timestamp.nullable(),
    finished_at: Timestamp.nullable(),
  })
  .openapi("JobOut");
export type Job = z.infer<typeof JobOut>;

export const JobEstimateOut = z
  .object({
    languages: z.array(z.string()),
    estimated_segments: z.number().int(),
    estimated_characters: z.number().int(),
    estimated_tm_segments: z.number().int(),
    cost: EstimateOut,
  })
  .openapi("JobEstimateOut");

// ---------------------------------------------------------------- results and reviews

export const ResultOut = z
  .object({
    id: ResultId,
    unit: z.string(),
    key: z.string(),
    language: z.string(),
    text: z.string(),
    format: z.string(),
    source_fingerprint: z.string(),
    origin: z.string(),
    engine: z.string(),
    job_id: z.number().int().nullable(),
    qa: z.array(QAIssueOut),
  })
  .openapi("ResultOut");
export type Result = z.infer<typeof ResultOut>;

export const ResultsOut = z.object({ results: z.array(ResultOut), next_cursor: z.string().nullable() }).openapi("ResultsOut");

/**
 * A result id as a request names it: any string. Unknown or malformed ids never refuse the
 * request (DESIGN.md): ack does not count them, reviews list them in `ignored`.
 */
const ResultIdIn = z.string().openapi({ example: "r_1042", description: "A result id; unknown or malformed ids are ignored, never refused." });

export const AckIn = z.object({ ids: z.array(ResultIdIn).max(LIMITS.idsPerAck) }).openapi("AckIn");
export const AckOut = z.object({ acknowledged: z.number().int() }).openapi("AckOut");

export const ReviewIn = z.object({
  id: ResultIdIn,
  outcome: z.enum(["approved", "rejected"]),
  text: text(LIMITS.segmentText).optional(),
  reviewer: text(200).optional(),
});
export type Review = z.infer<typeof ReviewIn>;

export const ReviewsIn = z.object({ reviews: z.array(ReviewIn).max(LIMITS.reviewsPerRequest) }).openapi("ReviewsIn");
export const ReviewsOut = z.object({ updated: z.number().int(), ignored: z.array(z.string()) }).openapi("ReviewsOut");

export const AttentionItemOut = z
  .object({
    id: ResultId,
    unit: z.string(),
    key: z.string(),
    language: z.string(),
    text: z.string(),
    source_text: z.string(),
    qa: z.array(QAIssueOut),
    job_id: z.number().int().nullable(),
    created_at: Timestamp,
    dashboard_url: z.string(),
  })
  .openapi("AttentionItemOut");

export const AttentionOut = z.object({ items: z.array(AttentionItemOut), next_cursor: z.string().nullable() }).openapi("AttentionOut");
export type Attention = z.infer<typeof AttentionOut>;

// ---------------------------------------------------------------- query parameters

export const PageQuery = {
  cursor: z.string().max(512).optional(),
  limit: z.coerce.number().int().min(1).max(LIMITS.pageMax).default(LIMITS.pageDefault),
};

export const UnitsQuery = z.object({
  prefix: z.string().max(LIMITS.unitKey).default(""),
  language: LanguageCode.optional(),
  ...PageQuery,
});

export const StatusQuery = z.object({ prefix: z.string().max(LIMITS.unitKey).default("") });

export const ResultsQuery = z.object({ ...PageQuery, unit: UnitKey.optional() });

export const AttentionQuery = z.object({ ...PageQuery });

export const JobsQuery = z.object({
  active: z
    .enum(["true", "false", "1", "0"])
    .default("false")
    .transform((v) => v === "true" || v === "1"),
});

export const UnitKeyParam = z.object({ external_key: UnitKey.openapi({ param: { name: "external_key", in: "path" } }) });
/** DELETE /v1/units/{key} answers 204 for every key (DESIGN.md), one that could never exist included. */
export const AnyUnitKeyParam = z.object({ external_key: z.string().openapi({ param: { name: "external_key", in: "path" }, example: "post:42" }) });
export const JobIdParam = z.object({
  job_id: z.coerce
    .number()
    .int()
    .min(1)
    .max(Number.MAX_SAFE_INTEGER)
    .openapi({ param: { name: "job_id", in: "path" }, type: "integer" }),
});

// ---------------------------------------------------------------- admin API (DESIGN.md)

export const OrganizationIn = z.object({ name: text(200).min(1) });
export const OrganizationOut = z.object({ id: z.number().int(), name: z.string() }).openapi("Organization");

export const SubscriptionIn = z.object({
  plan: z.enum(PLANS),
  status: z.enum(["active", "paused", "canceled"]),
  site_ids: z.array(z.number().int().min(1)).max(10_000),
  included_characters: z.number().int().min(0).nullish(),
});
export const SubscriptionOut = z
  .object({
    organization_id: z.number().int(),
    plan: z.enum(PLANS),
    status: z.enum(["active", "paused", "canceled"]),
    site_ids: z.array(z.number().int()),
    included_characters: z.number().int().nullable(),
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
        source: text(500).min(1),
        language: LanguageCode,
        target: text(500).min(1),
        case_sensitive: z.boolean().optional(),
      }),
    )
    .max(10_000),
});
export type GlossaryTerm = z.infer<typeof GlossaryIn>["terms"][number];

export const TargetLanguageIn = z.object({
  code: LanguageCode,
  formality: Formality.default("default"),
  engine: EngineName,
  writable: z.boolean().default(true),
});

const SiteFields = {
  name: text(200).min(1),
  source_language: LanguageCode,
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
    }),
  enabled_adapters: z.array(Adapter).max(ADAPTERS.length),
  enabled_engines: z.array(EngineName).max(ENGINES.length),
  qa_mode: z.enum(QA_MODES),
  review_mode: z.enum(REVIEW_MODES),
};

export const SiteCreateIn = z.object({
  organization_id: z.number().int().min(1),
  name: SiteFields.name,
  source_language: SiteFields.source_language,
  target_languages: SiteFields.target_languages,
  enabled_adapters: SiteFields.enabled_adapters.optional(),
  enabled_engines: SiteFields.enabled_engines.optional(),
  qa_mode: SiteFields.qa_mode.optional(),
  review_mode: SiteFields.review_mode.optional(),
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
});
export type SitePatch = z.infer<typeof SitePatchIn>;

export const AdminSiteOut = Site.extend({
  organization_id: z.number().int(),
  qa_mode: z.enum(QA_MODES),
  review_mode: z.enum(REVIEW_MODES),
}).openapi("AdminSite");

export const ConnectorOut = z
  .object({
    at: Timestamp,
    connector_version: z.string(),
    languages: z.array(z.string()).nullable(),
    adapters: z.array(z.string()),
    capabilities: z.array(z.string()),
    warnings: z.array(z.string()),
  })
  .openapi("Connector", { description: "The site's latest handshake." });

export const AdminSiteDetailOut = AdminSiteOut.extend({
  connector: ConnectorOut.nullable().openapi({ description: "The latest handshake; null before the first one." }),
}).openapi("AdminSiteDetail");

export const KeyCreateIn = z.object({ name: text(200).min(1) });
export const KeyCreatedOut = z.object({ id: z.number().int(), name: z.string(), key: z.string(), created_at: Timestamp }).openapi("KeyCreated");
export const KeyOut = z
  .object({
    id: z.number().int(),
    name: z.string(),
    prefix: z.string(),
    created_at: Timestamp,
    last_used_at: Timestamp.nullable(),
    revoked_at: Timestamp.nullable(),
  })
  .openapi("ApiKey");
export const KeysOut = z.object({ keys: z.array(KeyOut) });
export type KeyCreate = z.infer<typeof KeyCreateIn>;
export type KeyCreated = z.infer<typeof KeyCreatedOut>;
export type ApiKey = z.infer<typeof KeyOut>;

export const AttentionDecisionIn = z.discriminatedUnion("action", [
  z.object({
    action: z.literal("fix"),
    text: text(LIMITS.segmentText),
    confirm: z
      .boolean()
      .optional()
      .openapi({ description: "Save the fix even though it has QA errors. Without it, a fix with QA errors is not saved: the answer is 409 with its findings." }),
  }),
  z.object({ action: z.literal("discard") }),
]);
export type AttentionDecision = z.infer<typeof AttentionDecisionIn>;
/** 409 of a fix with QA errors sent without `confirm: true`: nothing was saved. */
export const AttentionConfirmOut = z
  .object({
    detail: z.string(),
    qa: z.array(QAIssueOut).openapi({ description: "The fix's findings (errors first), as the segment would show them once saved." }),
    source_text: z.string().openapi({ description: "The source the fix was checked against." }),
  })
  .openapi("AttentionConfirmOut");

export const SiteIdParam = z.object({ site_id: z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER) });
export const OrgIdParam = z.object({ org_id: z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER) });

// ------------------------------------------------------------------ people (dashboard)

export const InvitationIn = z.object({
  email: z.string().trim().max(254).email({ message: "must be an email address" }),
  role: z.enum(["owner", "admin", "editor"]),
});
export const InvitationOut = z
  .object({
    id: z.number().int(),
    email: z.string(),
    role: z.enum(["owner", "admin", "editor"]),
    url: z.string().openapi({ description: "The one-time link that opens the dashboard's accept-invitation page; shown only in this answer." }),
    expires_at: Timestamp,
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
