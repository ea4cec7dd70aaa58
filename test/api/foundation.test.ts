import { describe, expect, it } from "vitest";
import { generateKey } from "../../src/control/keys.control";
import { admin, client, createSite, request } from "../helpers/api";

describe("health and errors", () => {
  it("health needs no key and reports api_version 1", async () => {
    const res = await request("GET", "/v1/health");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: "ok", api_version: "1" });
    expect(res.headers.get("x-request-id")).toBeTruthy();
  });

  it("unknown routes are 404 ErrorOut, wrong methods 405 ErrorOut", async () => {
    const site = await createSite();
    const missing = await request("GET", "/v1/nope", { key: site.key });
    expect(missing.status).toBe(404);
    expect(missing.body.detail).toMatch(/No such endpoint/);
    const wrong = await request("DELETE", "/v1/site", { key: site.key });
    expect(wrong.status).toBe(405);
    expect(wrong.body.detail).toMatch(/not allowed/);
    expect(wrong.headers.get("allow")).toContain("GET");
  });

  it("bodies of 10 MB or more are 413 before parsing", async () => {
    const site = await createSite();
    const big = "x".repeat(10 * 1024 * 1024 + 1);
    const res = await request("PUT", "/v1/units/batch", { key: site.key, raw: big, headers: { "content-type": "application/json" } });
    expect(res.status).toBe(413);
    expect(res.body.detail).toMatch(/too large/);
  });

  it("invalid JSON is a 422 ErrorOut", async () => {
    const site = await createSite();
    const res = await request("POST", "/v1/handshake", { key: site.key, raw: "{nope", headers: { "content-type": "application/json" } });
    expect(res.status).toBe(422);
    expect(typeof res.body.detail).toBe("string");
  });
});

