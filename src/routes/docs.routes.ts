/**
 * The API described: GET /v1/openapi.json (the OpenAPI 3.1 document, generated from the
 * routes and zod schemas) and GET /v1/docs (the reference page rendered from it by Scalar).
 * Both are public. The page loads Scalar's script from this Worker's static assets
 * (public/vendor/scalar/), never from a CDN.
 */
import type { OpenAPIHono } from "@hono/zod-openapi";
import { Scalar } from "@scalar/hono-api-reference";
import { DOCUMENT_CONFIG, fixNullableRefs } from "../api/openapi";
import type { App } from "../context";
import { docsCsp, setPageHeaders } from "../page-headers";
import { authErrors } from "./common";

export const SCALAR_SCRIPT = "/vendor/scalar/standalone.js";

const documents = new WeakMap<object, unknown>();

/** Registers the security schemes and both routes on the app; call after every API route is mounted. */
export function registerDocument(app: OpenAPIHono<App>, version: string) {
  app.openAPIRegistry.registerComponent("securitySchemes", "bearer", {
    type: "http",
    scheme: "bearer",
    description: "A site API key (`tsk_…`), created in the dashboard or through the admin API.",
  });
  app.openAPIRegistry.registerComponent("securitySchemes", "admin", { type: "http", scheme: "bearer", description: "The ADMIN_TOKEN secret." });

  app.openAPIRegistry.registerPath({
    method: "get",
    path: "/v1/openapi.json",
    operationId: "getOpenApiDocument",
    summary: "Get this OpenAPI document",
    description: "The OpenAPI 3.1 description of this API, generated from the same schemas that validate requests. Public.",
    tags: ["site"],
    security: [],
    responses: {
      200: { description: "The document", content: { "application/json": { schema: { type: "object", additionalProperties: true } } } },
      500: authErrors[500],
    },
  });
  app.openAPIRegistry.registerPath({
    method: "get",
    path: "/v1/docs",
    operationId: "getApiReference",
    summary: "Read the API reference",
    description: "An HTML page that renders this document for people (Scalar). Public.",
    tags: ["site"],
    security: [],
    responses: { 200: { description: "The reference page", content: { "text/html": { schema: { type: "string" } } } }, 500: authErrors[500] },
  });

  // Generated once per isolate: the routes do not change after start-up.
  app.get("/v1/openapi.json", (c) => {
    let doc = documents.get(app);
    if (!doc) documents.set(app, (doc = fixNullableRefs(app.getOpenAPI31Document({ ...DOCUMENT_CONFIG, info: { ...DOCUMENT_CONFIG.info, version } }))));
    return c.json(doc as object, 200);
  });
  // The dashboard's headers (same origin); Scalar's one inline script runs by a fresh nonce.
  app.get("/v1/docs", async (c, next) => {
    await next();
    const nonce = btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(16))));
    const html = (await c.res.text()).replace(/<script(?![^>]*\bsrc=)/g, `<script nonce="${nonce}"`);
    c.res = new Response(html, c.res);
    setPageHeaders(c, docsCsp(nonce));
  });
  app.get(
    "/v1/docs",
    Scalar((c) => ({
      url: "/v1/openapi.json",
      // "Try it" sends to the service that serves the page (the document's own servers are a
      // production placeholder and the default local address).
      servers: [{ url: new URL(c.req.url).origin, description: "This service" }],
      cdn: SCALAR_SCRIPT,
      pageTitle: "Transync API reference",
      withDefaultFonts: false,
      telemetry: false,
      defaultOpenAllTags: false,
      showDeveloperTools: "never",
      // The hosted AI agent and MCP generator send the document to Scalar's services: off.
      agent: { disabled: true },
      ...({ mcp: { disabled: true } } as object),
    })),
  );
}
