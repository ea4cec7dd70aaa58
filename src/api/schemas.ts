/**
 * The interface's bodies (docs/interface.md), one zod schema each: the connector's API (routes/sync,
 * jobs and results) and what several doors share (formats, `page()`, `ErrorOut`, path parameters).
 * The other doors' bodies live beside them, one file per door: admin.schemas.ts, oncall.schemas.ts,
 * support.schemas.ts, webhook.schemas.ts (docs/decisions.md "Extension points"). These are the single
 * source of truth: routes validate with them, handlers are typed by them and the OpenAPI
 * document at GET /v1/openapi.json is generated from them.
 */
import { z } from "@hono/zod-openapi";
import { characters } from "../characters";
import { ENGINES } from "../engines/registry";
import { ADAPTERS, CAPABILITIES, FORMALITIES, FORMATS, LIMITS, QA_MODES, REVIEW_MODES } from "../limits";

// ---------------------------------------------------------------- common formats

/** Lone surrogates cannot be stored as UTF-8: a string that has one is refused, never silently altered. */
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;
const wellFormed = (s: string) => !LONE_SURROGATE.test(s);

/** `text()`'s first two rules as a JSON Schema pattern (for the document). */
export const WELL_FORMED_PATTERN = "^(?:[^\\u0000\\uD800-\\uDFFF]|[\\uD800-\\uDBFF][\\uDC00-\\uDFFF])*$";

/**
 * A request string: well-formed Unicode without U+0000, and — given `max` — at most `max`
 * characters counted as Unicode code points (docs/decisions.md "Pushes": the same count for every limit,
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
  // The same two rules as a JSON Schema pattern: code points other than U+0000 and surrogates, or
  // surrogate pairs (read code unit by code unit or code point by code point, it accepts the same strings).
  return schema.openapi({ pattern: WELL_FORMED_PATTERN, ...(max === undefined ? {} : { maxLength: max }) });
};

/**
 * Control characters: C0 (tabs and line breaks included), DEL, C1, and the Unicode line and
 * paragraph separators. A name travels into mail subjects and headers, logs and terminals,
 * where any of them can start a new header or a new line.
 */
export const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/u;

/** An organization's or a site's name: 1 to `max` characters of plain text, no control characters (docs/decisions.md "Requests: keys, limits, hostile input, errors"). */
export const displayName = (max: number) =>
  text(max)
    .min(1, { message: "must not be empty" })
    // NUL has text()'s own message.
    .refine((value) => !CONTROL_CHARACTERS.test(value.replaceAll("\u0000", "")), {
      message: "must not contain control characters (line breaks, tabs, C0 or C1 controls, U+2028, U+2029)",
    });

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
  // The document's pattern says both rules (a lookahead refuses "." and "..").
  .openapi({ example: "post:42", pattern: "^(?!\\.\\.?$)[A-Za-z0-9_.:-]+$" });

export const ResultId = z.string().min(1).max(64).openapi({ example: "r_1042", description: "Opaque; clients must not parse it." });

export const Timestamp = z.string().openapi({ format: "date-time", example: "2026-11-22T10:00:00.000Z" });

export const ErrorOut = z
  .object({
    detail: z.string().openapi({
      description: "What went wrong, in plain language; for a 422 it names the field and the rule it broke (for example `segments[3].key must have at most 500 characters`).",
    }),
  })
  .openapi("ErrorOut");

/** A push past the site's storage limit: 409 `site_storage_full`. */
export const StorageFullOut = z
  .object({
    detail: z.string().openapi({ description: "What is wrong, in plain language." }),
    code: z.literal("site_storage_full").openapi({ description: "The site's storage is at its limit: delete units, or contact support. Retrying does not help." }),
  })
  .openapi("StorageFullOut");

export const HealthOut = z
  .object({
    status: z.string().openapi({ description: "`ok` while the service answers." }),
    api_version: z.string().openapi({ description: "The API's major version (`1`); additive changes keep it." }),
  })
  .openapi("HealthOut");

/** The `next_cursor` of a page, described as most lists describe it. */
const NEXT_PAGE = "Pass as `cursor` for the next page; null on the last page.";

/**
 * A page of a list (the envelope every list endpoint answers with): the page's items under
 * `field`, then `next_cursor`, which fetches the next page; `next` describes it where a list
 * has more to say (its filters).
 */
export function page<Field extends string, Item extends z.ZodType>(name: string, field: Field, item: Item, description: string, next = NEXT_PAGE) {
  const shape = { [field]: z.array(item).openapi({ description }), next_cursor: z.string().nullable().openapi({ description: next }) };
  return z.object(shape as Record<Field, z.ZodArray<Item>> & { next_cursor: z.ZodNullable<z.ZodString> }).openapi(name);
}

// ---------------------------------------------------------------- site and handshake

export const Formality = z.enum(FORMALITIES);
export const EngineName = z.enum(ENGINES);
export const Adapter = z.enum(ADAPTERS);

