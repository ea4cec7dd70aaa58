/**
 * Examples of the main request and response bodies, shown in the OpenAPI document and on the
 * reference page (/v1/docs). test/api/openapi.test.ts validates each against its schema, so an
 * example that drifts from the schema fails the suite.
 */

const at = "2026-11-22T10:00:00.000Z";

const site = {
  id: 7,
  name: "acme.example",
  organization: "Acme",
  source_language: "en",
  target_languages: [
    { code: "de", formality: "formal", engine: "deepl", writable: true },
    { code: "fr", formality: "default", engine: "deepl", writable: true },
  ],
  enabled_adapters: ["wordpress"],
  enabled_engines: ["deepl"],
};

const sync = {
  external_key: "post:42",
  unit_created: true,
  added: 3,
  changed: 0,
  removed: 0,
  unchanged: 0,
  stale_translations: 0,
  imported_translations: 1,
  fingerprint_mismatches: [],
};

const unit = {
  external_key: "post:42",
  adapter: "wordpress",
  label: "Hello world",
  path: "/hello-world",
  metadata: { post_type: "post" },
  segments: [
    { key: "title", text: "Hello world", kind: "title", field: "post_title", max_length: 70 },
    { key: "body", text: '<p>Welcome, {name}! Read <a href="/more">more</a>.</p>', format: "html", kind: "body", field: "post_content" },
    { key: "excerpt", text: "Hi", translations: { de: "Hallo" } },
  ],
};

const estimate = {
  characters: 184_000,
  included_characters: 2_000_000,
  used_characters: 1_950_000,
  reserved_characters: 0,
  remaining_characters: 50_000,
  overage_characters: 134_000,
  overage_cents: 201,
  currency: "usd",
  requires_confirmation: true,
};

const job = {
  id: 12,
  type: "delta",
  status: "running",
  languages: ["de", "fr"],
  units: null,
  prefix: "",
  force: false,
  estimated_segments: 240,
  estimated_characters: 18_400,
  estimated_tm_segments: 12,
  done_segments: 120,
  failed_segments: 0,
  characters: 9_150,
  qa_failed_segments: 1,
  tm_segments: 6,
  tm_characters: 310,
  reused_segments: 4,
  reused_characters: 96,
  errors: [],
  created_at: at,
  started_at: "2026-11-22T10:00:01.250Z",
  finished_at: null,
  cancel_reason: null,
};

const result = {
  id: "r_7000000101",
  unit: "post:42",
  key: "title",
  language: "de",
  text: "Hallo Welt",
  format: "plain",
  source_fingerprint: "64ec88ca00b268e5ba1a35678a1b5316d212f4f366b2477232534a8aeca37f3c",
  origin: "mt",
  engine: "deepl",
  job_id: 12,
  qa: [],
};

const languageCounts = { code: "de", ok: 410, stale: 12, review: 30, missing: 55, attention: 2, attention_url: "https://dashboard.transync.dev/sites/7/attention?language=de" };

