/**
 * The OpenAPI document's frame (info, servers, tags) and the one fix-up applied to what
 * zod-to-openapi generates. The paths and bodies come from the routes' `createRoute` objects
 * and the zod schemas (src/api/schemas.ts); this file holds what is about the API as a whole.
 */

export const TAGS = [
  { name: "site", description: "The key's site, the connector's handshake, service health and this document." },
  { name: "sync", description: "Pushing units (the source-language state of translatable objects) and reading their translation states." },
  { name: "jobs", description: "Estimating, starting, following and cancelling translation jobs." },
  { name: "results", description: "Pulling finished translations to write them on the site as drafts or suggestions, and acknowledging them." },
  { name: "reviews", description: "Reporting editors' decisions on delivered translations." },
  { name: "quality", description: "Translations held back by quality checks for review in the dashboard." },
  {
    name: "webhooks",
    description:
      "Signed webhooks that tell a connector when there is something to pull (jobs finished, results ready, QA holds, usage thresholds). Optional: polling works as before.",
  },
  { name: "usage", description: "Billable characters and the plan's included volume." },
  { name: "admin", description: "The operator's provisioning API (organizations, subscriptions, sites, keys, glossaries, the review queue). Needs the ADMIN_TOKEN." },
] as const;

const DESCRIPTION = `Keeps the translations of a website in step with its source content. A **connector** next to
the website authenticates with a site API key, introduces itself (\`sendHandshake\`), pushes the
full source-language state of each translatable object as a **unit** (\`pushUnit\`, \`pushBatch\`),
requests **jobs** (\`createJob\`), pulls finished **results** (\`listResults\`), writes them on the
site as drafts or suggestions, acknowledges them (\`ackResults\`) and reports editors' **reviews**
(\`submitReviews\`). The service never writes to the website: the connector always pulls.
Instead of polling, a connector may register a **webhook** (\`setWebhook\`): signed events
(described under \`webhooks\`) then say when there is something to pull.

**Authentication.** Every operation except \`getHealth\`, this document and the reference page
needs \`Authorization: Bearer <API key>\` (keys start with \`tsk_\`; one identifies one site). A
missing, malformed, unknown or revoked key is a 401 with \`WWW-Authenticate: Bearer\`.

**Errors.** Every error body is \`ErrorOut\` (\`{"detail": "..."}\`, plain language for users); a 422
names the field and the rule; 402 and 409 on job creation are \`BillingErrorOut\` (\`code\`,
\`estimate\`); the admin API's 409 for a review-queue fix with QA errors is \`AttentionConfirmOut\`
(\`qa\`, \`source_text\`). Every response carries an \`X-Request-Id\` made by the service (one sent by
the client is ignored); a 500 quotes it. A JSON body is measured before it is parsed: a field nested
more than 32 levels deep, or an array or object of more than 10,000 items or keys, is a 422 naming the field.

**Rate limits.** Per API key 600 requests in 60 seconds; failed authentications per client
address 60 in 60 seconds. Over a limit: 429 \`ErrorOut\` with \`Retry-After\` (seconds). While an address
is blocked, a live key sent from it still works; only keys that fail get 429.

**Lists** page with \`cursor\` and \`limit\` (default 100, at most 500): pass \`next_cursor\` as
\`cursor\` until it is null. Cursors are opaque.

**Characters** are Unicode code points everywhere (limits, estimates, bills). Timestamps are
ISO 8601 date-times in UTC.`;

export const DOCUMENT_CONFIG = {
  openapi: "3.1.0",
  info: {
    title: "Transync: hosted translation synchronisation",
    version: "1", // replaced by the app's API_VERSION
    description: DESCRIPTION,
    contact: { name: "Transync support", url: "https://dashboard.transync.dev" },
  },
  servers: [
    {
      url: "https://{host}",
      description: "Production: your deployment's address",
      variables: { host: { default: "api.transync.dev", description: "The host the Worker is deployed on." } },
    },
    { url: "http://127.0.0.1:8787", description: "Local development (`npm run dev`)" },
  ],
  tags: [...TAGS],
  security: [{ bearer: [] }],
};

type Json = unknown;

/**
 * zod-to-openapi renders a nullable registered schema (`SyncOut.nullable()`) as
 * `allOf: [{$ref}, {type: ["object", "null"]}]`, which no value satisfies as null: null fails
 * the referenced object schema. Rewritten as `anyOf: [{$ref}, {type: "null"}]`, which means
 * what the zod schema means.
 */
export function fixNullableRefs(node: Json): Json {
  if (Array.isArray(node)) return node.map(fixNullableRefs);
  if (!node || typeof node !== "object") return node;
  const out: Record<string, Json> = {};
  for (const [k, v] of Object.entries(node)) out[k] = fixNullableRefs(v);
  const allOf = out.allOf;
  if (Array.isArray(allOf) && allOf.length === 2) {
    const [ref, extra] = allOf as Record<string, Json>[];
    const type = extra?.type;
    if (typeof ref?.$ref === "string" && Object.keys(ref).length === 1 && Array.isArray(type) && type.includes("null")) {
      const { type: _type, ...rest } = extra;
      const { allOf: _allOf, ...siblings } = out;
      return { ...siblings, ...rest, anyOf: [ref, { type: "null" }] };
    }
  }
  return out;
}
