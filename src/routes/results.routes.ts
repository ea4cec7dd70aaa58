/** Delivery (spec "Results", "Acknowledge", "Reviews") and the attention list. */
import { createRoute, OpenAPIHono } from "@hono/zod-openapi";
import { AckIn, AckOut, AttentionOut, AttentionQuery, ResultsOut, ResultsQuery, ReviewsIn, ReviewsOut } from "../api/schemas";
import type { App } from "../context";
import { bearer, body, dashboardBase, errors, ok, siteObject } from "./common";

export const resultRoutes = new OpenAPIHono<App>();

resultRoutes.openapi(
  createRoute({ method: "get", path: "/v1/results", security: bearer, request: { query: ResultsQuery }, responses: { 200: ok(ResultsOut), ...errors } }),
  async (c) => {
    const { stub, site } = siteObject(c);
    return c.json(await stub.results(site, c.req.valid("query")), 200);
  },
);

resultRoutes.openapi(
  createRoute({ method: "post", path: "/v1/results/ack", security: bearer, request: body(AckIn), responses: { 200: ok(AckOut), ...errors } }),
  async (c) => {
    const { stub, site } = siteObject(c);
    return c.json(await stub.acknowledge(site, c.req.valid("json").ids), 200);
  },
);

resultRoutes.openapi(
  createRoute({ method: "post", path: "/v1/reviews", security: bearer, request: body(ReviewsIn), responses: { 200: ok(ReviewsOut), ...errors } }),
  async (c) => {
    const { stub, site } = siteObject(c);
    return c.json(await stub.reviews(site, c.req.valid("json").reviews), 200);
  },
);

resultRoutes.openapi(
  createRoute({
    method: "get",
    path: "/v1/attention",
    security: bearer,
    request: { query: AttentionQuery },
    responses: { 200: ok(AttentionOut, "Translations held back for QA review in the dashboard"), ...errors },
  }),
  async (c) => {
    const { stub, site } = siteObject(c);
    return c.json(await stub.attention(site, c.req.valid("query"), dashboardBase(c)), 200);
  },
);