export const TargetLanguage = z
  .object({
    code: LanguageCode.openapi({ description: "The target language code (BCP 47 style, as configured for the site, e.g. `de`, `pt-BR`)." }),
    formality: Formality.openapi({ description: "The tone asked of the engine: `default`, `formal` or `informal` (engines without the notion ignore it)." }),
    engine: EngineName.openapi({ description: `The engine that translates this language (${ENGINES.map((e) => `\`${e}\``).join(", ")}).` }),
    writable: z.boolean().openapi({
      description: "True when jobs translate into this language: writable in the dashboard and listed in `languages` of the latest handshake. False before the first handshake.",
    }),
  })
  .openapi("TargetLanguage");

export const Site = z
  .object({
    id: z.number().int().openapi({ description: "The site's id (the API key belongs to exactly one site)." }),
    name: z.string().openapi({ description: "The site's name as shown in the dashboard." }),
    organization: z.string().openapi({ description: "The name of the organization that owns the site." }),
    source_language: z.string().openapi({ description: "The language the site's content is written in; every pushed segment's `text` is in it." }),
    target_languages: z
      .array(TargetLanguage)
      .openapi({ description: "The languages the site is translated into, each with its engine, formality and whether it is writable now." }),
    enabled_adapters: z
      .array(z.string())
      .openapi({ description: "The adapters whose units the site accepts (`wordpress`, `drupal`, `wagtail`, `strapi`); a unit with another `adapter` is refused with 422." }),
    enabled_engines: z.array(z.string()).openapi({ description: "The engines the site's target languages may use." }),
  })
  .openapi("Site");

export const HandshakeIn = z
  .object({
    connector_version: text(LIMITS.connectorVersion).openapi({
      description: "The connector's name and version, e.g. `my-connector/1.4.0` (at most 50 characters); shown in the dashboard.",
    }),
    adapters: z
      .array(text(100))
      .max(LIMITS.handshakeAdapters)
      .optional()
      .openapi({ description: "The adapters this connector pushes units with (at most 20); adapters the site has not enabled come back as a warning." }),
    source_language: LanguageCode.openapi({ description: "The website's source language; a mismatch with the site's comes back as a warning (nothing is refused)." }),
    languages: z.array(LanguageCode).max(LIMITS.handshakeLanguages).optional().openapi({
      description:
        "The target languages the website has, or that the connector will create (at most 200). Only target languages listed here are writable: omitted, nothing is translated. A website that has no translations yet (a static site whose language folders the connector writes) lists the site's target languages from `GET /v1/site`.",
    }),
    capabilities: z.array(text(100)).max(LIMITS.handshakeCapabilities).optional().openapi({
      description:
        "What the connector can do (at most 20): `qa_errors` (it shows QA errors to editors, so results with QA errors are delivered flagged in `editors` QA mode) and `whole_unit` (it writes a unit's translation in one piece, so a unit's results in a language are delivered only once all are ready). Unknown values are ignored.",
    }),
  })
  .openapi("HandshakeIn");

export const HandshakeOut = Site.extend({
  review_mode: z.enum(REVIEW_MODES).openapi({
    description:
      "What the connector writes results as: `draft` (a draft of the translated object, published by an editor) or `suggestion` (a suggestion on the translated object, for editors to accept). Results are never written as published.",
  }),
  qa_mode: z.enum(QA_MODES).openapi({
    description: "`editors`: QA errors are delivered, flagged, to connectors declaring `qa_errors`; `separate`: results with QA errors are held back for review in the dashboard.",
  }),
  capabilities: z.array(z.enum(CAPABILITIES)).openapi({ description: "The declared capabilities the service understood (`qa_errors`, `whole_unit`)." }),
  warnings: z.array(z.string()).openapi({
    description:
      "Human-readable mismatches: a differing source language, target languages the website lacks (not writable), languages of the website that are neither a target nor the source of the site (named), adapters not enabled; empty when none.",
  }),
}).openapi("HandshakeOut");

// ---------------------------------------------------------------- units

export const SegmentIn = z
  .object({
    key: text(LIMITS.segmentKey).min(1).openapi({
      description:
        "The segment's key within the unit, 1 to 500 characters. Keep it stable across edits (derive it from the content's structure or an id, not from its position): a new key is new work, and a removed key's translations leave with it.",
    }),
    text: text(LIMITS.segmentText).openapi({ description: "The source text, at most 100,000 characters (Unicode code points); markup as `format` says." }),
    format: z
      .enum(FORMATS)
      .default("plain")
      .openapi({ description: "How `text` is written: `plain` (default), `html`, `markdown` or `rich_text`; markup is kept intact through translation and checked by QA." }),
    field: text(LIMITS.field)
      .nullish()
      .openapi({ description: "The field of the source object the text comes from (e.g. `post_content`), at most 200 characters; stored and shown, never translated." }),
    kind: text(LIMITS.kind).nullish().openapi({ description: "A hint for engines and QA, at most 50 characters: e.g. `title`, `body`, `alt_text`, `meta_description`." }),
    max_length: z
      .number()
      .int()
      .min(1)
      .nullish()
      .openapi({ description: "The most characters the translation may have (at least 1); a longer one is a QA error. Null: no limit." }),
    position: z
      .number()
      .int()
      .min(0)
      .nullish()
      .openapi({ description: "The segment's order in the unit (0 or more); defaults to its index in `segments`. Changing it never makes a translation stale." }),
    parent_key: text(LIMITS.parentKey)
      .nullish()
      .openapi({ description: "The key of the segment this one belongs to (at most 500 characters), for nested structures; null at the top level." }),
    fingerprint: text(128).nullish().openapi({
      description:
        "The connector's own fingerprint of `text` (lowercase hex SHA-256 of the UTF-8 text after NFC and CRLF→LF). Optional; a differing one is reported in `fingerprint_mismatches`.",
    }),
    translations: z
      .record(LanguageCode, text(LIMITS.segmentText))
      .nullish()
      .openapi({
        // Keys are language codes (zod's record keys are not written into the document by itself).
        propertyNames: { type: "string", minLength: LIMITS.languageCode.min, maxLength: LIMITS.languageCode.max, pattern: "^[A-Za-z0-9_-]+$" },
        description:
          "Existing translations to import: language code → text (each at most 100,000 characters). Imported only into languages still empty for this segment, as approved with origin `imported`.",
      } as Record<string, unknown>),
  })
  .openapi("SegmentIn");

export const UnitSnapshotIn = z
  .object({
    external_key: UnitKey.openapi({
      description: "The unit's key, 1 to 255 characters of letters, digits, `_`, `.`, `:` and `-` (e.g. `post:42`); a `type:` prefix groups units for `prefix` filters.",
    }),
    adapter: Adapter.openapi({
      description:
        "The integration that owns the unit: one of the site's `enabled_adapters`, else the push is refused with 422. It is stored and shown in status and the dashboard; it changes nothing in segmentation, translation or delivery.",
    }),
    label: text(LIMITS.unitLabel).nullish().openapi({ description: "A human-readable name for the unit (at most 500 characters), shown in the dashboard." }),
    path: text(LIMITS.unitPath).nullish().openapi({ description: "Where the unit lives on the website (a URL path or file path, at most 2,000 characters)." }),
    source_language: LanguageCode.nullish().openapi({ description: "The unit's source language when it differs from the site's; null means the site's." }),
    writable_languages: z
      .array(LanguageCode)
      .max(LIMITS.handshakeLanguages)
      .nullish()
      .openapi({ description: "Restricts the unit's target languages to these (at most 200); null means every target language of the site." }),
    metadata: z
      .record(text(), z.unknown())
      .superRefine((m, ctx) => {
        const problem = jsonBoundsProblem(m, LIMITS.metadataChars);
        if (problem) ctx.addIssue({ code: "custom", message: problem });
      })
      .openapi({
        // JSON Schema cannot bound a value's serialized size or depth: they are `x-` extensions
        // (read by people and by test/api/bounds.test.ts) and the description.
        "x-max-json-characters": LIMITS.metadataChars,
        "x-max-json-depth": LIMITS.jsonDepth,
        description: `Free-form. At most ${LIMITS.metadataChars} characters (64 KB) as JSON, nested at most ${LIMITS.jsonDepth} levels (its own braces counted), no array or object of more than ${LIMITS.jsonWidth} items or keys.`,
      } as Record<string, unknown>)
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
      })
      .openapi({ description: "The unit's complete current source: every segment (at most 5,000). Keys absent here are removed from the unit." }),
  })
  .openapi("UnitSnapshotIn");

export type UnitSnapshot = z.infer<typeof UnitSnapshotIn>;
export type SegmentInput = z.infer<typeof SegmentIn>;

export const SyncOut = z
  .object({
    external_key: z.string().openapi({ description: "The unit's key." }),
    unit_created: z.boolean().openapi({ description: "True when this push created the unit." }),
    added: z.number().int().openapi({ description: "Segments new in this push." }),
    changed: z.number().int().openapi({
      description:
        "Segments whose text differs from the last push: translations of the earlier text become stale (a text reverted to what was translated makes them current again).",
    }),
    removed: z.number().int().openapi({ description: "Segments absent from this push and removed." }),
    unchanged: z.number().int().openapi({ description: "Segments whose text is unchanged (structure-only changes included)." }),
    stale_translations: z.number().int().openapi({ description: "Translations made stale by this push (changed segments × their translated languages)." }),
    imported_translations: z.number().int().openapi({ description: "Translations imported from `translations`." }),
    fingerprint_mismatches: z.array(z.string()).openapi({ description: "Keys of segments whose sent `fingerprint` differs from the service's." }),
  })
  .openapi("SyncOut");
export type SyncResult = z.infer<typeof SyncOut>;

export const BatchIn = z
  .object({
    units: z.array(UnitSnapshotIn).min(1).max(LIMITS.unitsPerBatch).openapi({ description: "1 to 100 unit snapshots, each applied on its own; the body must stay under 10 MB." }),
  })
  .openapi("BatchIn");

/** What the Worker validates for a batch as a whole: each unit is then checked on its own. */
export const BatchEnvelope = z.object({ units: z.array(z.unknown()).min(1).max(LIMITS.unitsPerBatch) });

export const BatchItemOut = z
  .object({
    external_key: z.string().openapi({ description: "The unit's key as sent (cut to 255 characters; empty when it had none)." }),
    ok: z.boolean().openapi({ description: "True when the unit was applied." }),
    result: SyncOut.nullable().openapi({ description: "What the push changed, when `ok`; null otherwise." }),
    error: z.string().nullable().openapi({ description: "Why the unit was refused (`units[i].field rule`), when not `ok`; null otherwise." }),
  })
  .openapi("BatchItemOut");
export type BatchItem = z.infer<typeof BatchItemOut>;

export const BatchOut = z.object({ results: z.array(BatchItemOut).openapi({ description: "One item per sent unit, in the order sent." }) }).openapi("BatchOut");

// ---------------------------------------------------------------- status

export const LanguageCountsOut = z
  .object({
    code: z.string().openapi({ description: "The target language code." }),
    ok: z.number().int().openapi({ description: "Segments approved (or imported) and current." }),
    stale: z.number().int().openapi({ description: "Segments whose source changed since they were translated." }),
    review: z.number().int().openapi({ description: "Segments translated and delivered (or ready to be), waiting for an editor on the site." }),
    missing: z.number().int().openapi({ description: "Segments never translated, or whose translation was rejected or discarded." }),
    attention: z.number().int().openapi({ description: "Segments whose translation is held back by QA errors, waiting for a decision in the dashboard." }),
    attention_url: z
      .string()
      .default("")
      .openapi({ description: "The dashboard page listing this unit's held-back translations in this language; empty when there are none (and always empty in site totals)." }),
  })
  .openapi("LanguageCountsOut");
export type LanguageCounts = z.infer<typeof LanguageCountsOut>;

export const SiteStatusOut = z
  .object({
    units_total: z.number().int().openapi({ description: "Live units of the site (or of `prefix`)." }),
    segments_total: z.number().int().openapi({ description: "Live segments of those units." }),
    glossary_terms: z.number().int().openapi({ description: "Terms in the organization's glossary." }),
    languages: z.array(LanguageCountsOut).openapi({ description: "Counts per target language; each segment is in exactly one state per language." }),
  })
  .openapi("SiteStatusOut");

/** A language's work in one unit: the counts without `ok`. */
export const WorkCountsOut = LanguageCountsOut.omit({ ok: true }).openapi("WorkCountsOut");

export const UnitWorkOut = z
  .object({
    external_key: z.string().openapi({ description: "The unit's key." }),
    label: z.string().openapi({ description: "The unit's label as pushed; empty when none." }),
    path: z.string().openapi({ description: "The unit's path as pushed; empty when none." }),
    adapter: z.string().openapi({ description: "The adapter the unit was pushed with." }),
    last_synced_at: Timestamp.nullable().openapi({ description: "When the unit was last pushed; null if never." }),
    dashboard_url: z.string().openapi({ description: "The unit's page in the dashboard." }),
    languages: z.array(WorkCountsOut).openapi({ description: "Only the languages with work in this unit, with their counts." }),
  })
  .openapi("UnitWorkOut");

export const UnitsWorkOut = page(
  "UnitsWorkOut",
  "units",
  UnitWorkOut,
  "A page of units, by key.",
  "Pass as `cursor` (with the same filters) for the next page; null on the last page.",
);
export type UnitsWork = z.infer<typeof UnitsWorkOut>;

export const SegmentState = z.enum(["ok", "stale", "review", "missing", "attention"]);

export const QAIssueOut = z
  .object({
    code: z.string().openapi({ description: "The check that found it, e.g. `placeholders`, `tags`, `max_length`, `numbers`, `glossary`." }),
    severity: z
      .enum(["error", "warning"])
      .openapi({ description: "`error` (holds the translation back unless the connector shows errors to editors) or `warning` (informational)." }),
    message: z.string().openapi({ description: "What is wrong, in plain language, for an editor." }),
  })
  .openapi("QAIssueOut");
export type QAIssue = z.infer<typeof QAIssueOut>;

/**
 * A translation's status (spec "Translation statuses"), as the result look-up names it. Rejected
 * and missing ones have no current translation, so they never appear.
 */
export const TRANSLATION_STATUSES = ["machine_translated", "pending_review", "approved", "needs_attention"] as const;
export type TranslationStatus = (typeof TRANSLATION_STATUSES)[number];

export const SegmentResultOut = z
  .object({
    id: ResultId.nullable().openapi({
      description:
        "The result id that produced this translation, for `POST /v1/reviews` (and `POST /v1/results/ack`). Null for a translation imported with the unit (`origin` `imported`): there is nothing to review. Opaque; do not parse it.",
    }),
    text: z.string().openapi({ description: "The translated text, in the segment's format." }),
    origin: z.string().openapi({
      description:
        "Where the text came from: `mt` (a machine translation engine), `llm` (a language model), `tm_exact` (an exact translation-memory match, not billed), `human` (an editor's text, from a review or the dashboard) or `imported` (sent in `translations` with the unit).",
    }),
    status: z.enum(TRANSLATION_STATUSES).openapi({
      description:
        "`machine_translated`: ready in `GET /v1/results`, not yet acknowledged; `pending_review`: acknowledged, a draft or suggestion is on the site, waiting for an editor; `approved`: approved by an editor, or imported; `needs_attention`: held back by QA errors for a decision in the dashboard, never delivered. " +
        "Only `machine_translated` and `pending_review` can be reviewed, and only while the segment's state in the language is `review` (a translation of an earlier source text shows `stale` there and is ignored by reviews).",
    }),
  })
  .openapi("SegmentResultOut");
export type SegmentResult = z.infer<typeof SegmentResultOut>;

export const SegmentStatusOut = z
  .object({
    key: z.string().openapi({ description: "The segment's key." }),
    field: z.string().openapi({ description: "The segment's field as pushed; empty when none." }),
    kind: z.string().openapi({ description: "The segment's kind as pushed; empty when none." }),
    parent_key: z.string().openapi({ description: "The segment's parent key as pushed; empty when none." }),
    position: z.number().int().openapi({ description: "The segment's order in the unit." }),
    states: z.record(z.string(), SegmentState).openapi({ description: "Target language code → the segment's state there: `ok`, `stale`, `review`, `missing` or `attention`." }),
    qa: z
      .record(z.string(), z.array(QAIssueOut))
      .optional()
      .openapi({ description: "Language code → QA findings of the current translation; only languages with findings, absent when none." }),
    held_back: z.array(z.string()).optional().openapi({ description: "Languages whose translation is held back for QA review in the dashboard; absent when none." }),
    text: z.string().optional().openapi({ description: "The segment's current source text. Only with `include=text`." }),
    results: z.record(z.string(), SegmentResultOut).optional().openapi({
      description:
        "Target language code → the segment's current translation in that language. Only with `include=results`; a language without a translation (never translated, rejected or discarded: state `missing`) is absent.",
    }),
  })
  .openapi("SegmentStatusOut");

export const UnitStatusOut = z
  .object({
    external_key: z.string().openapi({ description: "The unit's key." }),
    label: z.string().openapi({ description: "The unit's label as pushed; empty when none." }),
    path: z.string().openapi({ description: "The unit's path as pushed; empty when none." }),
    adapter: z.string().openapi({ description: "The adapter the unit was pushed with." }),
    last_synced_at: Timestamp.nullable().openapi({ description: "When the unit was last pushed; null if never." }),
    segments_total: z.number().int().openapi({ description: "Live segments of the unit." }),
    segments_needing_work: z.number().int().openapi({ description: "Segments not `ok` in at least one language." }),
    languages: z.array(LanguageCountsOut).openapi({ description: "Counts per target language of the unit." }),
    segments: z.array(SegmentStatusOut).openapi({ description: "Every live segment, by position." }),
    dashboard_url: z.string().default("").openapi({ description: "The unit's page in the dashboard." }),
  })
  .openapi("UnitStatusOut");
export type UnitStatus = z.infer<typeof UnitStatusOut>;

/** POST /v1/units/texts (an extension of version 1): the source texts of up to 100 units in one read. */
export const UnitTextsIn = z
  .object({
    keys: z
      .array(UnitKey)
      .min(1)
      .max(LIMITS.unitsPerTextsRead)
      .openapi({ description: `The units' keys, 1 to ${LIMITS.unitsPerTextsRead} (the same as a batch push); a key asked twice is answered once.` }),
  })
  .openapi("UnitTextsIn");

