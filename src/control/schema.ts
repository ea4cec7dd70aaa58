/** The control plane in D1: organizations, sites, API keys, subscriptions, glossary and usage. */
import { sql } from "drizzle-orm";
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

const now = sql`(strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))`;

export const organizations = sqliteTable("organizations", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  name: text("name").notNull(),
  createdAt: text("created_at").notNull().default(now),
  /** Owners can require two-factor sign-in of every member (1); members without it set it up first. */
  requireTwoFactor: integer("require_two_factor", { mode: "boolean" }).notNull().default(false),
});

export interface TargetLanguageSetting {
  code: string;
  formality: "default" | "formal" | "informal";
  engine: string;
  writable: boolean;
}

export const sites = sqliteTable(
  "sites",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    organizationId: integer("organization_id")
      .notNull()
      .references(() => organizations.id),
    name: text("name").notNull(),
    sourceLanguage: text("source_language").notNull(),
    targetLanguages: text("target_languages", { mode: "json" }).$type<TargetLanguageSetting[]>().notNull(),
    enabledAdapters: text("enabled_adapters", { mode: "json" }).$type<string[]>().notNull(),
    enabledEngines: text("enabled_engines", { mode: "json" }).$type<string[]>().notNull(),
    qaMode: text("qa_mode").notNull().default("editors"),
    reviewMode: text("review_mode").notNull().default("draft"),
    /**
     * Whether the site shares its memory with its organization's other sites (docs/decisions.md
     * "How sharing works"). New sites start sharing (insertSiteStatement sets it); the column's
     * default is for the sites that existed before it, which keep their memory to themselves
     * until an owner or admin turns it on.
     */
    shareMemory: integer("share_memory", { mode: "boolean" }).notNull().default(false),
    /**
     * Why the operator suspended the site (POST /admin/v1/sites/{id}/suspend), null while it is
     * not: its keys answer 403 quoting it and its jobs stop at their next step.
     */
    suspendedReason: text("suspended_reason"),
    suspendedAt: text("suspended_at"),
    /** Bumped on every settings change; the site object never adopts an older version. */
    settingsVersion: integer("settings_version").notNull().default(1),
    createdAt: text("created_at").notNull().default(now),
    updatedAt: text("updated_at").notNull().default(now),
  },
  (t) => [index("sites_organization").on(t.organizationId)],
);

export const apiKeys = sqliteTable(
  "api_keys",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    siteId: integer("site_id")
      .notNull()
      .references(() => sites.id),
    name: text("name").notNull(),
    /** The first characters of the key, shown in listings so owners can tell keys apart. */
    prefix: text("prefix").notNull(),
    /** Lowercase hex SHA-256 of the whole key; the key itself is never stored. */
    hash: text("hash").notNull(),
    createdAt: text("created_at").notNull(),
    lastUsedAt: text("last_used_at"),
    revokedAt: text("revoked_at"),
  },
  (t) => [uniqueIndex("api_keys_hash").on(t.hash), index("api_keys_site").on(t.siteId)],
);

export const subscriptions = sqliteTable("subscriptions", {
  organizationId: integer("organization_id")
    .primaryKey()
    .references(() => organizations.id),
  plan: text("plan").notNull(),
  status: text("status").notNull(),
  /** A custom contract's monthly volume; null means the plan's. */
  includedCharacters: integer("included_characters"),
  /**
   * Who keeps this row: `manual` (the operator, through the admin API; an override even when
   * the organization pays through Stripe) or `stripe` (written from Stripe's subscription).
   */
  provider: text("provider").notNull().default("manual"),
  /** Most sites covered when it differs from the plan's: a Stripe `pro` subscription's quantity. */
  siteLimit: integer("site_limit"),
  /** When Stripe's subscription became `past_due`: active for a 7-day grace from then. */
  pastDueSince: text("past_due_since"),
  updatedAt: text("updated_at").notNull().default(now),
});

export const subscriptionSites = sqliteTable(
  "subscription_sites",
  {
    organizationId: integer("organization_id")
      .notNull()
      .references(() => organizations.id),
    siteId: integer("site_id").notNull(),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.siteId] }), index("subscription_sites_site").on(t.siteId)],
);

