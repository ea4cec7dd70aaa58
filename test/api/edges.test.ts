// The corners DESIGN.md "Decisions at the edges" decides, one test per row.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { client, createSite, unit } from "../helpers/api";

describe("units on a delta job", () => {
  it("is a 422 naming the rule, and creates, reserves and bills nothing", async () => {
    const site = await createSite();
    const c = client(site.key);
    await c.put("/v1/units", unit("post:1", [{ key: "a", text: "Hello" }]));
    await c.put("/v1/units", unit("post:2", [{ key: "a", text: "World" }]));
    for (const body of [{ units: ["post:1"] }, { type: "delta", units: ["post:1"], confirm: true }, { type: "delta", units: [] }, { units: ["post:1"], estimate_only: true }]) {
      const res = await c.post("/v1/jobs", body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.detail).toBe('units is only allowed for translate jobs (narrow a delta job with "prefix")');
    }
    expect((await c.get("/v1/jobs")).body).toEqual([]);
    const reserved = await env.DB.prepare("SELECT count(*) AS n FROM reservations WHERE site_id = ?").bind(site.siteId).first<{ n: number }>();
    expect(reserved!.n).toBe(0);
    // units: null is "not given": a whole-site delta job as asked.
    expect((await c.post("/v1/jobs", { units: null, estimate_only: true })).body.estimated_segments).toBe(4);
    // The same units on a translate job narrow it.
    expect((await c.post("/v1/jobs", { type: "translate", units: ["post:1"], estimate_only: true })).body.estimated_segments).toBe(2);
  });
});
