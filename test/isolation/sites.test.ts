// Isolation between sites: every public endpoint, called with site B's key and site A's ids and
// unit keys, reads nothing of A and changes nothing of A. A's complete visible state is taken
// before and after B's calls and must be identical.
import { describe, expect, it } from "vitest";
import { admin, client, createSite, request, unit } from "../helpers/api";
import { allResults, job, runJob } from "../helpers/jobs";

type Client = ReturnType<typeof client>;

/** Text only site A holds: it must never show up in another site's answers. */
const MARK = "Alphamarker";

async function siteA() {
  const site = await createSite({ qa_mode: "separate", target_languages: [{ code: "de" }, { code: "fr" }] });
  const c = client(site.key);
  await c.put(
    "/v1/units",
    unit("post:1", [
      { key: "a", text: `${MARK} one` },
      { key: "b", text: `${MARK} two` },
      // max_length 3: the translation is held back by QA (attention) in separate mode
      { key: "c", text: `${MARK} held`, max_length: 3 },
    ]),
  );
  await c.put("/v1/units", unit("page:1", [{ key: "x", text: `${MARK} page` }]));
  const finished = await job(c, site.siteId);
  expect(finished).toMatchObject({ status: "succeeded", done_segments: 8, qa_failed_segments: 2 });
  const results = await allResults(c);
  expect(results).toHaveLength(6);
  const held = (await c.get("/v1/attention")).body.items;
  expect(held).toHaveLength(2);
  // one acknowledged, one approved, the rest waiting
  await c.post("/v1/results/ack", { ids: [results[0].id] });
  await c.post("/v1/reviews", { reviews: [{ id: results[1].id, outcome: "approved" }] });
  // a queued job with work
  await c.put("/v1/units", unit("post:2", [{ key: "a", text: `${MARK} queued` }]));
  const queued = await c.post("/v1/jobs", {});
  expect(queued.status).toBe(202);
  return {
    site,
    c,
    resultIds: [...results.map((r) => r.id), ...held.map((h: any) => h.id)] as string[],
    heldIds: held.map((h: any) => h.id) as string[],
    jobIds: [finished.id, queued.body.id] as number[],
    unitKeys: ["post:1", "page:1", "post:2"],
  };
}

/** Everything site A's key can see. */
async function snapshot(c: Client, siteId: number, jobIds: number[], unitKeys: string[]) {
  const get = async (path: string) => {
    const res = await c.get(path);
    return [res.status, res.body];
  };
  return {
    site: await get("/v1/site"),
    status: await get("/v1/status"),
    statusPrefix: await get("/v1/status?prefix=post:"),
    units: await get("/v1/units"),
    unitStatus: await Promise.all(unitKeys.map((k) => get(`/v1/units/${k}/status`))),
    results: await get("/v1/results?limit=500"),
    attention: await get("/v1/attention"),
    jobs: await get("/v1/jobs"),
    active: await get("/v1/jobs?active=true"),
    each: await Promise.all(jobIds.map((id) => get(`/v1/jobs/${id}`))),
    usage: await get("/v1/usage"),
    adminAttention: (await admin("GET", `/admin/v1/sites/${siteId}/attention`)).body,
  };
}

