import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import type { SiteObject } from "../../src/site/object";
import { admin, client, createSite, unit } from "../helpers/api";
import { job, runJob } from "../helpers/jobs";
import { setClock } from "../helpers/seams";
import { objectEnv, setObjectEnv, stubOf } from "../helpers/site";

afterEach(() => setClock(undefined));

const text = (n: number, seed = "") => (seed + "abcdefghij".repeat(Math.ceil(n / 10))).slice(0, n);

async function org() {
  return (await admin("POST", "/admin/v1/organizations", { name: "Billing org" })).body.id as number;
}

async function subscribe(orgId: number, plan: string, siteIds: number[], extra: Record<string, unknown> = {}) {
  const res = await admin("PUT", `/admin/v1/organizations/${orgId}/subscription`, { plan, status: "active", site_ids: siteIds, ...extra });
  expect(res.status).toBe(200);
}

async function ledger(siteId: number) {
  const row = await env.DB.prepare("SELECT coalesce(sum(characters), 0) AS n FROM usage_ledger WHERE site_id = ?").bind(siteId).first<{ n: number }>();
  return row!.n;
}

describe("entitlement: 402 codes", () => {
  it("subscription_required, subscription_inactive, site_not_covered", async () => {
    const none = await createSite({ plan: null });
    await client(none.key).put("/v1/units", unit("post:1", [{ key: "a", text: "One" }]));
    const r1 = await client(none.key).post("/v1/jobs", {});
    expect(r1.status).toBe(402);
    expect(r1.body).toEqual({ detail: expect.stringMatching(/no subscription/), code: "subscription_required", estimate: null });
    expect((await client(none.key).get("/v1/usage")).body).toMatchObject({ plan: null, entitled: false, reason: expect.stringMatching(/no subscription/) });

    await admin("PUT", `/admin/v1/organizations/${none.orgId}/subscription`, { plan: "pro", status: "paused", site_ids: [none.siteId] });
    const r2 = await client(none.key).post("/v1/jobs", {});
    expect(r2.status).toBe(402);
    expect(r2.body.code).toBe("subscription_inactive");
    await admin("PUT", `/admin/v1/organizations/${none.orgId}/subscription`, { plan: "pro", status: "canceled", site_ids: [none.siteId] });
    expect((await client(none.key).post("/v1/jobs", {})).body.code).toBe("subscription_inactive");

    await admin("PUT", `/admin/v1/organizations/${none.orgId}/subscription`, { plan: "pro", status: "active", site_ids: [] });
    const r3 = await client(none.key).post("/v1/jobs", {});
    expect(r3.status).toBe(402);
    expect(r3.body.code).toBe("site_not_covered");
    expect((await client(none.key).get("/v1/usage")).body).toMatchObject({ plan: "pro", entitled: false, reason: expect.stringMatching(/does not cover/) });
  });

  it("the agency plan covers ten sites: an eleventh is not covered", async () => {
    const orgId = await org();
    const sites = [];
    for (let i = 0; i < 11; i++) sites.push(await createSite({ orgId }));
    await subscribe(
      orgId,
      "agency",
      sites.map((s) => s.siteId),
    );
    const tenth = client(sites[9].key);
    await tenth.put("/v1/units", unit("post:1", [{ key: "a", text: "One" }]));
    expect((await tenth.post("/v1/jobs", {})).status).toBe(202);
    const eleventh = client(sites[10].key);
    await eleventh.put("/v1/units", unit("post:1", [{ key: "a", text: "One" }]));
    const res = await eleventh.post("/v1/jobs", {});
    expect(res.status).toBe(402);
    expect(res.body).toMatchObject({ code: "site_not_covered", detail: expect.stringMatching(/at most 10 sites/) });
  });
});

describe("usage scope", () => {
  it("pooled plans share usage across the organization's sites; pro sites do not", async () => {
    const pooled = await org();
    const a = await createSite({ orgId: pooled });
    const b = await createSite({ orgId: pooled });
    await subscribe(pooled, "growth", [a.siteId, b.siteId]);
    await client(a.key).put("/v1/units", unit("post:1", [{ key: "a", text: "Hello" }]));
    await job(client(a.key), a.siteId);
    const usageB = (await client(b.key).get("/v1/usage")).body;
    expect(usageB).toMatchObject({ plan: "growth", entitled: true, reason: "", used_characters: 10, per_site: false, included_characters: 5_000_000 });

    const pro = await org();
    const p = await createSite({ orgId: pro });
    const q = await createSite({ orgId: pro });
    await subscribe(pro, "pro", [p.siteId, q.siteId]);
    await client(p.key).put("/v1/units", unit("post:1", [{ key: "a", text: "Hello" }]));
    await job(client(p.key), p.siteId);
    expect((await client(p.key).get("/v1/usage")).body).toMatchObject({ used_characters: 10, per_site: true, included_characters: 250_000 });
    expect((await client(q.key).get("/v1/usage")).body).toMatchObject({ used_characters: 0, per_site: true });
  });

  it("counts calendar months in UTC and crosses the boundary", async () => {
    const site = await createSite({ plan: "pro" });
    const c = client(site.key);
    setClock(new Date("2026-01-31T23:59:00Z"));
    await c.put("/v1/units", unit("post:1", [{ key: "a", text: "Hello" }]));
    await job(c, site.siteId);
    const jan = (await c.get("/v1/usage")).body;
    expect(jan).toMatchObject({ month_start: "2026-01-01T00:00:00.000Z", month_end: "2026-02-01T00:00:00.000Z", used_characters: 10 });
    setClock(new Date("2026-02-01T00:00:01Z"));
    const feb = (await c.get("/v1/usage")).body;
    expect(feb).toMatchObject({ month_start: "2026-02-01T00:00:00.000Z", month_end: "2026-03-01T00:00:00.000Z", used_characters: 0 });
  });
});