export const glossaryTerms = sqliteTable(
  "glossary_terms",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    organizationId: integer("organization_id")
      .notNull()
      .references(() => organizations.id),
    source: text("source").notNull(),
    language: text("language").notNull(),
    target: text("target").notNull(),
    caseSensitive: integer("case_sensitive", { mode: "boolean" }).notNull().default(false),
  },
  (t) => [index("glossary_terms_org").on(t.organizationId, t.language)],
);

/**
 * The usage ledger: one row per billed slice of a job. The unique key makes metering
 * idempotent: a retried alarm or repeated slice inserts nothing new.
 */
export const usageLedger = sqliteTable(
  "usage_ledger",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    organizationId: integer("organization_id").notNull(),
    siteId: integer("site_id").notNull(),
    jobId: integer("job_id").notNull(),
    slice: integer("slice").notNull(),
    characters: integer("characters").notNull(),
    /** First day of the UTC month, `YYYY-MM-01`. */
    month: text("month").notNull(),
    createdAt: text("created_at").notNull(),
  },
  (t) => [
    uniqueIndex("usage_ledger_slice").on(t.siteId, t.jobId, t.slice),
    index("usage_ledger_org_month").on(t.organizationId, t.month),
    index("usage_ledger_site_month").on(t.siteId, t.month),
  ],
);