describe("authentication", () => {
  it("answers 401 ErrorOut with WWW-Authenticate for missing, malformed, unknown and revoked keys", async () => {
    const site = await createSite();
    const cases: Record<string, string | undefined> = {
      missing: undefined,
      malformed: "not-a-key",
      unknown: generateKey(),
      "wrong checksum": site.key.slice(0, -1) + (site.key.endsWith("A") ? "B" : "A"),
      "old format": `tsk_${"A".repeat(32)}`,
    };
    for (const [name, key] of Object.entries(cases)) {
      const res = await request("GET", "/v1/site", key === undefined ? {} : { key });
      expect(res.status, name).toBe(401);
      expect(res.body.detail, name).toBeTruthy();
      expect(res.headers.get("www-authenticate"), name).toMatch(/^Bearer/);
    }
    const raw = await request("GET", "/v1/site", { headers: { authorization: "Basic abc" } });
    expect(raw.status).toBe(401);

    expect((await request("GET", "/v1/site", { key: site.key })).status).toBe(200);
    expect((await admin("DELETE", `/admin/v1/sites/${site.siteId}/keys/${site.keyId}`)).status).toBe(204);
    const revoked = await request("GET", "/v1/site", { key: site.key });
    expect(revoked.status).toBe(401);
  });

  it("keys have a fixed prefix and at least 128 random bits, and are stored only as hashes", async () => {
    const site = await createSite();
    expect(site.key).toMatch(/^tsk_[0-9A-Za-z]{38}$/);
    const { env } = await import("cloudflare:workers");
    const rows = await env.DB.prepare("SELECT * FROM api_keys WHERE id = ?").bind(site.keyId).all();
    const stored = JSON.stringify(rows.results);
    expect(stored).not.toContain(site.key);
    expect(stored).not.toContain(site.key.slice(10));
    expect(rows.results[0].hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it("a key of site A never reads or changes site B", async () => {
    const a = await createSite();
    const b = await createSite();
    const ca = client(a.key);
    const cb = client(b.key);
    await cb.put("/v1/units", { external_key: "post:1", adapter: "wordpress", segments: [{ key: "title", text: "B's secret" }] });
    expect((await ca.get("/v1/site")).body.id).toBe(a.siteId);
    expect((await ca.get("/v1/units/post:1/status")).status).toBe(404);
    expect((await ca.get("/v1/status")).body.segments_total).toBe(0);
    await ca.del("/v1/units/post:1");
    expect((await cb.get("/v1/units/post:1/status")).status).toBe(200);
    expect((await cb.get("/v1/status")).body.segments_total).toBe(1);
  });
});

describe("admin API", () => {
  it("refuses calls without the admin token", async () => {
    for (const key of [undefined, "wrong-token", "test-admin-tokeX"]) {
      const res = await request("POST", "/admin/v1/organizations", { ...(key ? { key } : {}), body: { name: "x" } });
      expect(res.status).toBe(401);
      expect(res.body.detail).toBeTruthy();
    }
  });

  it("creates organizations, sites with defaults, keys, lists and revokes them", async () => {
    const org = await admin("POST", "/admin/v1/organizations", { name: "Acme" });
    expect(org.status).toBe(201);
    expect(org.body).toEqual({ id: expect.any(Number), name: "Acme" });
    const site = await admin("POST", "/admin/v1/sites", {
      organization_id: org.body.id,
      name: "acme.example",
      source_language: "en",
      target_languages: [
        { code: "de", engine: "pseudo" },
        { code: "fr", engine: "deepl", formality: "formal", writable: false },
      ],
    });
    expect(site.status).toBe(201);
    expect(site.body).toMatchObject({
      name: "acme.example",
      organization: "Acme",
      source_language: "en",
      target_languages: [
        { code: "de", engine: "pseudo", formality: "default", writable: true },
        { code: "fr", engine: "deepl", formality: "formal", writable: false },
      ],
      enabled_adapters: ["wordpress", "drupal", "wagtail", "strapi"],
      enabled_engines: ["pseudo", "deepl"],
      qa_mode: "editors",
      review_mode: "draft",
    });
    const patched = await admin("PATCH", `/admin/v1/sites/${site.body.id}`, { qa_mode: "separate", enabled_adapters: ["drupal"] });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ qa_mode: "separate", enabled_adapters: ["drupal"], name: "acme.example" });

    const k1 = await admin("POST", `/admin/v1/sites/${site.body.id}/keys`, { name: "production" });
    expect(k1.status).toBe(201);
    expect(k1.body).toEqual({ id: expect.any(Number), name: "production", key: expect.stringMatching(/^tsk_/), created_at: expect.any(String) });
    const list = await admin("GET", `/admin/v1/sites/${site.body.id}/keys`);
    expect(list.body.keys).toEqual([
      { id: k1.body.id, name: "production", prefix: k1.body.key.slice(0, 10), created_at: k1.body.created_at, last_used_at: null, revoked_at: null },
    ]);
    expect(JSON.stringify(list.body)).not.toContain(k1.body.key);

    expect((await request("GET", "/v1/site", { key: k1.body.key })).status).toBe(200);
    const used = await admin("GET", `/admin/v1/sites/${site.body.id}/keys`);
    expect(used.body.keys[0].last_used_at).toEqual(expect.any(String));

    expect((await admin("DELETE", `/admin/v1/sites/${site.body.id}/keys/${k1.body.id}`)).status).toBe(204);
    const revoked = await admin("GET", `/admin/v1/sites/${site.body.id}/keys`);
    expect(revoked.body.keys[0].revoked_at).toEqual(expect.any(String));
    expect((await admin("DELETE", `/admin/v1/sites/${site.body.id}/keys/999999`)).status).toBe(404);
    expect((await admin("PATCH", `/admin/v1/sites/999999`, { name: "x" })).status).toBe(404);
  });

  it("manages subscriptions and glossaries", async () => {
    const a = await createSite({ plan: null });
    const sub = await admin("PUT", `/admin/v1/organizations/${a.orgId}/subscription`, { plan: "agency", status: "active", site_ids: [a.siteId], included_characters: 5000 });
    expect(sub.status).toBe(200);
    expect(sub.body).toEqual({ organization_id: a.orgId, plan: "agency", status: "active", site_ids: [a.siteId], included_characters: 5000 });
    const other = await createSite();
    const foreign = await admin("PUT", `/admin/v1/organizations/${a.orgId}/subscription`, { plan: "agency", status: "active", site_ids: [other.siteId] });
    expect(foreign.status).toBe(422);
    expect(foreign.body.detail).toMatch(/site_ids/);
    expect((await admin("DELETE", `/admin/v1/organizations/${a.orgId}/subscription`)).status).toBe(204);
    expect((await client(a.key).get("/v1/usage")).body).toMatchObject({ plan: null, entitled: false });

    const glossary = await admin("PUT", `/admin/v1/organizations/${a.orgId}/glossary`, {
      terms: Array.from({ length: 40 }, (_, i) => ({ source: `term${i}`, language: "de", target: `Begriff${i}` })),
    });
    expect(glossary.body).toEqual({ terms: 40 });
    expect((await client(a.key).get("/v1/status")).body.glossary_terms).toBe(40);
    await admin("PUT", `/admin/v1/organizations/${a.orgId}/glossary`, { terms: [{ source: "x", language: "de", target: "y" }] });
    expect((await client(a.key).get("/v1/status")).body.glossary_terms).toBe(1);
    expect((await admin("PUT", `/admin/v1/organizations/999999/glossary`, { terms: [] })).status).toBe(404);
  });

  it("validates admin bodies with 422 naming the field", async () => {
    const res = await admin("POST", "/admin/v1/sites", { organization_id: 1, name: "x", source_language: "en", target_languages: [{ code: "de", engine: "babelfish" }] });
    expect(res.status).toBe(422);
    expect(res.body.detail).toMatch(/^target_languages\[0\]\.engine must be one of/);
  });
});

describe("site and handshake", () => {
  const hs = (over: Record<string, unknown> = {}) => ({ connector_version: "wp/2.1.0", source_language: "en", languages: ["de", "fr"], ...over });

  it("a language is writable only if writable in the settings and listed in the latest handshake", async () => {
    const site = await createSite({
      handshake: false,
      target_languages: [{ code: "de" }, { code: "fr" }, { code: "es", writable: false }],
    });
    const c = client(site.key);
    const before = await c.get("/v1/site");
    expect(before.body.target_languages.map((t: any) => t.writable)).toEqual([false, false, false]);

    const res = await c.post("/v1/handshake", hs({ languages: ["de", "es", "it"] }));
    expect(res.status).toBe(200);
    expect(res.body.target_languages).toEqual([
      { code: "de", formality: "default", engine: "pseudo", writable: true },
      { code: "fr", formality: "default", engine: "pseudo", writable: false },
      { code: "es", formality: "default", engine: "pseudo", writable: false },
    ]);
    expect(res.body).toMatchObject({ id: site.siteId, source_language: "en", review_mode: "draft", qa_mode: "editors" });
    expect((await c.get("/v1/site")).body.target_languages.map((t: any) => t.writable)).toEqual([true, false, false]);

    // the latest handshake counts
    await c.post("/v1/handshake", hs({ languages: ["FR"] }));
    expect((await c.get("/v1/site")).body.target_languages.map((t: any) => t.writable)).toEqual([false, true, false]);
  });

  it("warns about a differing source language, languages the website lacks and adapters not enabled", async () => {
    const site = await createSite({ handshake: false, enabled_adapters: ["wordpress"] });
    const c = client(site.key);
    const clean = await c.post("/v1/handshake", hs({ adapters: ["wordpress"] }));
    expect(clean.body.warnings).toEqual([]);
    const res = await c.post("/v1/handshake", hs({ source_language: "nl", languages: ["de"], adapters: ["wordpress", "drupal"] }));
    expect(res.body.warnings).toHaveLength(3);
    expect(res.body.warnings[0]).toMatch(/source language is nl.*en/);
    expect(res.body.warnings[1]).toMatch(/lacks target language fr/);
    expect(res.body.warnings[2]).toMatch(/drupal is not enabled/);
  });

  it("warns about the website's languages the site does not translate into (neither a target nor the source), by name", async () => {
    const site = await createSite({ handshake: false, target_languages: [{ code: "de" }, { code: "fr", writable: false }] });
    const c = client(site.key);
    // The source and every target (writable in the dashboard or not), in any case: no warning.
    expect((await c.post("/v1/handshake", hs({ languages: ["EN", "de", "fr"] }))).body.warnings).toEqual([]);
    const res = await c.post("/v1/handshake", hs({ languages: ["de", "fr", "es", "ES", "pt-BR"] }));
    expect(res.status).toBe(200);
    expect(res.body.warnings).toEqual(["The website has languages es, pt-BR that are not target languages of this site; they are not translated until the site has them."]);
    const one = await c.post("/v1/handshake", hs({ languages: ["de", "fr", "it"] }));
    expect(one.body.warnings).toEqual(["The website has language it that is not a target language of this site; it is not translated until the site has it."]);
    // Recorded with the handshake, as the dashboard and the admin API show it.
    expect((await admin("GET", `/admin/v1/sites/${site.siteId}`)).body.connector.warnings).toEqual(one.body.warnings);
  });

  it("echoes understood capabilities and ignores unknown ones; records connector_version", async () => {
    const site = await createSite({ handshake: false });
    const res = await client(site.key).post("/v1/handshake", hs({ capabilities: ["whole_unit", "telepathy", "qa_errors", "whole_unit"] }));
    expect(res.status).toBe(200);
    expect(res.body.capabilities).toEqual(["whole_unit", "qa_errors"]);
    // The recorded handshake, as the admin API shows it.
    const shown = await admin("GET", `/admin/v1/sites/${site.siteId}`);
    expect(shown.body.connector).toMatchObject({ connector_version: "wp/2.1.0", capabilities: ["whole_unit", "qa_errors"], languages: ["de", "fr"] });
    // A later handshake replaces it.
    await client(site.key).post("/v1/handshake", hs({ connector_version: "wp/2.2.0" }));
    expect((await admin("GET", `/admin/v1/sites/${site.siteId}`)).body.connector).toMatchObject({ connector_version: "wp/2.2.0", capabilities: [] });
  });

  it.each([
    ["connector_version", { connector_version: "x".repeat(51) }, /^connector_version must have at most 50 characters/],
    ["adapters", { adapters: Array(21).fill("wordpress") }, /^adapters must have at most 20 items/],
    ["languages", { languages: Array(201).fill("de") }, /^languages must have at most 200 items/],
    ["languages pattern", { languages: ["de", "d e"] }, /^languages\[1\] must match the pattern/],
    ["language too short", { languages: ["d"] }, /^languages\[0\] must have at least 2 characters/],
    ["capabilities", { capabilities: Array(21).fill("qa_errors") }, /^capabilities must have at most 20 items/],
    ["source_language", { source_language: undefined }, /^source_language is required/],
    ["connector_version type", { connector_version: 5 }, /^connector_version must be of type string/],
  ])("HandshakeIn bound %s answers 422 naming the field", async (_name, over, detail) => {
    const site = await createSite({ handshake: false });
    const res = await client(site.key).post("/v1/handshake", hs(over));
    expect(res.status).toBe(422);
    expect(res.body.detail).toMatch(detail);
  });

  it("accepts the bounds exactly", async () => {
    const site = await createSite({ handshake: false });
    const res = await client(site.key).post(
      "/v1/handshake",
      hs({ connector_version: "x".repeat(50), adapters: Array(20).fill("wordpress"), languages: Array(200).fill("de"), capabilities: Array(20).fill("x") }),
    );
    expect(res.status).toBe(200);
  });
});

describe("OpenAPI", () => {
  it("is an OpenAPI 3.1 document listing every /v1 path with the bearer scheme", async () => {
    const res = await request("GET", "/v1/openapi.json");
    expect(res.status).toBe(200);
    const doc = res.body;
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.components.securitySchemes.bearer).toEqual(expect.objectContaining({ type: "http", scheme: "bearer" }));
    const paths = Object.keys(doc.paths);
    for (const path of [
      "/v1/health",
      "/v1/site",
      "/v1/handshake",
      "/v1/status",
      "/v1/usage",
      "/v1/units",
      "/v1/units/batch",
      "/v1/units/{external_key}",
      "/v1/units/{external_key}/status",
      "/v1/jobs",
      "/v1/jobs/{job_id}",
      "/v1/jobs/{job_id}/cancel",
      "/v1/results",
      "/v1/results/ack",
      "/v1/reviews",
      "/v1/attention",
    ])
      expect(paths, path).toContain(path);
    expect(doc.paths["/v1/units"].put.security).toEqual([{ bearer: [] }]);
    // Public: an explicit empty requirement overrides the document-wide bearer default.
    expect(doc.paths["/v1/health"].get.security).toEqual([]);
    expect(doc.paths["/v1/units/batch"].put.requestBody.content["application/json"].schema.$ref).toBe("#/components/schemas/BatchIn");
    for (const name of ["UnitSnapshotIn", "SyncOut", "JobOut", "ResultOut", "HandshakeOut", "ErrorOut", "BillingErrorOut", "EstimateOut"])
      expect(doc.components.schemas, name).toHaveProperty(name);
  });
});
