/**
 * A `translate` job naming unit keys that do not exist (issue 40): 422 naming them (the first
 * 10) and nothing created, for estimates too; deleted units count as unknown.
 */
import { describe, expect, it } from "vitest";
import { client, createSite, unit } from "../helpers/api";

describe("POST /v1/jobs type translate with unknown unit keys", () => {
  it("answers 422 naming the unknown keys and creates nothing", async () => {
    const site = await createSite();
    const c = client(site.key);
    await c.put("/v1/units", unit("post:1", [{ key: "t", text: "Hello" }]));
    await c.put("/v1/units", unit("post:2", [{ key: "t", text: "Gone" }]));
    await c.del("/v1/units/post:2");
    for (const extra of [{}, { estimate_only: true }, { confirm: true }]) {
      const res = await c.post("/v1/jobs", { type: "translate", units: ["post:1", "post:typo", "post:2"], ...extra });
      expect(res.status).toBe(422);
      expect(res.body.detail).toBe('units: 2 of the 3 unit key(s) name no unit of this site (never pushed, or deleted): "post:typo", "post:2"; nothing was created');
    }
    expect((await c.get("/v1/jobs")).body).toEqual([]);
    // Known keys only: the job is created.
    expect((await c.post("/v1/jobs", { type: "translate", units: ["post:1"] })).status).toBe(202);
  });

  it("names the first 10 and counts the rest", async () => {
    const c = client((await createSite()).key);
    const keys = Array.from({ length: 25 }, (_, i) => `page:${i}`);
    const res = await c.post("/v1/jobs", { type: "translate", units: keys });
    expect(res.status).toBe(422);
    expect(res.body.detail).toContain(
      `${keys
        .slice(0, 10)
        .map((k) => JSON.stringify(k))
        .join(", ")} and 15 more; nothing was created`,
    );
    expect(res.body.detail).not.toContain('"page:10"');
  });
});
