/**
 * The Worker: one Hono app. It authenticates, validates with the zod schemas, and each handler
 * calls one operation of src/ops/ (which reaches the site's Durable Object through its stub).
 * Every error leaves through `renderError`.
 */
import { createRoute, OpenAPIHono } from "@hono/zod-openapi";
import { bodyLimit } from "hono/body-limit";
import { methodNotAllowed } from "hono/method-not-allowed";
import { matchedRoutes, type routePath } from "hono/route";
import { EXAMPLES } from "./api/examples";
import { validationDetail } from "./api/issues";
import { HealthOut } from "./api/schemas";
import { adminAuth, apiKeyAuth, declaredBodyLimit } from "./auth";
import { type Clock, systemClock } from "./clock";
import type { App } from "./context";
import { type HashPassword, hashPassword, PBKDF2_ITERATIONS } from "./control/passwords.control";
import { dashboard } from "./dashboard";
import { ApiError, ensureErrorBody, errorBody, renderError } from "./errors";
import { LIMITS } from "./limits";
import { withRequestHost } from "./local-host";
import { logContext, withLogContext } from "./obs/log";
import { record } from "./obs/metrics";
import { adminRoutes } from "./routes/admin.routes";
import { boundedJsonBody } from "./routes/body-bounds";
import { authErrors, ok } from "./routes/common";
import { registerDocument } from "./routes/docs.routes";
import { jobRoutes } from "./routes/jobs.routes";
import { oncallRoutes } from "./routes/oncall.routes";
import { resultRoutes } from "./routes/results.routes";
import { stripeWebhookRoutes } from "./routes/stripe-webhook.routes";
import { supportRoutes } from "./routes/support.routes";
import { syncRoutes } from "./routes/sync.routes";
import { describeWebhookEvents, webhookRoutes } from "./routes/webhooks.routes";

export const API_VERSION = "1";
export const HSTS = "max-age=31536000; includeSubDomains";

/**
 * The pattern of the route the request was routed to (`/v1/jobs/:id`), never the raw path (ids and
 * keys stay out of the logs' route field): the last matched route that is not a middleware, even
 * when a middleware answered first (a 401 before the handler ran). No route: `(unmatched)` (a 404 or 405).
 */
function matchedRoute(c: Parameters<typeof routePath>[0]): string {
  const route = matchedRoutes(c).findLast((r) => r.method !== "ALL");
  return route?.path ?? "(unmatched)";
}

/** The site or organization an admin path is about (`/admin/v1/sites/42/…`, `/admin/v1/organizations/3/…`). */
function adminTarget(path: string): { site_id?: number | string; org_id?: number | string } {
  const m = /^\/admin\/v1\/(sites|organizations)\/(\d{1,15})(?:\/|$)/.exec(path);
  if (!m) return {};
  return m[1] === "sites" ? { site_id: Number(m[2]) } : { org_id: Number(m[2]) };
}