export const UnitTextsOut = z
  .object({
    units: z
      .array(
        z.object({
          external_key: z.string().openapi({ description: "The unit's key." }),
          segments: z
            .array(z.object({ key: z.string().openapi({ description: "The segment's key." }), text: z.string().openapi({ description: "Its current source text, as pushed." }) }))
            .openapi({ description: "Every live segment of the unit, by position." }),
        }),
      )
      .openapi({ description: "The known units asked for, in the order asked." }),
    unknown: z.array(z.string()).openapi({ description: "Keys asked for that name no unit (never pushed, or deleted): a connector treats their documents as new." }),
    more: z.array(z.string()).openapi({
      description: `Known units left out because the answer reached ${LIMITS.sourceTextsChars.toLocaleString("en")} characters of text: ask for them again. Empty as a rule.`,
    }),
  })
  .openapi("UnitTextsOut");

// ---------------------------------------------------------------- usage and estimates

export const UsageOut = z
  .object({
    plan: z.string().nullable().openapi({ description: "The subscription's plan code (`pro`, `agency`, `growth`, `scale`); null without a subscription." }),
    entitled: z.boolean().openapi({ description: "True when hosted translation is available for the site (jobs can start)." }),
    reason: z.string().openapi({ description: "Why not, when not entitled; empty otherwise." }),
    month_start: Timestamp.openapi({ description: "Start of the current billing month (UTC)." }),
    month_end: Timestamp.openapi({ description: "End of the current billing month (UTC)." }),
    included_characters: z.number().int().nullable().openapi({ description: "Characters included per month; null when not metered." }),
    used_characters: z.number().int().openapi({ description: "Billable characters used this month (per site on `pro`, pooled otherwise)." }),
    per_site: z.boolean().openapi({ description: "True for the `pro` plan (usage counted per site); false when pooled across the organization's sites." }),
  })
  .openapi("UsageOut");

