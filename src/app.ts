/**
 * The Worker: one Hono app. It authenticates, validates with the zod schemas and calls one
 * method on the site's Durable Object. Every error leaves through `renderError`.
 */
import { createRoute, OpenAPIHono } from "@hono/zod-openapi";
import { bodyLimit } from "hono/body-limit";
import { methodNotAllowed } from "hono/method-not-allowed";
import { requestId } from "hono/request-id";
import { validationDetail } from "./api/issues";
import { HealthOut } from "./api/schemas";
import type { App } from "./context";
import { controlDb } from "./control/db";
import { authenticate } from "./control/keys";
import { ApiError, ensureErrorBody, errorBody, renderError, unauthorized } from "./errors";
import { LIMITS } from "./limits";
import { adminRoutes } from "./routes/admin.routes";
import { ok } from "./routes/common";
import { jobRoutes } from "./routes/jobs.routes";
import { resultRoutes } from "./routes/results.routes";
import { syncRoutes } from "./routes/sync.routes";

export const API_VERSION = "1";
const PUBLIC_PATHS = new Set(["/v1/health", "/v1/openapi.json"]);

export function createApp() {
  const app = new OpenAPIHono<App>({
    defaultHook: (result) => {
      if (!result.success) throw new ApiError(422, validationDetail(result.error, undefined, (result as { data?: unknown }).data));
    },
  });

  app.use(requestId());
  app.use(ensureErrorBody);
  app.use(methodNotAllowed({ app, onMethodNotAllowed: (c, methods) => {
    c.header("Allow", methods.join(", "));
    return errorBody(c, 405, `${c.req.method} is not allowed on ${c.req.path}; use ${methods.join(", ")}.`);
  } }));
  app.use(
    bodyLimit({
      // DESIGN.md: a body of 10 MB (10,485,760 bytes) or more is refused; hono refuses sizes above maxSize.
      maxSize: LIMITS.bodyBytes - 1,
      onError: (c) => errorBody(c, 413, `The request body is too large: the limit is ${LIMITS.bodyBytes} bytes (10 MB).`),
    }),
  );

  app.use("/v1/*", async (c, next) => {
    if (PUBLIC_PATHS.has(c.req.path)) return next();
    const header = c.req.header("authorization");
    if (!header) throw unauthorized("Missing API key: send Authorization: Bearer <key>.");
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!match) throw unauthorized("Malformed Authorization header: expected Bearer <key>.");
    const auth = await authenticate(controlDb(c.env.DB), match[1]);
    if (!auth) throw unauthorized("The API key is not valid (unknown, malformed or revoked).");
    if (auth.touch) c.executionCtx.waitUntil(auth.touch);
    c.set("site", auth.site);
    c.set("keyId", auth.keyId);
    await next();
  });

  app.openapi(
    createRoute({ method: "get", path: "/v1/health", responses: { 200: ok(HealthOut) } }),
    (c) => c.json({ status: "ok", api_version: API_VERSION }, 200),
  );

  app.route("/", syncRoutes);
  app.route("/", jobRoutes);
  app.route("/", resultRoutes);
  app.route("/", adminRoutes);

  app.openAPIRegistry.registerComponent("securitySchemes", "bearer", {
    type: "http",
    scheme: "bearer",
    description: "A site API key (tsk_…), created in the dashboard or through the admin API.",
  });
  app.openAPIRegistry.registerComponent("securitySchemes", "admin", { type: "http", scheme: "bearer", description: "The ADMIN_TOKEN secret." });
  app.doc31("/v1/openapi.json", {
    openapi: "3.1.0",
    info: { title: "Transync: hosted translation synchronisation", version: API_VERSION },
  });

  app.notFound((c) => errorBody(c, 404, `No such endpoint: ${c.req.method} ${c.req.path}.`));
  app.onError(renderError);
  return app;
}