describe("estimates, confirmation and reservations", () => {
  it("answers 409 confirmation_required beyond the included volume, then creates the job with confirm", async () => {
    const site = await createSite({ plan: "pro", included_characters: 1000 });
    const c = client(site.key);
    await c.put("/v1/units", unit("post:1", [{ key: "a", text: text(600) }]));
    const est = await c.post("/v1/jobs", { estimate_only: true });
    expect(est.body.cost).toEqual({
      characters: 1200,
      included_characters: 1000,
      used_characters: 0,
      reserved_characters: 0,
      remaining_characters: 1000,
      overage_characters: 200,
      overage_cents: 1, // 200 × 2000 / 1e6 = 0.4 → rounded up
      currency: "usd",
      requires_confirmation: true,
    });
    const refused = await c.post("/v1/jobs", {});
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ code: "confirmation_required", estimate: est.body.cost, detail: expect.stringMatching(/confirm/) });
    expect((await c.get("/v1/jobs")).body).toEqual([]);
    const ok = await c.post("/v1/jobs", { confirm: true });
    expect(ok.status).toBe(202);
    const done = await runJob(c, site.siteId, ok.body.id);
    expect(done).toMatchObject({ status: "succeeded", characters: 1200 });
    expect(await ledger(site.siteId)).toBe(1200);
  });

  it("requires confirmation above 100,000 billable characters even with ample volume; nothing billable never needs it", async () => {
    const site = await createSite({ plan: "scale", target_languages: [{ code: "de" }] });
    const c = client(site.key);
    await c.put(
      "/v1/units",
      unit("post:1", [
        { key: "a", text: text(60_000, "1") },
        { key: "b", text: text(40_000, "2") },
      ]),
    );
    expect((await c.post("/v1/jobs", { estimate_only: true })).body.cost).toMatchObject({ characters: 100_000, requires_confirmation: false, remaining_characters: null });
    await c.put(
      "/v1/units",
      unit("post:1", [
        { key: "a", text: text(60_000, "1") },
        { key: "b", text: text(40_001, "2") },
      ]),
    );
    const est = (await c.post("/v1/jobs", { estimate_only: true })).body.cost;
    expect(est).toMatchObject({ characters: 100_001, requires_confirmation: true, overage_characters: 0, included_characters: null });
    expect((await c.post("/v1/jobs", {})).status).toBe(409);

    const empty = await createSite({ plan: "pro", included_characters: 0 });
    const res = await client(empty.key).post("/v1/jobs", {});
    expect(res.status).toBe(202);
  });

  it("reservations of earlier jobs count in estimates across a pooled organization's sites and are released when jobs end or are cancelled", async () => {
    const orgId = await org();
    const a = await createSite({ orgId });
    const b = await createSite({ orgId });
    await subscribe(orgId, "agency", [a.siteId, b.siteId], { included_characters: 10_000 });
    await client(a.key).put("/v1/units", unit("post:1", [{ key: "a", text: text(1000) }]));
    await client(b.key).put("/v1/units", unit("post:1", [{ key: "a", text: text(500) }]));
    const jobA = (await client(a.key).post("/v1/jobs", {})).body;
    expect(jobA.status).toBe("queued");
    const estB = (await client(b.key).post("/v1/jobs", { estimate_only: true })).body.cost;
    expect(estB).toMatchObject({ characters: 1000, reserved_characters: 2000, remaining_characters: 8000 });
    const jobB = (await client(b.key).post("/v1/jobs", {})).body;
    expect((await client(a.key).post("/v1/jobs", { estimate_only: true, force: true })).body.cost).toMatchObject({ reserved_characters: 3000 });
    await client(b.key).post(`/v1/jobs/${jobB.id}/cancel`);
    expect((await client(a.key).post("/v1/jobs", { estimate_only: true, force: true })).body.cost).toMatchObject({ reserved_characters: 2000 });
    await runJob(client(a.key), a.siteId, jobA.id);
    expect((await client(b.key).post("/v1/jobs", { estimate_only: true })).body.cost).toMatchObject({ reserved_characters: 0, used_characters: 2000, remaining_characters: 8000 });
  });

  it("a confirmed job translates the work that existed when it was requested: a segment added after is the next job's, and nothing fails", async () => {
    const site = await createSite({ plan: "pro", included_characters: 100, target_languages: [{ code: "de" }] });
    const c = client(site.key);
    await c.put("/v1/units", unit("post:1", [{ key: "a", text: text(150) }]));
    const created = await c.post("/v1/jobs", { confirm: true });
    expect(created.status).toBe(202);
    expect(created.body.estimated_characters).toBe(150);
    await c.put(
      "/v1/units",
      unit("post:1", [
        { key: "a", text: text(150) },
        { key: "b", text: text(50, "x") },
      ]),
    );
    const done = await runJob(c, site.siteId, created.body.id);
    expect(done).toMatchObject({ status: "succeeded", done_segments: 1, characters: 150, estimated_characters: 150, errors: [] });
    expect(await ledger(site.siteId)).toBe(150);
    // The segment added after the request is the next job's: still missing, nothing reserved for it.
    expect((await c.get("/v1/units/post:1/status")).body.segments.map((s: any) => [s.key, s.states.de])).toEqual([
      ["a", "review"],
      ["b", "missing"],
    ]);
    const next = await c.post("/v1/jobs", { estimate_only: true });
    expect(next.body).toMatchObject({ estimated_segments: 1, estimated_characters: 50, cost: { reserved_characters: 0 } });
    const again = await c.post("/v1/jobs", { confirm: true });
    expect((await runJob(c, site.siteId, again.body.id)).status).toBe("succeeded");
    expect(await ledger(site.siteId)).toBe(200);
  });

  it("memory hits and in-job repeats are not billed; the ledger equals the characters sent", async () => {
    const site = await createSite({ plan: "pro", target_languages: [{ code: "de" }, { code: "fr" }] });
    const c = client(site.key);
    await c.put("/v1/units", unit("post:1", [{ key: "a", text: "Known", translations: { de: "Bekannt" } }]));
    await c.put(
      "/v1/units",
      unit("post:2", [
        { key: "a", text: "Known" },
        { key: "b", text: "Twice" },
        { key: "c", text: "Twice" },
      ]),
    );
    const done = await job(c, site.siteId);
    // de: Known (post:2) is a memory hit, Twice sent once and repeated once;
    // fr: Known (post:1 and post:2) and Twice each sent once and repeated once
    expect(done).toMatchObject({ characters: 5 + 5 + 5, tm_segments: 1, tm_characters: 5, reused_segments: 3, reused_characters: 15 });
    expect(await ledger(site.siteId)).toBe(15);
    expect((await c.get("/v1/usage")).body.used_characters).toBe(15);
  });

  it("a retried alarm never bills twice", async () => {
    const site = await createSite({ plan: "pro", target_languages: [{ code: "de" }] });
    const c = client(site.key);
    await c.put(
      "/v1/units",
      unit(
        "post:1",
        Array.from({ length: 300 }, (_, i) => ({ key: `k${i}`, text: `Text number ${i}` })),
      ),
    );
    const created = (await c.post("/v1/jobs", {})).body;
    const stub = stubOf(site.siteId);
    // The first alarm's commits are stored, but it dies before their ledger rows reach D1 (as an
    // eviction or a lost connection would); the alarm backs off and runs again.
    await runInDurableObject(stub, async (o: SiteObject) => {
      const realEnv = objectEnv(o);
      const db = new Proxy(realEnv.DB, {
        get: (t, p) =>
          p === "prepare"
            ? (query: string) => {
                if (/usage_ledger/.test(query) && /^insert/i.test(query)) throw new Error("evicted before the ledger rows were written");
                return t.prepare(query);
              }
            : ((t as any)[p]?.bind?.(t) ?? (t as any)[p]),
      });
      setObjectEnv(o, { ...realEnv, DB: db });
      try {
        // The runner catches the failure: the alarm resolves, re-armed after a back-off.
        await o.alarm();
        expect(o.store.getMeta<{ infrastructure: number }>("runner_faults")).toMatchObject({ infrastructure: 1 });
      } finally {
        setObjectEnv(o, realEnv);
      }
    });
    // The work is stored, and its rows wait in the object: nothing billed yet, nothing lost.
    expect(await ledger(site.siteId)).toBe(0);
    const mid = (await c.get(`/v1/jobs/${created.id}`)).body;
    expect(mid).toMatchObject({ status: "running", characters: created.estimated_characters });
    const queued = await runInDurableObject(stub, async (o: SiteObject) => o.store.one<{ n: number }>("SELECT sum(characters) AS n FROM ledger_outbox")!.n);
    expect(queued).toBe(mid.characters);
    // The next alarm writes them and finishes the job: billed once in all.
    await runInDurableObject(stub, (o: SiteObject) => o.alarm());
    const done = await runJob(c, site.siteId, created.id);
    expect(done).toMatchObject({ status: "succeeded", done_segments: 300 });
    expect(done.characters).toBe(created.estimated_characters);
    expect(await ledger(site.siteId)).toBe(done.characters);
    const slices = await env.DB.prepare("SELECT count(*) AS n, count(DISTINCT slice) AS d FROM usage_ledger WHERE site_id = ?").bind(site.siteId).first<{ n: number; d: number }>();
    expect(slices!.n).toBe(slices!.d);
  });
});