export const EstimateOut = z
  .object({
    characters: z.number().int().openapi({ description: "Billable characters of the job (source characters sent to engines; memory hits and repeats excluded)." }),
    included_characters: z.number().int().nullable().openapi({ description: "Characters included per month; null when not metered." }),
    used_characters: z.number().int().openapi({ description: "Billable characters used this month so far." }),
    reserved_characters: z.number().int().openapi({ description: "Expected use of queued and running jobs requested earlier." }),
    remaining_characters: z.number().int().nullable().openapi({ description: "Included characters left after used and reserved ones (never below 0); null when not metered." }),
    overage_characters: z.number().int().openapi({ description: "Characters of this job beyond the included volume." }),
    overage_cents: z.number().int().openapi({ description: "Estimated extra charge for them, in cents of `currency`, billed after the month." }),
    currency: z.string().openapi({ description: "ISO 4217 code of `overage_cents`, lowercase (e.g. `usd`)." }),
    requires_confirmation: z
      .boolean()
      .openapi({ description: "True when the job must be confirmed (`confirm: true`): more than 100,000 billable characters, or characters beyond the included volume." }),
  })
  .openapi("EstimateOut", { description: "What a job costs against the plan: its billable characters, the month's use so far and any overage." });
export type Estimate = z.infer<typeof EstimateOut>;