/** Expected remaining billable characters of queued and running jobs (estimates' `reserved_characters`). */
export const reservations = sqliteTable(
  "reservations",
  {
    siteId: integer("site_id").notNull(),
    jobId: integer("job_id").notNull(),
    organizationId: integer("organization_id").notNull(),
    characters: integer("characters").notNull(),
    createdAt: text("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.siteId, t.jobId] }), index("reservations_org").on(t.organizationId, t.createdAt)],
);

// ------------------------------------------------------------------ people (the dashboard)

/** A person who signs in to the dashboard. Emails are stored lowercased. */
export const users = sqliteTable(
  "users",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    email: text("email").notNull(),
    /** `pbkdf2-sha256$<iterations>$<salt b64>$<hash b64>`; the password itself is never stored. */
    passwordHash: text("password_hash").notNull(),
    createdAt: text("created_at").notNull().default(now),
    /** When the person followed a verification link (or accepted an invitation, which proves the mailbox); null: can only verify. */
    emailVerifiedAt: text("email_verified_at"),
    /** The name given at sign-up (invited people may have none). */
    name: text("name"),
    /** The TOTP secret (base32) once two-factor is confirmed by a first code; a pending set-up lives in `account_tokens`. */
    totpSecret: text("totp_secret"),
    /** The last accepted TOTP time step: a code is never accepted twice. */
    totpLastStep: integer("totp_last_step"),
    /** Mail kinds the person turned off (security mails cannot be turned off). */
    mailOptOut: text("mail_opt_out", { mode: "json" }).$type<string[]>().notNull().default(sql`'[]'`),
    /** No longer read or written: wrong passwords are counted per client in `sign_in_failures` (migration 0011). Dropped in a later release (D1 changes stay backward-compatible for one). */
    passwordFailures: integer("password_failures").notNull().default(0),
    /** Wrong second-factor codes in a row, whoever sent them (sign-in, turning it off, setting it up again): the account-wide code budget (control/lockout.control.ts). */
    codeFailures: integer("code_failures").notNull().default(0),
    /** Until when the code step is paused after too many wrong codes; null: not paused. */
    lockedUntil: text("locked_until"),
  },
  (t) => [uniqueIndex("users_email").on(t.email)],
);

/**
 * Wrong passwords in a row per person and client network (control/lockout.control.ts): from 10 on, that
 * client's password step for that person pauses; other clients, the owner's included, are not
 * affected. `client` is the SHA-256 hex of the person's id and the client's network (an IPv4
 * address or an IPv6 /64), so the table holds no address in clear. Forgotten 30 days after the
 * last failure (the daily clean-up).
 */
export const signInFailures = sqliteTable(
  "sign_in_failures",
  {
    userId: integer("user_id")
      .notNull()
      .references(() => users.id),
    client: text("client").notNull(),
    failures: integer("failures").notNull().default(0),
    /** Until when this client's password step for this person is paused; null: not paused. */
    lockedUntil: text("locked_until"),
    lastAt: text("last_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.client] }), index("sign_in_failures_last").on(t.lastAt)],
);

/** A person's role in an organization: `owner`, `admin` or `editor`. */
export const memberships = sqliteTable(
  "memberships",
  {
    userId: integer("user_id")
      .notNull()
      .references(() => users.id),
    organizationId: integer("organization_id")
      .notNull()
      .references(() => organizations.id),
    role: text("role").notNull(),
    createdAt: text("created_at").notNull().default(now),
  },
  (t) => [primaryKey({ columns: [t.userId, t.organizationId] }), index("memberships_org").on(t.organizationId)],
);

/** Dashboard sessions: only the SHA-256 of the cookie's token is stored. */
export const sessions = sqliteTable(
  "sessions",
  {
    tokenHash: text("token_hash").primaryKey(),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id),
    createdAt: text("created_at").notNull(),
    expiresAt: text("expires_at").notNull(),
    /** Updated at most once an hour (a write per page would cost a D1 write each). */
    lastUsedAt: text("last_used_at"),
    /** The browser's User-Agent when the session began (cut to 300 characters), to tell sessions apart. */
    userAgent: text("user_agent"),
  },
  (t) => [index("sessions_user").on(t.userId)],
);

/** One-time invitations to an organization: only the SHA-256 of the link's token is stored. */
export const invitations = sqliteTable(
  "invitations",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    organizationId: integer("organization_id")
      .notNull()
      .references(() => organizations.id),
    email: text("email").notNull(),
    role: text("role").notNull(),
    tokenHash: text("token_hash").notNull(),
    /** Who invited: a user id, or null for the operator (admin API). */
    invitedBy: integer("invited_by"),
    createdAt: text("created_at").notNull(),
    expiresAt: text("expires_at").notNull(),
    acceptedAt: text("accepted_at"),
    /** When the invitation mail last went out, and whether it was delivered or waits for its retry. */
    mailedAt: text("mailed_at"),
    mailStatus: text("mail_status"),
  },
  (t) => [uniqueIndex("invitations_token").on(t.tokenHash), index("invitations_org").on(t.organizationId)],
);

// ------------------------------------------------------------------ audit

/**
 * Every admin-API and dashboard change: who (`admin` or `user:<id> <email>`), what (a dotted
 * action such as `site.update`), when, on what (`site:12`), and a JSON detail that never
 * holds a secret. Organization id is kept for filtering; null for operator-wide actions.
 */
export const auditLog = sqliteTable(
  "audit_log",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    organizationId: integer("organization_id"),
    at: text("at").notNull(),
    actor: text("actor").notNull(),
    action: text("action").notNull(),
    target: text("target").notNull(),
    detail: text("detail", { mode: "json" }).$type<Record<string, unknown>>(),
  },
  (t) => [index("audit_log_org").on(t.organizationId, t.id)],
);

// ------------------------------------------------------------------ billing (docs/decisions.md "Billing")

/**
 * Stripe's subscription of an organization as last read from Stripe (never from an event's
 * copy: webhooks retrieve the current state, so an older delivery cannot win). The contract's
 * row in `subscriptions` is derived from it unless the operator overrides (provider `manual`).
 */
export const stripeSubscriptions = sqliteTable(
  "stripe_subscriptions",
  {
    organizationId: integer("organization_id").primaryKey(),
    customerId: text("customer_id").notNull(),
    subscriptionId: text("subscription_id").notNull(),
    /** Stripe's own status: active, trialing, past_due, paused, canceled, unpaid, incomplete, incomplete_expired. */
    status: text("status").notNull(),
    plan: text("plan"),
    priceId: text("price_id"),
    quantity: integer("quantity").notNull().default(1),
    cancelAtPeriodEnd: integer("cancel_at_period_end", { mode: "boolean" }).notNull().default(false),
    currentPeriodEnd: text("current_period_end"),
    syncedAt: text("synced_at").notNull(),
  },
  (t) => [uniqueIndex("stripe_subscriptions_subscription").on(t.subscriptionId), index("stripe_subscriptions_customer").on(t.customerId)],
);

