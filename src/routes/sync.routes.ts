/** The connector's push side and status reads (spec: units, status, handshake, site). */

import { createRoute, OpenAPIHono } from "@hono/zod-openapi";
import { EXAMPLES } from "../api/examples";
import {
  AnyUnitKeyParam,
  BatchIn,
  BatchOut,
  HandshakeIn,
  HandshakeOut,
  Site,
  SiteStatusOut,
  StatusQuery,
  SyncOut,
  UnitKeyParam,
  UnitSnapshotIn,
  UnitStatusOut,
  UnitStatusQuery,
  UnitsQuery,
  UnitsWorkOut,
  UnitTextsIn,
  UnitTextsOut,
} from "../api/schemas";
import type { App } from "../context";
import { LIMITS } from "../limits";
import { dashboardBase } from "../links";
import { pushBatch, pushUnit } from "../ops/push.ops";
import { BATCH_PATH } from "./body-bounds";
import { authErrors, bearer, body, bodyErrors, errors, notFoundResponse, ok, siteObject, storageErrors } from "./common";

export const syncRoutes = new OpenAPIHono<App>();

syncRoutes.openapi(
  createRoute({
    method: "get",
    path: "/v1/site",
    operationId: "getSite",
    summary: "Get the key's site",
    description:
      "The site the API key belongs to: its source and target languages (with each language's engine, formality and whether it is writable), enabled adapters and engines. " +
      "A cheap way for a connector to check its key. A target language is writable only if it is writable in the dashboard and was listed in `languages` of the latest handshake; only writable languages are translated.",
    tags: ["site"],
    security: bearer,
    responses: { 200: ok(Site, "The site", EXAMPLES.site), ...authErrors },
  }),
  async (c) => {
    const { stub, site } = siteObject(c);
    return c.json(await stub.site(site), 200);
  },
);

syncRoutes.openapi(
  createRoute({
    method: "post",
    path: "/v1/handshake",
    operationId: "sendHandshake",
    summary: "Introduce the connector",
    description:
      "Send at start-up and whenever the connector's settings change. The service records `connector_version`, adapters and capabilities, and answers the site with its review and QA modes. " +
      "A target language becomes writable only if it is writable in the dashboard **and** listed in `languages`; before the first handshake, or when `languages` is omitted, no language is writable. " +
      "Mismatches (a different source language, target languages missing on the website) come back as `warnings`. Unknown capabilities are ignored; `capabilities` in the answer lists the ones understood.",
    tags: ["site"],
    security: bearer,
    request: body(HandshakeIn, EXAMPLES.handshakeIn),
    responses: { 200: ok(HandshakeOut, "The site as the connector should see it", EXAMPLES.handshakeOut), ...errors, ...bodyErrors },
  }),
  async (c) => {
    const { stub, site } = siteObject(c);
    return c.json(await stub.handshake(site, c.req.valid("json")), 200);
  },
);

syncRoutes.openapi(
  createRoute({
    method: "put",
    path: "/v1/units",
    operationId: "pushUnit",
    summary: "Push a unit's current source state",
    description:
      "The body is the complete current state of one unit, every segment in the source language. New keys are added; keys whose text changed are changed and their translations become stale; " +
      "keys absent from the snapshot are removed (and come back if they reappear); structure-only changes (position, parent_key, kind …) are stored without staleness. " +
      "Idempotent: an unchanged snapshot changes nothing and may be retried freely. `translations` imports existing target-language texts only into languages that are still empty. " +
      "A unit whose adapter is not enabled for the site is refused with 422.",
    tags: ["sync"],
    security: bearer,
    request: body(UnitSnapshotIn, EXAMPLES.unit),
    responses: { 200: ok(SyncOut, "What the push changed", EXAMPLES.sync), ...errors, ...bodyErrors, ...storageErrors },
  }),
  async (c) => {
    return c.json(await pushUnit(c.env, c.get("site"), c.req.valid("json")), 200);
  },
);

// The batch is documented as BatchIn, but validated unit by unit: one bad unit must not
// refuse the others, so it becomes `ok: false` in its place instead of a 422.
syncRoutes.openAPIRegistry.registerPath({
  method: "put",
  path: "/v1/units/batch",
  operationId: "pushBatch",
  summary: "Push up to 100 units",
  description:
    "1 to 100 unit snapshots, each applied on its own exactly as `pushUnit` would: a failing unit does not block the others. " +
    "The answer has one item per sent unit, in the order sent, with `ok: true` and `result`, or `ok: false` and `error` (a unit that fails validation or whose adapter is not enabled is reported in place, not as a 422). " +
    "Only a body that is not `{units: [...]}` with 1 to 100 items is a 422. Send batches one after another, not in parallel. The body must stay under 10 MB.",
  tags: ["sync"],
  security: bearer,
  request: body(BatchIn, EXAMPLES.batchIn),
  responses: { 200: ok(BatchOut, "One item per sent unit, in the order sent", EXAMPLES.batchOut), ...errors, ...bodyErrors, ...storageErrors },
});
syncRoutes.put(BATCH_PATH, async (c) => {
  return c.json(await pushBatch(c.env, c.get("site"), await c.req.arrayBuffer()), 200);
});