export const BillingErrorOut = z
  .object({
    detail: z.string().openapi({ description: "What is wrong, in plain language." }),
    code: z.enum(["subscription_required", "subscription_inactive", "site_not_covered", "confirmation_required"]).openapi({
      description:
        "`subscription_required` (no subscription), `subscription_inactive` (paused or canceled), `site_not_covered` (the subscription does not include this site) or `confirmation_required` (repeat with `confirm: true`).",
    }),
    estimate: EstimateOut.nullable().openapi({ description: "What the job would cost, with `confirmation_required`; null otherwise." }),
  })
  .openapi("BillingErrorOut");

// ---------------------------------------------------------------- jobs

/** The contract's pattern of a job's `prefix`: a key type, a colon, and a rest without whitespace. */
export const JOB_PREFIX_PATTERN = /^[a-z0-9_]+:\S*$/;

export const JobIn = z
  .object({
    type: z
      .enum(["delta", "translate"])
      .default("delta")
      .openapi({ description: "`delta` (default): every missing, stale or rejected segment of the site (narrowed by `prefix`); `translate`: the same, limited to `units`." }),
    units: z
      .array(UnitKey)
      .max(LIMITS.unitsPerJob)
      .nullish()
      // Never empty: a translate job needs a unit and a delta job takes none (null or absent; narrow it with `prefix`).
      .openapi({
        minItems: 1,
        description:
          "For `translate` only (required there): the unit keys, 1 to 1,000, each naming a unit of the site (a key that names none is a 422 that lists it). A `delta` job refuses `units`, even `[]` (422): leave it out, or narrow the job with `prefix`.",
      }),
    prefix: text(LIMITS.jobPrefix)
      .regex(JOB_PREFIX_PATTERN)
      .nullish()
      // The document shows the contract's pattern; text()'s well-formedness rule is checked too.
      .openapi({
        pattern: JOB_PREFIX_PATTERN.source,
        description:
          "For `delta` only: units whose key starts with it, at most 255 characters: a key type (lowercase letters, digits or underscores), a colon and optional non-whitespace rest, e.g. `post:`.",
      }),
    languages: z
      .array(LanguageCode)
      .max(LIMITS.handshakeLanguages)
      .nullish()
      .openapi({ description: "Target languages to translate; null means every writable one. Non-writable ones are dropped; none left is a 422." }),
    force: z.boolean().default(false).openapi({ description: "Also retranslate up-to-date segments (approved, in review, held back); each gets a new result id." }),
    confirm: z.boolean().default(false).openapi({ description: "Confirms a job that needs confirmation (after a 409 `confirmation_required`)." }),
    estimate_only: z.boolean().default(false).openapi({ description: "Only estimate (200 JobEstimateOut); nothing is created." }),
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

export const JobError = z
  .object({
    language: z.string().openapi({ description: "The target language the error concerns." }),
    message: z.string().openapi({ description: "What failed, e.g. no enabled engine supports the language; those segments stay missing." }),
    segments: z.number().int().openapi({ description: "How many segments it left untranslated." }),
  })
  .openapi("JobError");

export const JobOut = z
  .object({
    id: z.number().int().openapi({ description: "The job's id." }),
    type: z.string().openapi({ description: "`delta` or `translate`." }),
    status: z
      .enum(["queued", "running", "succeeded", "failed", "cancelled"])
      .openapi({ description: "`queued`, `running`, `succeeded`, `failed` or `cancelled`; poll until it is none of the first two." }),
    languages: z.array(z.string()).openapi({ description: "The target languages the job translates." }),
    units: z.array(z.string()).nullable().optional().openapi({ description: "The unit keys of a `translate` job; null for `delta`." }),
    prefix: z.string().default("").openapi({ description: "The `prefix` of a `delta` job; empty when none." }),
    force: z.boolean().openapi({ description: "Whether up-to-date segments are retranslated too." }),
    estimated_segments: z
      .number()
      .int()
      .openapi({ description: "Segment × language items the job covers: the work that existed when it was requested (lowered when it starts if that work shrank)." }),
    estimated_characters: z.number().int().openapi({
      description:
        "Billable characters expected (memory hits and repeats within the job excluded): the most the job bills. Never raised after the request; lowered when it starts if its work shrank.",
    }),
    estimated_tm_segments: z.number().int().openapi({ description: "Items expected to come from the translation memory." }),
    done_segments: z.number().int().openapi({
      description:
        "Items finished so far (translated, from memory or reused). Items that no longer need work when the job reaches them, and texts that would take it past its `estimated_characters`, are not done: they are the next job's.",
    }),
    failed_segments: z.number().int().openapi({ description: "Items that failed (see `errors`); they stay missing." }),
    characters: z.number().int().openapi({ description: "Billed source characters sent to engines so far." }),
    qa_failed_segments: z.number().int().openapi({ description: "Items translated but held back by QA errors." }),
    tm_segments: z.number().int().openapi({ description: "Items taken from the translation memory (not billed)." }),
    tm_characters: z.number().int().openapi({ description: "Their source characters (not billed)." }),
    reused_segments: z.number().int().openapi({ description: "Items whose text repeats another of the same job, translated once (not billed again)." }),
    reused_characters: z.number().int().openapi({ description: "Their source characters (not billed)." }),
    errors: z.array(JobError).openapi({ description: "Failures per language; empty when none." }),
    created_at: Timestamp.openapi({ description: "When the job was requested." }),
    started_at: Timestamp.nullable().openapi({ description: "When it started running; null while queued." }),
    finished_at: Timestamp.nullable().openapi({ description: "When it ended; null while queued or running." }),
    cancel_reason: z.string().nullable().openapi({
      description:
        "**Extension of version 1.** Why the service cancelled the job, in the operator's words (a runaway job, a restore of the site): shown as it is to the site's people; null when it was not cancelled so (the connector's and the dashboard's cancels give none).",
      example: null,
    }),
  })
  .openapi("JobOut", { description: "A translation job: what it covers, its progress and what it has cost." });
export type Job = z.infer<typeof JobOut>;

export const JobEstimateOut = z
  .object({
    languages: z.array(z.string()).openapi({ description: "The target languages the job would translate." }),
    estimated_segments: z.number().int().openapi({ description: "Segment × language items it would cover." }),
    estimated_characters: z.number().int().openapi({ description: "Billable characters expected." }),
    estimated_tm_segments: z.number().int().openapi({ description: "Items expected from the translation memory." }),
    cost: EstimateOut,
  })
  .openapi("JobEstimateOut");

// ---------------------------------------------------------------- results and reviews

export const ResultOut = z
  .object({
    id: ResultId.openapi({
      description: "The result id: acknowledge it after writing the text, and send it with the editor's decision to `POST /v1/reviews`. Opaque (`r_<n>`); do not parse it.",
    }),
    unit: z.string().openapi({ description: "The unit's key." }),
    key: z.string().openapi({ description: "The segment's key." }),
    language: z.string().openapi({ description: "The target language code." }),
    text: z.string().openapi({ description: "The translated text, in `format`: write it as a draft or suggestion (`review_mode`), never published." }),
    format: z.string().openapi({ description: "The segment's format (`plain`, `html`, `markdown`, `rich_text`)." }),
    source_fingerprint: z.string().openapi({ description: "The fingerprint of the source text it translates; a connector can check it against its current source." }),
    origin: z.string().openapi({ description: "`mt` (engine), `llm` (language model), `tm_exact` (translation memory) or `human` (an editor's fix in the dashboard)." }),
    engine: z.string().openapi({ description: "The engine that produced it (e.g. `deepl`, `pseudo`); `human` for an editor's fix." }),
    job_id: z.number().int().nullable().openapi({ description: "The job that produced it; null when none did (an editor's fix)." }),
    qa: z.array(QAIssueOut).openapi({ description: "QA findings: warnings, and errors too in `editors` QA mode for connectors that declared `qa_errors`; empty when none." }),
  })
  .openapi("ResultOut");
export type Result = z.infer<typeof ResultOut>;

export const ResultsOut = page(
  "ResultsOut",
  "results",
  ResultOut,
  "A page of results, oldest first (for `whole_unit` connectors grouped by unit and language, never split across pages).",
);

/**
 * A result id as a request names it: any string. Unknown or malformed ids never refuse the
 * request (docs/decisions.md "Results, reviews and the review queue"): ack does not count them, reviews list them in `ignored`.
 */
const ResultIdIn = z.string().openapi({ example: "r_1042", description: "A result id; unknown or malformed ids are ignored, never refused." });

export const AckIn = z
  .object({
    ids: z
      .array(ResultIdIn)
      .max(LIMITS.idsPerAck)
      .openapi({ description: "Result ids written to the site (at most 1,000); unknown or superseded ids are ignored, repeating is safe." }),
  })
  .openapi("AckIn");
export const AckOut = z
  .object({
    acknowledged: z
      .number()
      .int()
      .openapi({ description: "How many of the ids are current results, now acknowledged (ones acknowledged before included, so a retry gets the same answer)." }),
  })
  .openapi("AckOut");

export const ReviewIn = z.object({
  id: ResultIdIn.openapi({ description: "The result id the editor decided on (from `GET /v1/results`, or `results` of the unit status with `include=results`)." }),
  outcome: z
    .enum(["approved", "rejected"])
    .openapi({ description: "`approved` (the translation becomes `ok`) or `rejected` (it becomes `missing`; the next delta job translates it again)." }),
  text: text(LIMITS.segmentText).optional().openapi({
    description:
      "The final text when the editor changed it before approving (at most 100,000 characters); stored with origin `human` and added to the translation memory. Omit to approve as is.",
  }),
  reviewer: text(200).optional().openapi({ description: "Who decided (at most 200 characters), e.g. the editor's user name." }),
});
export type Review = z.infer<typeof ReviewIn>;

export const ReviewsIn = z
  .object({ reviews: z.array(ReviewIn).max(LIMITS.reviewsPerRequest).openapi({ description: "The editors' decisions, at most 500." }) })
  .openapi("ReviewsIn");
export const ReviewsOut = z
  .object({
    updated: z.number().int().openapi({ description: "Decisions applied." }),
    ignored: z.array(z.string()).openapi({ description: "Ids that are unknown, superseded or not waiting for review; nothing was done for them." }),
  })
  .openapi("ReviewsOut");

export const AttentionItemOut = z
  .object({
    id: ResultId.openapi({ description: "The held-back result's id." }),
    unit: z.string().openapi({ description: "The unit's key." }),
    key: z.string().openapi({ description: "The segment's key." }),
    language: z.string().openapi({ description: "The target language code." }),
    text: z.string().openapi({ description: "The held-back translation." }),
    source_text: z.string().openapi({ description: "The source text it translates." }),
    qa: z.array(QAIssueOut).openapi({ description: "Its QA findings (errors first)." }),
    job_id: z.number().int().nullable().openapi({ description: "The job that produced it; null when none did." }),
    created_at: Timestamp.openapi({ description: "When it was produced." }),
    dashboard_url: z.string().openapi({ description: "Where an editor fixes or discards it in the dashboard." }),
  })
  .openapi("AttentionItemOut");

export const AttentionOut = page("AttentionOut", "items", AttentionItemOut, "A page of held-back translations, oldest first.");
export type Attention = z.infer<typeof AttentionOut>;

// ---------------------------------------------------------------- query parameters

export const PageQuery = {
  cursor: z
    .string()
    .max(512)
    .optional()
    .openapi({ description: "The `next_cursor` of the previous page (opaque; at most 512 characters). Omit for the first page; a malformed one is a 422." }),
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(LIMITS.pageMax)
    .default(LIMITS.pageDefault)
    .openapi({ description: `Items per page, 1 to ${LIMITS.pageMax} (default ${LIMITS.pageDefault}).` }),
};

/** `state` of GET /v1/units: the kinds of work a unit can have (every segment state but `ok`). */
export const WORK_STATES = ["missing", "stale", "review", "attention"] as const;
export type WorkState = (typeof WORK_STATES)[number];

export const UnitsQuery = z.object({
  prefix: z.string().max(LIMITS.unitKey).default("").openapi({ description: "Only units whose key starts with it (e.g. `post:`); empty: every unit." }),
  language: LanguageCode.optional().openapi({
    description: "Only work in this target language; the units' `languages` list only it. A language that is not a target of the site gives an empty list.",
  }),
  state: z.enum(WORK_STATES).optional().openapi({
    description:
      "Only units with this kind of work in at least one language (in `language` when given): `missing` (never translated, rejected or discarded), `stale` (the source changed since), `review` (delivered, waiting for an editor on the site) or `attention` (held back by QA in the dashboard). Without it, units with any work.",
    example: "missing",
  }),
  ...PageQuery,
});

/** What `include` of GET /v1/units/{key}/status may name. */
export const UNIT_STATUS_INCLUDES = ["text", "results"] as const;
export type UnitStatusInclude = (typeof UNIT_STATUS_INCLUDES)[number];

export const UnitStatusQuery = z.object({
  include: z
    .string()
    .max(100)
    .optional()
    .openapi({
      description:
        "Optional fields to add to each segment, comma-separated: `text` (the current source text) and `results` (the current translation per language, with the result id that `POST /v1/reviews` takes). Any other value is a 422.",
      example: "text,results",
    })
    .transform((value, ctx) => {
      const parts = value ? value.split(",").map((p) => p.trim()) : [];
      const unknown = parts.filter((p) => !(UNIT_STATUS_INCLUDES as readonly string[]).includes(p));
      if (unknown.length) {
        ctx.addIssue({
          code: "custom",
          message: `must be a comma-separated list of ${UNIT_STATUS_INCLUDES.join(", ")} (unknown: ${unknown.map((u) => JSON.stringify(u)).join(", ")})`,
        });
        return z.NEVER;
      }
      return new Set(parts as UnitStatusInclude[]);
    }),
});

export const StatusQuery = z.object({
  prefix: z
    .string()
    .max(LIMITS.unitKey)
    .default("")
    .openapi({ description: "Only units whose key starts with it (e.g. `post:`, a key type, read from maintained sums); empty: the whole site." }),
});

export const ResultsQuery = z.object({ ...PageQuery, unit: UnitKey.optional().openapi({ description: "Only this unit's results; an unknown key gives an empty page." }) });

export const AttentionQuery = z.object({ ...PageQuery });

export const JobsQuery = z.object({
  // As common clients send booleans in query strings: `true`/`false` in any case (Python's `True`), or `1`/`0`.
  active: z
    .string()
    .regex(/^(?:[Tt][Rr][Uu][Ee]|[Ff][Aa][Ll][Ss][Ee]|1|0)$/, "must be true, false, 1 or 0")
    .default("false")
    // A boolean in the document, as the contract has it; the service also takes the spellings common clients send.
    .openapi({
      type: "boolean",
      pattern: undefined,
      default: false,
      description: "`true`: only queued and running jobs; `false` (default): the 20 most recent jobs. Any case (`True`, `FALSE`), and `1` or `0`, are taken too.",
    })
    .transform((v) => v.toLowerCase() === "true" || v === "1"),
});

export const UnitKeyParam = z.object({ external_key: UnitKey.openapi({ param: { name: "external_key", in: "path" }, description: "The unit's key as pushed (e.g. `post:42`)." }) });
/** DELETE /v1/units/{key} answers 204 for every key (docs/decisions.md "Requests: keys, limits, hostile input, errors"), one that could never exist included. */
export const AnyUnitKeyParam = z.object({
  external_key: z.string().openapi({ param: { name: "external_key", in: "path" }, example: "post:42", description: "The unit's key; any string (unknown keys answer 204 too)." }),
});
export const JobIdParam = z.object({
  job_id: z.coerce
    .number()
    .int()
    .min(1)
    .max(Number.MAX_SAFE_INTEGER)
    .openapi({
      param: { name: "job_id", in: "path" },
      type: "integer",
      minimum: 1,
      maximum: Number.MAX_SAFE_INTEGER,
      description: "The job's id, from `createJob` or `listJobs`.",
    }),
});

// ---------------------------------------------------------------- what several doors share: the month of a list, path parameters

export const OptionalMonthQuery = z.object({
  month: z
    .string()
    .regex(/^\d{4}-(0[1-9]|1[0-2])$/, "must be a month as YYYY-MM")
    .optional()
    .openapi({ example: "2026-10", description: "Only this month's closes; all closes without it" }),
});

export const SiteIdParam = z.object({ site_id: z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER) });
export const OrgIdParam = z.object({ org_id: z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER) });
export const UserIdParam = z.object({ user_id: z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER) });