/** Stripe webhook events already applied: a replayed delivery changes nothing. */
export const stripeEvents = sqliteTable("stripe_events", {
  id: text("id").primaryKey(),
  type: text("type").notNull(),
  receivedAt: text("received_at").notNull(),
});

/**
 * One closed month of one organization: the overage billed after the month (the usage
 * endpoint's figures), and for Stripe organizations the invoice item that carries it. The
 * primary key is what makes a close happen once.
 */
export const billingCloses = sqliteTable(
  "billing_closes",
  {
    organizationId: integer("organization_id").notNull(),
    /** `YYYY-MM`. */
    month: text("month").notNull(),
    plan: text("plan"),
    usedCharacters: integer("used_characters").notNull(),
    overageCharacters: integer("overage_characters").notNull(),
    overageCents: integer("overage_cents").notNull(),
    /** `manual` (the operator invoices from this row) or `stripe` (an invoice item was added). */
    provider: text("provider").notNull(),
    invoiceItemId: text("invoice_item_id"),
    closedAt: text("closed_at").notNull(),
    /** The month's credits the close took off the overage (`credits`); 0 for closes made before credits. */
    creditedCharacters: integer("credited_characters").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.month] }), index("billing_closes_month").on(t.month)],
);

/**
 * Characters the operator credits an organization for a month (a runaway job cancelled, an
 * incident): taken off the month's overage at its close, never below zero, never carried over.
 * Refused once the month is closed (src/ops/credits.ops.ts).
 */
export const credits = sqliteTable(
  "credits",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    organizationId: integer("organization_id").notNull(),
    /** `YYYY-MM`. */
    month: text("month").notNull(),
    characters: integer("characters").notNull(),
    /** Why, as the customer sees it on the usage page (emptied when the organization is erased). */
    reason: text("reason").notNull(),
    /** Who granted it (`admin:<name>`). */
    actor: text("actor").notNull(),
    createdAt: text("created_at").notNull(),
  },
  (t) => [index("credits_org_month").on(t.organizationId, t.month)],
);

// ------------------------------------------------------------------ webhooks (migrations/control/0004_webhooks.sql)

/** A site's one webhook endpoint. The secret signs deliveries, so it is stored as issued. */
export const webhookEndpoints = sqliteTable("webhook_endpoints", {
  siteId: integer("site_id").primaryKey(),
  url: text("url").notNull(),
  /** The subscribed event types; null means all. */
  events: text("events", { mode: "json" }).$type<string[] | null>(),
  secret: text("secret").notNull(),
  /** After a rotation the old secret signs too, until `previous_until`. */
  previousSecret: text("previous_secret"),
  previousUntil: text("previous_until"),
  createdAt: text("created_at").notNull(),
  updatedAt: text("updated_at").notNull(),
  /** The first failed attempt since the last success; three days of it disable the endpoint. */
  failingSince: text("failing_since"),
  disabledAt: text("disabled_at"),
});

/** The delivery log; the last 100 per site are kept. `id` is the stable `webhook-id`. */
export const webhookDeliveries = sqliteTable(
  "webhook_deliveries",
  {
    id: text("id").primaryKey(),
    siteId: integer("site_id").notNull(),
    event: text("event").notNull(),
    /** The body exactly as signed and sent, every attempt. */
    payload: text("payload").notNull(),
    createdAt: text("created_at").notNull(),
    attempts: integer("attempts").notNull().default(0),
    /** `pending`, `delivered` or `failed`. */
    status: text("status").notNull().default("pending"),
    statusCode: integer("status_code"),
    durationMs: integer("duration_ms"),
    error: text("error"),
    nextAttemptAt: text("next_attempt_at"),
  },
  (t) => [index("webhook_deliveries_site").on(t.siteId, t.createdAt), index("webhook_deliveries_pending").on(t.status, t.nextAttemptAt)],
);