export const EXAMPLES = {
  health: { status: "ok", api_version: "1" },
  site,
  handshakeIn: {
    connector_version: "my-connector/1.0.0",
    adapters: ["wordpress"],
    source_language: "en",
    languages: ["de", "fr"],
    capabilities: ["qa_errors"],
  },
  handshakeOut: {
    ...site,
    review_mode: "draft",
    qa_mode: "editors",
    capabilities: ["qa_errors"],
    warnings: [],
  },
  unit,
  sync,
  batchIn: { units: [unit, { ...unit, external_key: "node:43", adapter: "drupal" }] },
  batchOut: {
    results: [
      { external_key: "post:42", ok: true, result: sync, error: null },
      { external_key: "node:43", ok: false, result: null, error: 'units[1].adapter "drupal" is not enabled for this site (enabled: wordpress)' },
    ],
  },
  siteStatus: { units_total: 120, segments_total: 1_480, glossary_terms: 25, languages: [languageCounts, { ...languageCounts, code: "fr", attention_url: "" }] },
  unitsWork: {
    units: [
      {
        external_key: "post:42",
        label: "Hello world",
        path: "/hello-world",
        adapter: "wordpress",
        last_synced_at: at,
        dashboard_url: "https://dashboard.transync.dev/sites/7/units/post:42",
        languages: [{ code: "de", stale: 1, review: 0, missing: 2, attention: 0, attention_url: "" }],
      },
    ],
    next_cursor: "eyJrIjoicG9zdDo0MiJ9",
  },
  unitStatus: {
    external_key: "post:42",
    label: "Hello world",
    path: "/hello-world",
    adapter: "wordpress",
    last_synced_at: at,
    segments_total: 2,
    segments_needing_work: 1,
    languages: [{ code: "de", ok: 1, stale: 0, review: 0, missing: 1, attention: 0, attention_url: "" }],
    segments: [
      { key: "title", field: "post_title", kind: "title", parent_key: "", position: 0, states: { de: "ok" } },
      {
        key: "body",
        field: "post_content",
        kind: "body",
        parent_key: "",
        position: 1,
        states: { de: "missing" },
        qa: { de: [{ code: "placeholders", severity: "error", message: "The placeholder {name} is missing from the translation." }] },
      },
    ],
    dashboard_url: "https://dashboard.transync.dev/sites/7/units/post:42",
  },
  unitStatusIncluded: {
    external_key: "post:42",
    label: "Hello world",
    path: "/hello-world",
    adapter: "wordpress",
    last_synced_at: at,
    segments_total: 2,
    segments_needing_work: 1,
    languages: [{ code: "de", ok: 1, stale: 0, review: 1, missing: 0, attention: 0, attention_url: "" }],
    segments: [
      {
        key: "title",
        field: "post_title",
        kind: "title",
        parent_key: "",
        position: 0,
        states: { de: "ok" },
        text: "Hello world",
        results: { de: { id: "r_1041", text: "Hallo Welt", origin: "human", status: "approved" } },
      },
      {
        key: "body",
        field: "post_content",
        kind: "body",
        parent_key: "",
        position: 1,
        states: { de: "review" },
        text: "<p>Welcome to the blog.</p>",
        results: { de: { id: "r_1042", text: "<p>Willkommen im Blog.</p>", origin: "mt", status: "pending_review" } },
      },
    ],
    dashboard_url: "https://dashboard.transync.dev/sites/7/units/post:42",
  },
  unitTextsIn: { keys: ["content:guide:intro.md", "content:guide:install.md", "content:guide:new-page.md"] },
  unitTextsOut: {
    units: [
      {
        external_key: "content:guide:intro.md",
        segments: [
          { key: "fm.title", text: "Introduction" },
          { key: "p.1x2f9k3a7q", text: "Transync keeps translations in step with your site." },
        ],
      },
      { external_key: "content:guide:install.md", segments: [{ key: "h.0c8v2m1d4r", text: "Install" }] },
    ],
    unknown: ["content:guide:new-page.md"],
    more: [],
  },
  jobIn: { type: "delta", prefix: "post:", languages: ["de", "fr"], confirm: true },
  job,
  jobs: [job, { ...job, id: 11, status: "succeeded", done_segments: 240, finished_at: "2026-11-21T09:12:40.000Z" }],
  jobEstimate: {
    languages: ["de", "fr"],
    estimated_segments: 240,
    estimated_characters: 18_400,
    estimated_tm_segments: 12,
    cost: { ...estimate, characters: 18_400, overage_characters: 0, overage_cents: 0, requires_confirmation: false },
  },
  usage: {
    plan: "agency",
    entitled: true,
    reason: "",
    month_start: "2026-11-01T00:00:00.000Z",
    month_end: "2026-12-01T00:00:00.000Z",
    included_characters: 2_000_000,
    used_characters: 1_950_000,
    per_site: false,
  },
  results: {
    results: [result, { ...result, id: "r_7000000102", key: "body", text: '<p>Willkommen, {name}! Lesen Sie <a href="/more">mehr</a>.</p>', format: "html" }],
    next_cursor: null,
  },
  ackIn: { ids: ["r_7000000101", "r_7000000102"] },
  ackOut: { acknowledged: 2 },
  reviewsIn: {
    reviews: [
      { id: "r_7000000101", outcome: "approved", text: "Hallo, Welt", reviewer: "anna" },
      { id: "r_7000000102", outcome: "rejected" },
    ],
  },
  reviewsOut: { updated: 1, ignored: ["r_7000000102"] },
  attention: {
    items: [
      {
        id: "r_7000000103",
        unit: "post:42",
        key: "body",
        language: "de",
        text: '<p>Willkommen! Lesen Sie <a href="/more">mehr</a>.</p>',
        source_text: '<p>Welcome, {name}! Read <a href="/more">more</a>.</p>',
        qa: [{ code: "placeholders", severity: "error", message: "The placeholder {name} is missing from the translation." }],
        job_id: 12,
        created_at: at,
        dashboard_url: "https://dashboard.transync.dev/sites/7/attention?unit=post:42&language=de",
      },
    ],
    next_cursor: null,
  },
  // ---------------------------------------------------------------- errors
  unauthorized: { detail: "The API key is not valid (unknown, malformed or revoked)." },
  rateLimited: { detail: "Too many requests with this API key: at most 600 in 60 seconds. Retry in 12 seconds." },
  serverError: { detail: "Something went wrong on our side. Quote request id 0b6a3c1e-8f5d-4b8e-9a51-2c1f7d9e4a10 if you contact support." },
  validation: { detail: "segments[3].key must have at most 500 characters" },
  notFound: { detail: "Job 12 was not found." },
  tooLarge: { detail: "The request body is too large: the limit is 10485760 bytes (10 MB)." },
  unsupportedMediaType: { detail: "The request body must be JSON (Content-Type: application/json)." },
  paymentRequired: { detail: "Hosted translation is not available for this site: the organization has no subscription.", code: "subscription_required", estimate: null },
  confirmationRequired: {
    detail: "This job needs confirmation: 184000 billable characters, 134000 of them beyond the included volume (about 201 cents). Repeat the request with confirm: true.",
    code: "confirmation_required",
    estimate,
  },
  // ---------------------------------------------------------------- admin API
  attentionConfirm: {
    detail: "The fix has QA errors, so it was not saved. Change the text, or send it again with confirm: true to save it anyway.",
    qa: [{ code: "html_tags", severity: "error", message: "The HTML tags differ from the source: unexpected <script>, </script>." }],
    source_text: '<p>Welcome, {name}! Read <a href="/more">more</a>.</p>',
  },
  organizationIn: { name: "Acme" },
  organization: { id: 3, name: "Acme" },
  subscriptionIn: { plan: "agency", status: "active", site_ids: [7, 8] },
  subscription: { organization_id: 3, plan: "agency", status: "active", site_ids: [7, 8], included_characters: null },
  glossaryIn: { terms: [{ source: "Acme", language: "de", target: "Acme", case_sensitive: true }] },
  siteCreateIn: {
    organization_id: 3,
    name: "acme.example",
    source_language: "en",
    target_languages: [
      { code: "de", engine: "deepl", formality: "formal" },
      { code: "fr", engine: "deepl" },
    ],
  },
  adminSite: { ...site, organization_id: 3, qa_mode: "editors", review_mode: "draft", share_memory: true },
  keyCreateIn: { name: "production" },
  keyCreated: { id: 21, name: "production", key: "tsk_Zk3q9vJ0bYp2XwR7mN5sT1aL8cD4eF6g", created_at: at },
} as const;