describe("another site's key gets nothing of site A", () => {
  it("reads: 404 or nothing on every public endpoint", async () => {
    const a = await siteA();
    const b = await createSite({ target_languages: [{ code: "de" }] });
    const bc = client(b.key);
    const before = await snapshot(a.c, a.site.siteId, a.jobIds, a.unitKeys);
    const answers: unknown[] = [];
    const read = async (path: string) => {
      const res = await bc.get(path);
      answers.push(res.body);
      return res;
    };

    expect((await read("/v1/site")).body).toMatchObject({ id: b.siteId });
    for (const path of ["/v1/status", "/v1/status?prefix=post:", "/v1/status?prefix=page:1"]) expect((await read(path)).body).toMatchObject({ units_total: 0, segments_total: 0 });
    expect((await read("/v1/units")).body).toEqual({ units: [], next_cursor: null });
    expect((await read("/v1/units?prefix=post:&language=de")).body.units).toEqual([]);
    for (const key of a.unitKeys) expect((await read(`/v1/units/${key}/status`)).status).toBe(404);
    expect((await read("/v1/results")).body).toEqual({ results: [], next_cursor: null });
    expect((await read("/v1/results?unit=post:1")).body.results).toEqual([]);
    // A's own cursor, replayed with B's key, pages through B's (empty) results
    const cursor = (await a.c.get("/v1/results?limit=1")).body.next_cursor;
    expect(cursor).toEqual(expect.any(String));
    expect((await read(`/v1/results?limit=1&cursor=${cursor}`)).body.results).toEqual([]);
    expect((await read("/v1/attention")).body.items).toEqual([]);
    expect((await read("/v1/jobs")).body).toEqual([]);
    expect((await read("/v1/jobs?active=true")).body).toEqual([]);
    for (const id of a.jobIds) expect((await read(`/v1/jobs/${id}`)).status).toBe(404);
    expect((await read("/v1/usage")).body).toMatchObject({ used_characters: 0 });
    // A's queued job holds a reservation in A's organization only
    const estimate = await bc.post("/v1/jobs", { estimate_only: true });
    answers.push(estimate.body);
    expect(estimate.body).toMatchObject({ estimated_segments: 0, cost: { used_characters: 0, reserved_characters: 0 } });
    answers.push((await request("GET", "/v1/openapi.json")).body, (await request("GET", "/v1/health")).body);
    const text = JSON.stringify(answers);
    expect(text).not.toContain(MARK);
    for (const id of a.resultIds) expect(text).not.toContain(`"${id}"`);

    // A site of the same organization sees none of A's content either (only the pooled usage).
    const sibling = client((await createSite({ orgId: a.site.orgId, target_languages: [{ code: "de" }] })).key);
    expect((await sibling.get("/v1/status")).body).toMatchObject({ units_total: 0 });
    expect((await sibling.get("/v1/units")).body.units).toEqual([]);
    expect((await sibling.get("/v1/results")).body.results).toEqual([]);
    expect((await sibling.get("/v1/attention")).body.items).toEqual([]);
    expect((await sibling.get("/v1/jobs")).body).toEqual([]);
    for (const id of a.jobIds) expect((await sibling.get(`/v1/jobs/${id}`)).status).toBe(404);

    expect(await snapshot(a.c, a.site.siteId, a.jobIds, a.unitKeys)).toEqual(before);
  });

  it("writes: A's result ids, job ids and unit keys used with B's key change nothing of A", async () => {
    const a = await siteA();
    const b = await createSite({ target_languages: [{ code: "de" }, { code: "fr" }] });
    const bc = client(b.key);
    const before = await snapshot(a.c, a.site.siteId, a.jobIds, a.unitKeys);

    // results: acknowledge and review A's ids (including the held ones)
    expect((await bc.post("/v1/results/ack", { ids: a.resultIds })).body).toEqual({ acknowledged: 0 });
    for (const outcome of ["approved", "rejected"]) {
      const res = await bc.post("/v1/reviews", { reviews: a.resultIds.map((id) => ({ id, outcome, text: "Hijacked" })) });
      expect(res.body).toEqual({ updated: 0, ignored: a.resultIds });
    }
    // jobs: cancel A's queued and finished jobs
    for (const id of a.jobIds) expect((await bc.post(`/v1/jobs/${id}/cancel`)).status).toBe(404);
    // units: delete A's keys, push B's own units under the same keys, in a batch too
    for (const key of a.unitKeys) expect((await bc.del(`/v1/units/${key}`)).status).toBe(204);
    const pushed = await bc.put(
      "/v1/units",
      unit("post:1", [
        { key: "a", text: "Bravo one changed" },
        { key: "z", text: "Bravo new" },
      ]),
    );
    expect(pushed.body).toMatchObject({ unit_created: true, added: 2, changed: 0, removed: 0, stale_translations: 0 });
    const batch = await bc.put("/v1/units/batch", { units: [unit("page:1", [{ key: "x", text: "Bravo page" }]), unit("post:2", [{ key: "a", text: "Bravo two" }])] });
    expect(batch.body.results.map((r: any) => [r.ok, r.result.unit_created])).toEqual([
      [true, true],
      [true, true],
    ]);
    // handshake: B declares other languages and capabilities
    expect((await bc.post("/v1/handshake", { connector_version: "b/2", source_language: "en", languages: ["de"], capabilities: ["qa_errors", "whole_unit"] })).status).toBe(200);
    // jobs: B's own jobs get the same ids as A's; B translates and cancels its own
    const bFirst = await job(bc, b.siteId, { type: "translate", units: a.unitKeys });
    expect(bFirst.id).toBe(a.jobIds[0]);
    expect(bFirst).toMatchObject({ status: "succeeded", languages: ["de"], done_segments: 4 });
    const bResults = await allResults(bc);
    expect(bResults.map((r) => r.text).join(" ")).not.toContain(MARK);
    for (const r of bResults) expect(a.resultIds).not.toContain(r.id);
    await bc.put("/v1/units", unit("post:3", [{ key: "a", text: "Bravo three" }]));
    const bSecond = (await bc.post("/v1/jobs", {})).body;
    expect(bSecond.id).toBe(a.jobIds[1]);
    expect((await bc.post(`/v1/jobs/${bSecond.id}/cancel`)).body).toMatchObject({ id: bSecond.id, status: "cancelled" });
    expect((await bc.post("/v1/results/ack", { ids: bResults.map((r) => r.id) })).body.acknowledged).toBe(bResults.length);
    // admin calls addressed to B with A's ids
    const decided = await admin("POST", `/admin/v1/sites/${b.siteId}/attention/${a.heldIds[0]}`, { action: "discard" });
    expect(decided.status).toBe(404);
    expect((await admin("DELETE", `/admin/v1/sites/${b.siteId}/keys/${a.site.keyId}`)).status).toBe(404);
    expect((await admin("GET", `/admin/v1/sites/${b.siteId}/attention`)).body.items).toEqual([]);

    // A is exactly as it was: its queued job still queued, its results still listed, its key still valid.
    const after = await snapshot(a.c, a.site.siteId, a.jobIds, a.unitKeys);
    expect(after).toEqual(before);
    expect((await a.c.get(`/v1/jobs/${a.jobIds[1]}`)).body.status).toBe("queued");
    // and A's queued job, run now, still finds A's work only
    const ran = await runJob(a.c, a.site.siteId, a.jobIds[1]);
    expect(ran).toMatchObject({ status: "succeeded", done_segments: 2 });
  });
});