/** Per-site marks: `results.available` (ms of its latest send), `usage.threshold:<month>:<percent>`. */
export const webhookMarks = sqliteTable(
  "webhook_marks",
  {
    siteId: integer("site_id").notNull(),
    mark: text("mark").notNull(),
    at: integer("at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.siteId, t.mark] })],
);

// ------------------------------------------------------------------ accounts and mail

/**
 * One-time links and short-lived steps of a person's account: `reset` (password reset, 1 hour),
 * `verify` (email verification, 24 hours), `mfa` (password accepted, second factor awaited,
 * 10 minutes) and `totp_setup` (a secret shown for set-up, kept in `data` until a first code
 * confirms it). Only the SHA-256 of the token is stored.
 */
export const accountTokens = sqliteTable(
  "account_tokens",
  {
    tokenHash: text("token_hash").primaryKey(),
    purpose: text("purpose").notNull(),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id),
    createdAt: text("created_at").notNull(),
    expiresAt: text("expires_at").notNull(),
    usedAt: text("used_at"),
    data: text("data"),
  },
  (t) => [index("account_tokens_user").on(t.userId, t.purpose)],
);

/** Two-factor recovery codes: 10 per person, only their SHA-256, each usable once. */
export const recoveryCodes = sqliteTable(
  "recovery_codes",
  {
    userId: integer("user_id")
      .notNull()
      .references(() => users.id),
    codeHash: text("code_hash").notNull(),
    usedAt: text("used_at"),
  },
  (t) => [primaryKey({ columns: [t.userId, t.codeHash] })],
);

/**
 * Mails that did not go out through the binding: `outbox` (the local mailbox, DEV_MAILBOX or
 * no binding: shown at /dashboard/dev/mail), `retry` (the binding failed once; the cron tries
 * again), `sent` (sent on the retry) and `failed` (the retry failed too; logged, given up).
 */
export const mailOutbox = sqliteTable(
  "mail_outbox",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    kind: text("kind").notNull(),
    to: text("to").notNull(),
    subject: text("subject").notNull(),
    text: text("text").notNull(),
    html: text("html").notNull(),
    status: text("status").notNull(),
    attempts: integer("attempts").notNull().default(0),
    lastError: text("last_error"),
    createdAt: text("created_at").notNull(),
  },
  (t) => [index("mail_outbox_status").on(t.status, t.id), index("mail_outbox_to").on(t.to, t.id)],
);

/** Mails that go once (usage at 80 % / 100 % a month, a day's digest, a job's end): the key of each one sent. */
export const mailOnce = sqliteTable("mail_once", {
  key: text("key").primaryKey(),
  createdAt: text("created_at").notNull(),
});

/** Jobs started in the dashboard, and by whom: the person is mailed when the job ends. */
export const jobStarters = sqliteTable(
  "job_starters",
  {
    siteId: integer("site_id").notNull(),
    jobId: integer("job_id").notNull(),
    userId: integer("user_id").notNull(),
    createdAt: text("created_at").notNull(),
    notifiedAt: text("notified_at"),
  },
  (t) => [primaryKey({ columns: [t.siteId, t.jobId] }), index("job_starters_open").on(t.notifiedAt)],
);

/**
 * Mails a person or an outsider can make the service send (invitations and their resends,
 * sign-up's "you already have an account"): one row per mail and budget it counts against
 * (`org:…`, `inviter:…`, `to:…`), kept a day, so each budget is a sliding 24-hour window
 * (control/mail-budget.control.ts).
 */
export const mailBudget = sqliteTable(
  "mail_budget",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    key: text("key").notNull(),
    at: text("at").notNull(),
  },
  (t) => [index("mail_budget_key_at").on(t.key, t.at)],
);

// ------------------------------------------------------------------ scheduled work (docs/decisions.md "Going live")

/**
 * Where a paged cron task stopped: the last organization id it finished (`month_close:<YYYY-MM>`,
 * `usage_mails`, `digest:<day>`, `cleanup`). The next invocation goes on from there, so no
 * invocation runs more than its D1 query budget (src/ops/scheduled.ops.ts).
 */
export const cronCursors = sqliteTable("cron_cursors", {
  name: text("name").primaryKey(),
  position: integer("position").notNull(),
  updatedAt: text("updated_at").notNull(),
});
