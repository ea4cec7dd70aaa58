// Authentication edges: a revoked key stops at once in the isolate that revoked it (despite the
// key cache), keys of one site cannot be revoked through another, and the admin token is
// compared for exact equality.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { ADMIN, admin, client, createSite, request, unit } from "../helpers/api";

describe("revocation", () => {
  it("a revoked key answers 401 immediately in the same isolate; the site's other keys keep working", async () => {
    const site = await createSite();
    const staging = (await admin("POST", `/admin/v1/sites/${site.siteId}/keys`, { name: "staging" })).body;
    const s = client(staging.key);
    // used first, so the look-up is cached in this isolate
    expect((await s.get("/v1/site")).status).toBe(200);
    expect((await s.put("/v1/units", unit("post:1", [{ key: "a", text: "One" }]))).status).toBe(200);

    expect((await admin("DELETE", `/admin/v1/sites/${site.siteId}/keys/${staging.id}`)).status).toBe(204);
    for (const res of [
      await s.get("/v1/site"),
      await s.get("/v1/status"),
      await s.put("/v1/units", unit("post:2", [{ key: "a", text: "Two" }])),
      await s.del("/v1/units/post:1"),
      await s.post("/v1/jobs", {}),
      await s.get("/v1/results"),
    ]) {
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ detail: expect.stringMatching(/revoked/) });
      expect(res.headers.get("www-authenticate")).toMatch(/^Bearer/);
    }
    // nothing the revoked key sent was applied
    const c = client(site.key);
    expect((await c.get("/v1/status")).body).toMatchObject({ units_total: 1 });
    expect((await c.get("/v1/units/post:1/status")).status).toBe(200);
    expect((await c.get("/v1/jobs")).body).toEqual([]);
    const keys = (await admin("GET", `/admin/v1/sites/${site.siteId}/keys`)).body.keys;
    expect(keys.find((k: any) => k.id === staging.id).revoked_at).toEqual(expect.any(String));
    expect(keys.find((k: any) => k.id === site.keyId).revoked_at).toBeNull();
  });

  it("another site's id cannot revoke a key: 404, and the key keeps working", async () => {
    const a = await createSite();
    const b = await createSite();
    expect((await client(a.key).get("/v1/site")).status).toBe(200);
    const res = await admin("DELETE", `/admin/v1/sites/${b.siteId}/keys/${a.keyId}`);
    expect(res.status).toBe(404);
    expect((await client(a.key).get("/v1/site")).status).toBe(200);
    expect((await admin("GET", `/admin/v1/sites/${a.siteId}/keys`)).body.keys[0].revoked_at).toBeNull();
    // keys are listed per site
    expect((await admin("GET", `/admin/v1/sites/${b.siteId}/keys`)).body.keys.map((k: any) => k.id)).toEqual([b.keyId]);
  });
});

describe("admin token", () => {
  const organizations = async () => (await env.DB.prepare("SELECT count(*) AS n FROM organizations").first<{ n: number }>())!.n;

  it("is compared for exact equality: a prefix, a longer token, other case or scheme are 401 and change nothing", async () => {
    const site = await createSite();
    expect((await request("GET", `/admin/v1/sites/${site.siteId}/keys`, { key: ADMIN })).status).toBe(200);
    const before = await organizations();
    const variants: Record<string, string | undefined> = {
      prefix: `Bearer ${ADMIN.slice(0, -1)}`,
      "one character": `Bearer ${ADMIN[0]}`,
      longer: `Bearer ${ADMIN}x`,
      doubled: `Bearer ${ADMIN}${ADMIN}`,
      "two tokens": `Bearer ${ADMIN} ${ADMIN}`,
      "other case": `Bearer ${ADMIN.toUpperCase()}`,
      "same length, one byte off": `Bearer ${ADMIN.slice(0, -1)}N`,
      empty: "Bearer ",
      "no scheme": ADMIN,
      "basic scheme": `Basic ${ADMIN}`,
      "site key": `Bearer ${site.key}`,
      missing: undefined,
    };
    for (const [name, header] of Object.entries(variants)) {
      const headers: Record<string, string> = header === undefined ? {} : { authorization: header };
      for (const [method, path, body] of [
        ["GET", `/admin/v1/sites/${site.siteId}/keys`, undefined],
        ["POST", "/admin/v1/organizations", { name: `Intruder ${name}` }],
        ["POST", `/admin/v1/sites/${site.siteId}/keys`, { name: "intruder" }],
        ["DELETE", `/admin/v1/sites/${site.siteId}/keys/${site.keyId}`, undefined],
      ] as const) {
        const res = await request(method, path, { headers, body });
        expect(res.status, `${name}: ${method} ${path}`).toBe(401);
        expect(res.body).toEqual({ detail: "A valid admin token is required." });
      }
    }
    expect(await organizations()).toBe(before);
    const keys = (await admin("GET", `/admin/v1/sites/${site.siteId}/keys`)).body.keys;
    expect(keys).toHaveLength(1);
    expect(keys[0].revoked_at).toBeNull();
    expect((await client(site.key).get("/v1/site")).status).toBe(200);
  });

  it("is not a site key: the public API refuses it", async () => {
    for (const path of ["/v1/site", "/v1/status", "/v1/jobs", "/v1/results"]) expect((await request("GET", path, { key: ADMIN })).status).toBe(401);
  });
});
