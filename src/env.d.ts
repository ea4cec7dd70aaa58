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
