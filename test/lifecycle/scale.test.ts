// Subscriptions with any number of sites: D1 allows 100 bound parameters per statement, so
// a subscription listing 150 sites must neither fail nor silently drop any.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { admin, client, createSite } from "../helpers/api";

describe("a subscription over more than 100 sites", () => {
  it("is stored whole, covers its last site, and the organization's usage and erasure handle all of them", async () => {
    const first = await createSite({ plan: null, name: "site 0" });
    const ids = [first.siteId];
    for (let i = 1; i < 150; i += 25) {
      const batch = await Promise.all(
        Array.from({ length: Math.min(25, 150 - i) }, (_, j) =>
          admin("POST", "/admin/v1/sites", { organization_id: first.orgId, name: `site ${i + j}`, source_language: "en", target_languages: [{ code: "de", engine: "pseudo" }] }),
        ),
      );
      for (const res of batch) {
        expect(res.status).toBe(201);
        ids.push(res.body.id);
      }
    }
    expect(ids).toHaveLength(150);
    const res = await admin("PUT", `/admin/v1/organizations/${first.orgId}/subscription`, { plan: "scale", status: "active", site_ids: ids });
    expect(res.status).toBe(200);
    expect(res.body.site_ids).toEqual(ids);
    const stored = await env.DB.prepare("SELECT count(*) AS n FROM subscription_sites WHERE organization_id = ?").bind(first.orgId).first<{ n: number }>();
    expect(stored!.n).toBe(150);

    // the last site is covered: a key of it can estimate a job (402 if it were not)
    const last = ids.at(-1)!;
    const key = (await admin("POST", `/admin/v1/sites/${last}/keys`, { name: "k" })).body.key;
    expect((await client(key).post("/v1/handshake", { connector_version: "t/1", source_language: "en", languages: ["de"] })).status).toBe(200);
    const estimate = await client(key).post("/v1/jobs", { estimate_only: true });
    expect(estimate.status, JSON.stringify(estimate.body)).toBe(200);

    // unknown ids among many are named
    const bad = await admin("PUT", `/admin/v1/organizations/${first.orgId}/subscription`, { plan: "scale", status: "active", site_ids: [...ids, 99_999_999] });
    expect(bad.status).toBe(422);
    expect(bad.body.detail).toMatch(/site_ids: unknown site 99999999/);

    const usage = (await admin("GET", `/admin/v1/organizations/${first.orgId}/usage?month=2026-11`)).body;
    expect(usage.sites).toHaveLength(150);

    expect((await admin("DELETE", `/admin/v1/organizations/${first.orgId}`)).status).toBe(204);
    expect((await env.DB.prepare("SELECT count(*) AS n FROM sites WHERE organization_id = ?").bind(first.orgId).first<{ n: number }>())!.n).toBe(0);
    expect((await client(key).get("/v1/site")).status).toBe(401);
  }, 120_000);
});
