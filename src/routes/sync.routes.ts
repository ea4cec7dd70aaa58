/** The connector's push side and status reads (spec: units, status, handshake, site). */
import { createRoute, OpenAPIHono } from "@hono/zod-openapi";
import {
  BatchEnvelope,
  BatchIn,
  BatchOut,
  HandshakeIn,
  HandshakeOut,
  Site,
  SiteStatusOut,
  StatusQuery,
  SyncOut,
  AnyUnitKeyParam,
  UnitKeyParam,
  UnitSnapshotIn,
  UnitsQuery,
  UnitStatusOut,
  UnitsWorkOut,
  type BatchItem,
  type UnitSnapshot,
} from "../api/schemas";
import { validationDetail } from "../api/issues";
import type { App } from "../context";
import type { SiteSettings } from "../control/sites";
import { invalid } from "../errors";
import { LIMITS } from "../limits";
import { bearer, body, errors, notFoundResponse, ok, siteObject } from "./common";

export const syncRoutes = new OpenAPIHono<App>();

function adapterRefusal(site: SiteSettings, unit: UnitSnapshot): string | undefined {
  if (!site.enabledAdapters.includes(unit.adapter))
    return `adapter "${unit.adapter}" is not enabled for this site (enabled: ${site.enabledAdapters.join(", ") || "none"})`;
}

syncRoutes.openapi(
  createRoute({ method: "get", path: "/v1/site", security: bearer, responses: { 200: ok(Site), ...errors } }),
  async (c) => {
    const { stub, site } = siteObject(c);
    return c.json(await stub.site(site), 200);
  },
);

syncRoutes.openapi(
  createRoute({ method: "post", path: "/v1/handshake", security: bearer, request: body(HandshakeIn), responses: { 200: ok(HandshakeOut), ...errors } }),
  async (c) => {
    const { stub, site } = siteObject(c);
    return c.json(await stub.handshake(site, c.req.valid("json")), 200);
  },
);

syncRoutes.openapi(
  createRoute({ method: "put", path: "/v1/units", security: bearer, request: body(UnitSnapshotIn), responses: { 200: ok(SyncOut), ...errors } }),
  async (c) => {
    const { stub, site } = siteObject(c);
    const unit = c.req.valid("json");
    const refusal = adapterRefusal(site, unit);
    if (refusal) throw invalid(refusal);
    return c.json(await stub.pushUnit(site, unit), 200);
  },
);

// The batch is documented as BatchIn, but validated unit by unit: one bad unit must not
// refuse the others, so it becomes `ok: false` in its place instead of a 422.
syncRoutes.openAPIRegistry.registerPath({
  method: "put",
  path: "/v1/units/batch",
  security: bearer,
  request: body(BatchIn),
  responses: { 200: ok(BatchOut), ...errors, 413: { description: "Body of 10 MB or more" } },
});
syncRoutes.put("/v1/units/batch", async (c) => {
  const { stub, site } = siteObject(c);
  const text = await c.req.text();
  const envelope = BatchEnvelope.safeParse(JSON.parse(text));
  if (!envelope.success) throw invalid(validationDetail(envelope.error));
  const out: (BatchItem | undefined)[] = [];
  const valid: UnitSnapshot[] = [];
  const slots: number[] = [];
  envelope.data.units.forEach((raw, i) => {
    const parsed = UnitSnapshotIn.safeParse(raw);
    const key = (raw as { external_key?: unknown })?.external_key;
    const externalKey = typeof key === "string" ? key.slice(0, LIMITS.unitKey) : "";
    if (!parsed.success) return void (out[i] = { external_key: externalKey, ok: false, result: null, error: validationDetail(parsed.error, `units[${i}]`, raw) });
    const refusal = adapterRefusal(site, parsed.data);
    if (refusal) return void (out[i] = { external_key: externalKey, ok: false, result: null, error: `units[${i}].${refusal}` });
    valid.push(parsed.data);
    slots.push(i);
  });
  if (valid.length) {
    let applied: BatchItem[];
    if (new TextEncoder().encode(text).length > LIMITS.inlineBatchBytes) {
      // Large bodies travel through R2, not over RPC; the site object deletes the object once applied.
      const blobKey = `batches/${site.id}/${crypto.randomUUID()}.json`;
      await c.env.BLOBS.put(blobKey, JSON.stringify({ units: valid }), { httpMetadata: { contentType: "application/json" } });
      try {
        applied = await stub.pushBatch(site, { blobKey });
      } finally {
        // The object deletes it once applied; if anything failed on the way, the customer's content must not stay behind.
        await c.env.BLOBS.delete(blobKey).catch(() => undefined);
      }
    } else applied = await stub.pushBatch(site, { units: valid });
    applied.forEach((item, j) => (out[slots[j]] = item));
  }
  return c.json({ results: out as BatchItem[] }, 200);
});

syncRoutes.openapi(
  createRoute({
    method: "delete",
    path: "/v1/units/{external_key}",
    security: bearer,
    request: { params: AnyUnitKeyParam },
    responses: { 204: { description: "Deleted (also for unknown or already deleted keys)" }, ...errors },
  }),
  async (c) => {
    const { stub, site } = siteObject(c);
    await stub.deleteUnit(site, c.req.valid("param").external_key);
    return c.body(null, 204);
  },
);

syncRoutes.openapi(
  createRoute({ method: "get", path: "/v1/status", security: bearer, request: { query: StatusQuery }, responses: { 200: ok(SiteStatusOut), ...errors } }),
  async (c) => {
    const { stub, site } = siteObject(c);
    // The glossary count is held by the site object (src/site/glossary.ts): no D1 read here.
    return c.json(await stub.status(site, c.req.valid("query").prefix), 200);
  },
);

syncRoutes.openapi(
  createRoute({ method: "get", path: "/v1/units", security: bearer, request: { query: UnitsQuery }, responses: { 200: ok(UnitsWorkOut), ...errors } }),
  async (c) => {
    const { stub, site } = siteObject(c);
    return c.json(await stub.unitsWithWork(site, c.req.valid("query")), 200);
  },
);

syncRoutes.openapi(
  createRoute({
    method: "get",
    path: "/v1/units/{external_key}/status",
    security: bearer,
    request: { params: UnitKeyParam },
    responses: { 200: ok(UnitStatusOut), ...errors, ...notFoundResponse },
  }),
  async (c) => {
    const { stub, site } = siteObject(c);
    return c.json(await stub.unitStatus(site, c.req.valid("param").external_key), 200);
  },
);

