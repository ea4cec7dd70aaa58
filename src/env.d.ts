declare namespace Cloudflare {
  interface Env {
    SITE: DurableObjectNamespace<import("./index").SiteObject>;
    DB: D1Database;
    BLOBS: R2Bucket;
    AI?: Ai;
    ADMIN_TOKEN: string;
    /** Workers Rate Limiting bindings (wrangler.toml [[ratelimits]]). */
    KEY_LIMITER: RateLimit;
    AUTH_FAILURE_LIMITER: RateLimit;
    SIGNIN_LIMITER: RateLimit;
    /** Base of dashboard links; unset → the request's origin + /dashboard. */
    DASHBOARD_URL?: string;
    /** Delay before a site's job alarm fires (0 in production; tests drive alarms themselves). */
    JOB_ALARM_DELAY_MS?: string;
    /** Webhook deliveries (src/webhooks/): producer and consumer in this Worker. */
    WEBHOOK_QUEUE: Queue<import("./webhooks/events").WebhookMessage>;
    /** `true` lets a webhook endpoint be plain http:// to a loopback host (local development only). */
    WEBHOOK_ALLOW_LOOPBACK?: string;
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
