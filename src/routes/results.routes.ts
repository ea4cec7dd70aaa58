/** Delivery (spec "Results", "Acknowledge", "Reviews") and the attention list. */
import { createRoute, OpenAPIHono } from "@hono/zod-openapi";
import { EXAMPLES } from "../api/examples";
import { AckIn, AckOut, AttentionOut, AttentionQuery, ResultsOut, ResultsQuery, ReviewsIn, ReviewsOut } from "../api/schemas";
import type { App } from "../context";
import { dashboardBase } from "../links";
import { bearer, body, bodyErrors, errors, ok, siteObject } from "./common";

export const resultRoutes = new OpenAPIHono<App>();

resultRoutes.openapi(
  createRoute({
    method: "get",
    path: "/v1/results",
    operationId: "listResults",
    summary: "List results ready to deliver",
    description:
      "Translations ready to be written on the site as drafts or suggestions and not yet acknowledged (`unit` narrows to one unit). Only results for the current source text are listed: " +
      "if the source changed after translation the result is not listed and the next job translates the segment again. Delivery is at least once: unacknowledged results are listed again, " +
      "and a newer result for the same segment and language supersedes the earlier one. Paginate with `next_cursor` until it is null. " +
      "For connectors that declared `whole_unit`, a unit's results in one language are listed only once all of them are ready, and a page never splits them.",
    tags: ["results"],
    security: bearer,
    request: { query: ResultsQuery },
    responses: { 200: ok(ResultsOut, "A page of results", EXAMPLES.results), ...errors },
  }),
  async (c) => {
    const { stub, site } = siteObject(c);
    return c.json(await stub.results(site, c.req.valid("query")), 200);
  },
);

resultRoutes.openapi(
  createRoute({
    method: "post",
    path: "/v1/results/ack",
    operationId: "ackResults",
    summary: "Acknowledge delivered results",
    description:
      "Acknowledged ids leave `listResults` and count as in review (a draft or suggestion exists on the site). Unknown or superseded ids do nothing, and repeating is safe: " +
      "`acknowledged` counts the request's ids that are current results, including ones acknowledged before, so a retried request gets the same answer.",
    tags: ["results"],
    security: bearer,
    request: body(AckIn, EXAMPLES.ackIn),
    responses: { 200: ok(AckOut, "How many ids are acknowledged", EXAMPLES.ackOut), ...errors, ...bodyErrors },
  }),
  async (c) => {
    const { stub, site } = siteObject(c);
    return c.json(await stub.acknowledge(site, c.req.valid("json").ids), 200);
  },
);

resultRoutes.openapi(
  createRoute({
    method: "post",
    path: "/v1/reviews",
    operationId: "submitReviews",
    summary: "Report editors' reviews",
    description:
      "Editors' decisions on delivered results. `approved` makes the segment ok: with `text` (the final published text) it is stored as origin `human` and added to the translation memory; without it the result is approved as is. " +
      "`rejected` makes it missing again, so the next delta job translates it. Results waiting for review (acknowledged or not) are updated; ids that are unknown, superseded or not waiting for review are returned in `ignored`.",
    tags: ["reviews"],
    security: bearer,
    request: body(ReviewsIn, EXAMPLES.reviewsIn),
    responses: { 200: ok(ReviewsOut, "What was applied and what was ignored", EXAMPLES.reviewsOut), ...errors, ...bodyErrors },
  }),
  async (c) => {
    const { stub, site } = siteObject(c);
    return c.json(await stub.reviews(site, c.req.valid("json").reviews), 200);
  },
);

resultRoutes.openapi(
  createRoute({
    method: "get",
    path: "/v1/attention",
    operationId: "listAttention",
    summary: "List translations held back by QA",
    description:
      "Translations with QA errors that are not delivered but held back for review in the dashboard (`qa_mode` `separate`, or connectors that did not declare `qa_errors`), with the source text, the findings and a dashboard link. " +
      "An item leaves the list when it is fixed or discarded in the dashboard, or when its source text changes. Paginate with `next_cursor` until it is null.",
    tags: ["quality"],
    security: bearer,
    request: { query: AttentionQuery },
    responses: { 200: ok(AttentionOut, "A page of translations held back for QA review in the dashboard", EXAMPLES.attention), ...errors },
  }),
  async (c) => {
    const { stub, site } = siteObject(c);
    return c.json(await stub.attention(site, c.req.valid("query"), dashboardBase(c)), 200);
  },
);
