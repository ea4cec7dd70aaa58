declare namespace Cloudflare {
  interface Env {
    SITE: DurableObjectNamespace<import("./index").SiteObject>;
    /** One memory per organization, shared by its sites (src/memory/). */
    ORG_MEMORY: DurableObjectNamespace<import("./index").OrgMemoryObject>;
    DB: D1Database;
    BLOBS: R2Bucket;
    AI?: Ai;
    ADMIN_TOKEN: string;
    /** Named operators' admin tokens: JSON `{name: sha256 hex of the token}`; the audit names them `admin:<name>`. */
    ADMIN_TOKENS?: string;
    /** Workers Rate Limiting bindings (wrangler.toml [[ratelimits]]). */
    KEY_LIMITER: RateLimit;
    AUTH_FAILURE_LIMITER: RateLimit;
    SIGNIN_LIMITER: RateLimit;
    /** Email Sending (wrangler.toml [[send_email]]); mail goes to the local outbox without it. */
    EMAIL?: SendEmail;
    /** The sender address of every mail (a domain onboarded to Email Sending). */
    EMAIL_FROM?: string;
    /** "true": mails go to the local outbox shown at /dashboard/dev/mail, never out. */
    DEV_MAILBOX?: string;
    /** "open": anyone can sign up at /dashboard/sign-up; "invite" (the default): invitations only. */
    SIGNUP?: string;
    /** Base of dashboard links; unset → the request's origin + /dashboard. */
    DASHBOARD_URL?: string;
    /** Billing through Stripe (both set) or by the operator (`manual`, the default). */
    STRIPE_SECRET_KEY?: string;
    STRIPE_WEBHOOK_SECRET?: string;
    /** Stripe Price ids of the plans (monthly, usd; `pro` is licensed per covered site). */
    STRIPE_PRICE_PRO?: string;
    STRIPE_PRICE_AGENCY?: string;
    STRIPE_PRICE_GROWTH?: string;
    STRIPE_PRICE_SCALE?: string;
    /** Points the Stripe SDK at a local fake (tests, the browser test): e.g. http://127.0.0.1:12111. */
    STRIPE_API_BASE?: string;
    /** Delay before a site's job alarm fires (0 in production; tests drive alarms themselves). */
    JOB_ALARM_DELAY_MS?: string;
    /** Webhook deliveries (src/webhooks/): producer and consumer in this Worker. */
    WEBHOOK_QUEUE: Queue<import("./webhooks/events").WebhookMessage>;
    /** `true` lets a webhook endpoint be plain http:// to a loopback host (local development only). */
    WEBHOOK_ALLOW_LOOPBACK?: string;
    /** Analytics Engine dataset of the events' data points (src/obs/metrics.ts); absent, no point is written. */
    METRICS?: AnalyticsEngineDataset;
    /** The deployed version (wrangler.toml [version_metadata]): in http.request lines and the deep health. */
    VERSION?: WorkerVersionMetadata;
    /** Most bytes a site's object storage may hold before pushes are refused (default 9 GB; src/site/size.ts). */
    SITE_STORAGE_LIMIT_BYTES?: string;
  }
}
interface Env extends Cloudflare.Env {}

declare module "*.sql" {
  const sql: string;
  export default sql;
}

declare namespace Cloudflare {
  interface GlobalProps {
    mainModule: typeof import("./index");
    durableNamespaces: "SiteObject";
  }
}
