/**
 * The Worker: one Hono app. It authenticates, validates with the zod schemas and calls one
 * method on the site's Durable Object. Every error leaves through `renderError`.
 */
import { createRoute, OpenAPIHono } from "@hono/zod-openapi";
import { bodyLimit } from "hono/body-limit";
import { methodNotAllowed } from "hono/method-not-allowed";
import { EXAMPLES } from "./api/examples";
import { validationDetail } from "./api/issues";
import { HealthOut } from "./api/schemas";
import { adminAuth, apiKeyAuth, declaredBodyLimit } from "./auth";
import { type Clock, systemClock } from "./clock";
import type { App } from "./context";
import { dashboard } from "./dashboard";
import { ApiError, ensureErrorBody, errorBody, renderError } from "./errors";
import { LIMITS } from "./limits";
import { withRequestHost } from "./local-host";
import { adminRoutes } from "./routes/admin.routes";
import { boundedJsonBody } from "./routes/body-bounds";
import { authErrors, ok } from "./routes/common";
import { registerDocument } from "./routes/docs.routes";
import { jobRoutes } from "./routes/jobs.routes";
import { resultRoutes } from "./routes/results.routes";
import { stripeWebhookRoutes } from "./routes/stripe-webhook.routes";
import { syncRoutes } from "./routes/sync.routes";
import { describeWebhookEvents, webhookRoutes } from "./routes/webhooks.routes";

export const API_VERSION = "1";

/**
 * `clock`: the service's clock, given to every handler as `c.var.clock` (production's reads the
 * system time; tests pass their own). `now`: the clock of the key cache and of address blocks,
 * by default the same clock.
 */
export function createApp(deps: { clock?: Clock; now?: () => number } = {}) {
  const clock = deps.clock ?? systemClock;
  const now = deps.now ?? (() => clock().getTime());
  const app = new OpenAPIHono<App>({
    defaultHook: (result) => {
      if (!result.success) throw new ApiError(422, validationDetail(result.error, undefined, (result as { data?: unknown }).data));
    },
  });

  // The request id is always the service's own: a client's X-Request-Id is neither echoed nor
  // quoted (hono's requestId() would adopt it), so logs and "quote this id" texts stay ours.
  app.use(async (c, next) => {
    const id = crypto.randomUUID();
    c.set("requestId", id);
    c.set("clock", clock);
    c.header("X-Request-Id", id);
    await next();
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
      // DESIGN.md: a body of 10 MB (10,485,760 bytes) or more is refused; hono refuses sizes above maxSize.
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
  app.route("/", stripeWebhookRoutes);
  app.route("/dashboard", dashboard);

  describeWebhookEvents(app);
  registerDocument(app, API_VERSION);

  app.notFound((c) => errorBody(c, 404, `No such endpoint: ${c.req.method} ${c.req.path}.`));
  app.onError(renderError);
  return app;
}
