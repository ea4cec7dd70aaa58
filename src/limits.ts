/** One table of the interface's limits (spec "Limits"); schemas and domain code read them from here. */
export const LIMITS = {
  languageCode: { min: 2, max: 15 },
  unitKey: 255,
  segmentKey: 500,
  parentKey: 500,
  field: 200,
  kind: 50,
  segmentText: 100_000,
  segmentsPerUnit: 5_000,
  unitLabel: 500,
  unitPath: 2_000,
  unitsPerBatch: 100,
  /** Request bodies (single unit and batch) above this are refused with 413 before parsing. */
  bodyBytes: 10 * 1024 * 1024,
  /** A field of a body (unit `metadata` above all) nests at most this many levels, its own brackets counted. */
  jsonDepth: 32,
  /** Items of any array, keys of any object, in a request body (checked on the text before parsing). */
  jsonWidth: 10_000,
  /** Unit `metadata` as JSON, in characters (UTF-16 units, as `JSON.stringify(metadata).length`). */
  metadataChars: 64 * 1024,
  /** Batch bodies above this go through R2 instead of RPC. */
  inlineBatchBytes: 1024 * 1024,
  connectorVersion: 50,
  handshakeAdapters: 20,
  handshakeLanguages: 200,
  handshakeCapabilities: 20,
  unitsPerJob: 1_000,
  jobPrefix: 255,
  pageDefault: 100,
  pageMax: 500,
  idsPerAck: 1_000,
  reviewsPerRequest: 500,
  jobsListed: 20,
  /** Units per POST /v1/units/texts (an extension of version 1: the batch's 100). */
  unitsPerTextsRead: 100,
  /** Characters of source text one POST /v1/units/texts answer carries at most (the units after it are in `more`). */
  sourceTextsChars: 5_000_000,
  confirmationCharacters: 100_000,
  agencySites: 10,
  /** A webhook endpoint's URL, in characters. */
  webhookUrl: 2_000,
  /** Deliveries kept in a site's webhook log. */
  webhookLog: 100,
} as const;

export const ADAPTERS = ["wordpress", "drupal", "wagtail", "strapi"] as const;
export type Adapter = (typeof ADAPTERS)[number];

export const FORMATS = ["plain", "html", "markdown", "rich_text"] as const;
export type Format = (typeof FORMATS)[number];

export const FORMALITIES = ["default", "formal", "informal"] as const;
export type Formality = (typeof FORMALITIES)[number];

export const CAPABILITIES = ["qa_errors", "whole_unit"] as const;
export type Capability = (typeof CAPABILITIES)[number];

export const QA_MODES = ["editors", "separate"] as const;
export type QaMode = (typeof QA_MODES)[number];

export const REVIEW_MODES = ["draft", "suggestion"] as const;
export type ReviewMode = (typeof REVIEW_MODES)[number];

export const PLANS = ["pro", "agency", "growth", "scale"] as const;
export type Plan = (typeof PLANS)[number];
