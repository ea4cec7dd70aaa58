/** The connector's push side and status reads (spec: units, status, handshake, site). */
import { createRoute, OpenAPIHono } from "@hono/zod-openapi";
import { createHash } from "node:crypto";
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
  const bytes = await c.req.arrayBuffer();
  const envelope = BatchEnvelope.safeParse(JSON.parse(new TextDecoder().decode(bytes)));
  if (!envelope.success) throw invalid(validationDetail(envelope.error));
  const raws = envelope.data.units;
  const out: (BatchItem | undefined)[] = [];

  // A unit whose snapshot is exactly the one last applied (same digest) was validated then and
  // changes nothing now: the object answers it as unchanged, and it is neither validated nor sent again.
  const digests = raws.map((raw) => createHash("sha256").update(JSON.stringify(raw)).digest("base64"));
  // Only a key's first occurrence may be answered so: a later one comes after a push of the same key.
  const candidates: { external_key: string; digest: string }[] = [];
  const first = new Map<string, number>();
  raws.forEach((raw, i) => {
    const r = raw as { external_key?: unknown; adapter?: unknown };
    if (typeof r?.external_key !== "string" || first.has(r.external_key)) return;
    first.set(r.external_key, i);
    if (typeof r.adapter === "string" && site.enabledAdapters.includes(r.adapter as UnitSnapshot["adapter"]))
      candidates.push({ external_key: r.external_key, digest: digests[i] });
  });
  const unchanged = new Map((await stub.pushUnchanged(site, candidates)).map((r) => [r.external_key, r]));

  const valid: UnitSnapshot[] = [];
  const validDigests: string[] = [];
  const slots: number[] = [];
  raws.forEach((raw, i) => {
    const key = (raw as { external_key?: unknown })?.external_key;
    const externalKey = typeof key === "string" ? key.slice(0, LIMITS.unitKey) : "";
    const same = typeof key === "string" && first.get(key) === i ? unchanged.get(key) : undefined;
    if (same)
      return void (out[i] = { external_key: externalKey, ok: true, result: same, error: null });
    const parsed = UnitSnapshotIn.safeParse(raw);
    if (!parsed.success) return void (out[i] = { external_key: externalKey, ok: false, result: null, error: validationDetail(parsed.error, `units[${i}]`, raw) });
    const refusal = adapterRefusal(site, parsed.data);
    if (refusal) return void (out[i] = { external_key: externalKey, ok: false, result: null, error: `units[${i}].${refusal}` });
    valid.push(parsed.data);
    validDigests.push(digests[i]);
    slots.push(i);
  });
  if (valid.length) {
    let applied: BatchItem[];
    if (bytes.byteLength > LIMITS.inlineBatchBytes) {
      // Large bodies travel through R2, not over RPC; the site object deletes the object once applied.
      const blobKey = `batches/${site.id}/${crypto.randomUUID()}.json`;
      await c.env.BLOBS.put(blobKey, JSON.stringify({ units: valid, digests: validDigests }), { httpMetadata: { contentType: "application/json" } });
      try {
        applied = await stub.pushBatch(site, { blobKey });
      } finally {
        // The object deletes it once applied; if anything failed on the way, the customer's content must not stay behind.
        await c.env.BLOBS.delete(blobKey).catch(() => undefined);
      }
    } else applied = await stub.pushBatch(site, { units: valid, digests: validDigests });
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

