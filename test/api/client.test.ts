/**
 * The generated client (client/: openapi-typescript types + openapi-fetch) used as a connector
 * would use it, against the Worker. `tsc` checks these calls against client/src/schema.ts, so a
 * change to the document that breaks a connector's code breaks `npm run typecheck` here.
 */
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createTransyncClient, type Schemas } from "../../client/src/index.js";
import { ADMIN, createSite } from "../helpers/api";

const BASE = "https://api.test";
const viaWorker = (req: Request) => exports.default.fetch(req);

describe("the typed client", () => {
  it("plays a connector's round trip with typed paths, parameters and bodies", async () => {
    const site = await createSite({ handshake: false });
    const api = createTransyncClient({ baseUrl: BASE, key: site.key, fetch: viaWorker });

    const health = await api.GET("/v1/health");
    expect(health.data).toEqual({ status: "ok", api_version: "1" });

    const hello: Schemas["HandshakeIn"] = { connector_version: "client-test/1.0", source_language: "en", languages: ["de", "fr"] };
    const hs = await api.POST("/v1/handshake", { body: hello });
    expect(hs.data?.target_languages.filter((t) => t.writable).map((t) => t.code)).toEqual(["de", "fr"]);

    const unit: Schemas["UnitSnapshotIn"] = {
      external_key: "post:1",
      adapter: "wordpress",
      segments: [
        { key: "title", text: "Hello world" },
        { key: "body", text: "<p>Hi {name}</p>", format: "html" },
      ],
    };
    const pushed = await api.PUT("/v1/units", { body: unit });
    expect(pushed.response.status).toBe(200);
    expect(pushed.data).toMatchObject({ external_key: "post:1", unit_created: true, added: 2 });

    const batch = await api.PUT("/v1/units/batch", { body: { units: [unit, { ...unit, external_key: "bad key" }] } });
    expect(batch.data?.results.map((r) => [r.ok, r.result === null])).toEqual([
      [true, false],
      [false, true],
    ]);

    const status = await api.GET("/v1/units/{external_key}/status", { params: { path: { external_key: "post:1" } } });
    expect(status.data?.segments.map((s) => s.states)).toEqual([
      { de: "missing", fr: "missing" },
      { de: "missing", fr: "missing" },
    ]);

    const estimate = await api.POST("/v1/jobs", { body: { estimate_only: true } });
    expect(estimate.response.status).toBe(200);
    const job = await api.POST("/v1/jobs", { body: { type: "delta", confirm: true } });
    expect(job.response.status).toBe(202);
    const jobId = (job.data as Schemas["JobOut"]).id;
    const read = await api.GET("/v1/jobs/{job_id}", { params: { path: { job_id: jobId } } });
    expect(read.data?.id).toBe(jobId);

    const page = await api.GET("/v1/units", { params: { query: { limit: 1 } } });
    expect(page.data?.units).toHaveLength(1);
    expect(page.data?.next_cursor).toBeNull();
  });

  it("hands errors back typed as the document's error bodies", async () => {
    const anonymous = createTransyncClient({ baseUrl: BASE, fetch: viaWorker });
    const denied = await anonymous.GET("/v1/site");
    expect(denied.response.status).toBe(401);
    expect(denied.error?.detail).toMatch(/API key/);

    const site = await createSite({ plan: null });
    const api = createTransyncClient({ baseUrl: BASE, key: site.key, fetch: viaWorker });
    const refused = await api.POST("/v1/jobs", { body: { estimate_only: true } });
    expect(refused.response.status).toBe(402);
    expect(refused.error).toMatchObject({ code: "subscription_required", estimate: null });

    const invalid = await api.GET("/v1/results", { params: { query: { limit: 501 } } });
    expect(invalid.response.status).toBe(422);
    expect(invalid.error?.detail).toMatch(/limit/);
  });

  it("works for the admin API with the admin token", async () => {
    const admin = createTransyncClient({ baseUrl: BASE, key: ADMIN, fetch: viaWorker });
    const org = await admin.POST("/admin/v1/organizations", { body: { name: "Client Org" } });
    expect(org.response.status).toBe(201);
    const keys = await admin.GET("/admin/v1/sites/{site_id}/keys", { params: { path: { site_id: 999_999 } } });
    expect(keys.response.status).toBe(404);
  });
});