export function createApp(deps: { clock?: Clock; now?: () => number; passwordIterations?: number } = {}) {
  const clock = deps.clock ?? systemClock;
  const now = deps.now ?? (() => clock().getTime());
  const iterations = deps.passwordIterations ?? PBKDF2_ITERATIONS;
  const hashNew: HashPassword = (password) => hashPassword(password, iterations);
  const app = new OpenAPIHono<App>({
    defaultHook: (result) => {
      if (!result.success) throw new ApiError(422, validationDetail(result.error, undefined, (result as { data?: unknown }).data));
    },
  });

  // The request id is always the service's own: a client's X-Request-Id is neither echoed nor
  // quoted (hono's requestId() would adopt it), so logs and "quote this id" texts stay ours.
  //
  // Every request ends with one `http.request` line (and data point) whose request_id is the
  // X-Request-Id answered; lines written while it is served, in the Worker and in the site
  // object, carry the same id (src/obs/log.ts, withLogContext).
  app.use(async (c, next) => {
    const id = crypto.randomUUID();
    const started = Date.now();
    c.set("requestId", id);
    c.set("clock", clock);
    c.set("hashPassword", hashNew);
    c.header("X-Request-Id", id);
    await withLogContext({ request_id: id }, async () => {
      await next();
      // Every answer over https (API, dashboard, admin): browsers keep to https for a year, subdomains too.
      if (new URL(c.req.url).protocol === "https:") {
        try {
          c.res.headers.set("Strict-Transport-Security", HSTS);
        } catch {
          // An answer with immutable headers (one passed through from a fetch): copied first.
          c.res = new Response(c.res.body, c.res);
          c.res.headers.set("Strict-Transport-Security", HSTS);
        }
      }
      const site = c.get("site") as App["Variables"]["site"] | undefined;
      const status = c.res.status;
      // An operator's request names them (`admin:<name>`) and the site or organization in its path.
      const actor = c.get("adminActor") as App["Variables"]["adminActor"] | undefined;
      // (or, for one whose path names none, what the operation found: a key look-up's site)
      const target = actor ? { ...logContext(), ...adminTarget(c.req.path) } : undefined;
      record(c.env, status >= 500 ? "error" : "info", "http.request", {
        method: c.req.method,
        route: matchedRoute(c),
        status,
        ms: Date.now() - started,
        site_id: site?.id ?? target?.site_id,
        org_id: site?.organizationId ?? target?.org_id,
        key_prefix: c.get("keyPrefix"),
        actor,
        // (no env when the app is asked without bindings: scripts/openapi.mjs)
        version: c.env?.VERSION?.id,
      });
    });
  });
  // The request's host, for the switches honoured only in local development (src/local-host.ts).
  app.use((c, next) => withRequestHost(new URL(c.req.url).hostname, next));
  app.use(ensureErrorBody);
  app.use(
    methodNotAllowed({
      app,
      onMethodNotAllowed: (c, methods) => {
        c.header("Allow", methods.join(", "));
        return errorBody(c, 405, `${c.req.method} is not allowed on ${c.req.path}; use ${methods.join(", ")}.`);
      },
    }),
  );
  // Order of work (src/auth.ts): a declared oversized body, then who is calling, then the body.
  app.use(declaredBodyLimit);
  app.use("/v1/*", apiKeyAuth(now));
  app.use("/admin/*", adminAuth);
  app.use(
    bodyLimit({
      // docs/decisions.md "Requests: keys, limits, hostile input, errors": a body of 10 MB (10,485,760 bytes) or more is refused; hono refuses sizes above maxSize.
      maxSize: LIMITS.bodyBytes - 1,
      onError: (c) => errorBody(c, 413, `The request body is too large: the limit is ${LIMITS.bodyBytes} bytes (10 MB).`),
    }),
  );
  app.use("/v1/*", boundedJsonBody);
  app.use("/admin/*", boundedJsonBody);

  app.openapi(
    createRoute({
      method: "get",
      path: "/v1/health",
      operationId: "getHealth",
      summary: "Check the service",
      description: "Answers while the Worker runs, with the running `api_version`. Needs no key and touches no storage.",
      tags: ["site"],
      security: [],
      responses: { 200: ok(HealthOut, "The service is up", EXAMPLES.health), 500: authErrors[500] },
    }),
    (c) => c.json({ status: "ok", api_version: API_VERSION }, 200),
  );

  app.route("/", syncRoutes);
  app.route("/", jobRoutes);
  app.route("/", resultRoutes);
  app.route("/", webhookRoutes);
  app.route("/", adminRoutes);
  app.route("/", oncallRoutes);
  app.route("/", supportRoutes);
  app.route("/", stripeWebhookRoutes);
  app.route("/dashboard", dashboard);

  describeWebhookEvents(app);
  registerDocument(app, API_VERSION);

  app.notFound((c) => errorBody(c, 404, `No such endpoint: ${c.req.method} ${c.req.path}.`));
  app.onError(renderError);
  return app;
}