syncRoutes.openapi(
  createRoute({
    method: "delete",
    path: "/v1/units/{external_key}",
    operationId: "deleteUnit",
    summary: "Delete a unit",
    description:
      "Deletes the unit: it leaves status counts, jobs and results. Always answers 204, also for unknown or already deleted keys. " +
      "Pushing the same key again restores the unit with its translations (within 30 days).",
    tags: ["sync"],
    security: bearer,
    request: { params: AnyUnitKeyParam },
    // No 422: any key is accepted (AnyUnitKeyParam).
    responses: { 204: { description: "Deleted (also for unknown or already deleted keys)" }, ...authErrors },
  }),
  async (c) => {
    const { stub, site } = siteObject(c);
    await stub.deleteUnit(site, c.req.valid("param").external_key);
    return c.body(null, 204);
  },
);

syncRoutes.openapi(
  createRoute({
    method: "get",
    path: "/v1/status",
    operationId: "getStatus",
    summary: "Count translation states per language",
    description:
      "Counts per target language across every unit of the site (or the units whose key starts with `prefix`): ok, stale, review, missing and attention. " +
      "A segment is in exactly one state per language; precedence when several apply: missing, then stale, then attention, then review, then ok.",
    tags: ["sync"],
    security: bearer,
    request: { query: StatusQuery },
    responses: { 200: ok(SiteStatusOut, "Counts per target language", EXAMPLES.siteStatus), ...errors },
  }),
  async (c) => {
    const { stub, site } = siteObject(c);
    // The glossary count is held by the site object (src/site/jobs/glossary-copy.ts): no D1 read here.
    return c.json(await stub.status(site, c.req.valid("query").prefix), 200);
  },
);

syncRoutes.openapi(
  createRoute({
    method: "get",
    path: "/v1/units",
    operationId: "listUnitsWithWork",
    summary: "List units with work",
    description:
      "Units with something not up to date (missing, stale, in review, or held back by QA), listing only the languages with work; `prefix` and `language` narrow the list. " +
      "`state` lists only units with that kind of work (in `language` when given): `missing` and `stale` are what the next delta job translates, `review` what waits for an editor on the site, `attention` what is held back by QA in the dashboard. " +
      "A listed unit is the same item as in the list without `state` (all its languages with work and their counts). " +
      "Paginate by passing `next_cursor` as `cursor` until it is null (with the same `prefix`, `language` and `state`). A malformed cursor is a 422.",
    tags: ["sync"],
    security: bearer,
    request: { query: UnitsQuery },
    responses: { 200: ok(UnitsWorkOut, "A page of units with work", EXAMPLES.unitsWork), ...errors },
  }),
  async (c) => {
    const { stub, site } = siteObject(c);
    return c.json(await stub.unitsWithWork(site, c.req.valid("query"), dashboardBase(c)), 200);
  },
);

syncRoutes.openapi(
  createRoute({
    method: "get",
    path: "/v1/units/{external_key}/status",
    operationId: "getUnitStatus",
    summary: "Get a unit's segment × language states",
    description:
      "The state of every segment of one unit in every target language, with the QA findings of current translations and the languages held back for review in the dashboard. " +
      "`include=text,results` adds, per segment, `text` (the current source) and `results` (per language, the current translation: its result `id`, `text`, `origin` and `status`), " +
      "so a connector without a database of its own finds the result ids to send to `POST /v1/reviews`. Without `include` the answer has neither field. " +
      "An unknown or deleted unit is a 404.",
    tags: ["sync"],
    security: bearer,
    request: { params: UnitKeyParam, query: UnitStatusQuery },
    responses: {
      200: {
        description: "The unit's state matrix",
        content: {
          "application/json": {
            schema: UnitStatusOut,
            examples: {
              default: { summary: "Without include", value: EXAMPLES.unitStatus },
              included: { summary: "With include=text,results", value: EXAMPLES.unitStatusIncluded },
            },
          },
        },
      },
      ...errors,
      ...notFoundResponse,
    },
  }),
  async (c) => {
    const { stub, site } = siteObject(c);
    const { include } = c.req.valid("query");
    return c.json(await stub.unitStatus(site, c.req.valid("param").external_key, dashboardBase(c), [...include]), 200);
  },
);

syncRoutes.openapi(
  createRoute({
    method: "post",
    path: "/v1/units/texts",
    operationId: "getUnitTexts",
    summary: "Read the source texts of up to 100 units",
    description:
      "**An extension of version 1.** The current segments (key and source text, by position) of up to 100 units in one call, for a connector that splits documents into blocks: " +
      "it passes a unit's segments to the splitter (`splitMarkdown(doc, { previous })`), so an edited block keeps its key and its translation becomes stale instead of the block being new. " +
      "A sync of N changed documents costs ⌈N/100⌉ of these calls and no local state. Units are answered in the order asked; keys that name no unit (never pushed, or deleted) are listed in `unknown`. " +
      `An answer carries at most ${LIMITS.sourceTextsChars.toLocaleString("en")} characters of text (the first unit always): units past that are listed in \`more\`, to be asked again. ` +
      "A read: nothing changes, and it may be retried freely (POST only because 100 keys do not fit a URL).",
    tags: ["sync"],
    security: bearer,
    request: body(UnitTextsIn, EXAMPLES.unitTextsIn),
    responses: { 200: ok(UnitTextsOut, "The units' segments and source texts", EXAMPLES.unitTextsOut), ...errors, ...bodyErrors },
  }),
  async (c) => {
    const { stub, site } = siteObject(c);
    return c.json(await stub.sourceTexts(site, c.req.valid("json").keys), 200);
  },
);
