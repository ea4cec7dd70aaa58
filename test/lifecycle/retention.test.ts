// Retention, run by the site's alarm: a deleted unit stays restorable for 30 days and is then
// purged with its segments, translations and results; a superseded result is purged 30 days
// after it was replaced; the work goes in bounded steps; an alarm is set while retention has
// work; and the object refuses R2 keys outside its own prefix.
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import type { SiteSettings } from "../../src/control/sites.control";
import type { SiteObject } from "../../src/site/object";
import { runRetention, SEGMENTS_PER_STEP } from "../../src/site/results/retention";
import { client, createSite, unit } from "../helpers/api";
import { allResults, job } from "../helpers/jobs";
import { setClock } from "../helpers/seams";
import { stubOf } from "../helpers/site";

afterEach(() => setClock(undefined));

const DAY = 86_400_000;
const T0 = new Date("2026-03-01T12:00:00.000Z");
const at = (days: number, ms = 0) => new Date(T0.getTime() + days * DAY + ms);

/** Rows the object holds for one unit (by external key) and in all. */
async function rows(siteId: number, externalKey: string) {
  return runInDurableObject(stubOf(siteId), (o: SiteObject) => {
    const n = (q: string, ...a: unknown[]) => o.store.one<{ n: number }>(q, ...a)?.n ?? 0;
    const u = "(SELECT id FROM units WHERE external_key = ?)";
    return {
      unit: n(`SELECT count(*) AS n FROM units WHERE external_key = ?`, externalKey),
      segments: n(`SELECT count(*) AS n FROM segments WHERE unit_id IN ${u}`, externalKey),
      translations: n(`SELECT count(*) AS n FROM translations WHERE segment_id IN (SELECT id FROM segments WHERE unit_id IN ${u})`, externalKey),
      results: n(`SELECT count(*) AS n FROM results WHERE unit_id IN ${u}`, externalKey),
      allResults: n("SELECT count(*) AS n FROM results"),
    };
  });
}

const alarmAt = (siteId: number) => runInDurableObject(stubOf(siteId), (_o: SiteObject, state) => state.storage.getAlarm());

describe("deleted units", () => {
  it("are restorable for 30 days, then purged with their segments, translations and results; other units stay", async () => {
    setClock(T0);
    const site = await createSite();
    const c = client(site.key);
    for (const key of ["post:gone", "post:kept", "post:back"])
      expect(
        (
          await c.put(
            "/v1/units",
            unit(key, [
              { key: "title", text: `Title of ${key}` },
              { key: "body", text: `Body of ${key}.` },
            ]),
          )
        ).status,
      ).toBe(200);
    expect((await job(c, site.siteId)).status).toBe("succeeded");
    expect(await rows(site.siteId, "post:gone")).toMatchObject({ unit: 1, segments: 2, translations: 4, results: 4 });

    expect((await c.del("/v1/units/post:gone")).status).toBe(204);
    expect((await c.del("/v1/units/post:back")).status).toBe(204);
    // an alarm is set for when the deletion expires
    expect(await alarmAt(site.siteId)).toBeGreaterThanOrEqual(Date.now() + 29 * DAY);

    // day 10: post:back is pushed again and restored with its translations
    setClock(at(10));
    const back = await c.put(
      "/v1/units",
      unit("post:back", [
        { key: "title", text: "Title of post:back" },
        { key: "body", text: "Body of post:back." },
      ]),
    );
    expect(back.body).toMatchObject({ unit_created: true, unchanged: 2 });

    // day 29: nothing is purged yet
    setClock(at(29, 23 * 3_600_000));
    await runDurableObjectAlarm(stubOf(site.siteId));
    expect(await rows(site.siteId, "post:gone")).toMatchObject({ unit: 1, segments: 2, translations: 4, results: 4 });

    // day 30: purged; the restored and the untouched units keep everything
    setClock(at(30, 1_000));
    expect(await alarmAt(site.siteId)).not.toBeNull();
    await runDurableObjectAlarm(stubOf(site.siteId));
    expect(await rows(site.siteId, "post:gone")).toMatchObject({ unit: 0, segments: 0, translations: 0, results: 0 });
    for (const key of ["post:kept", "post:back"]) expect(await rows(site.siteId, key)).toMatchObject({ unit: 1, segments: 2, translations: 4, results: 4 });
    expect((await c.get("/v1/status")).body).toMatchObject({ units_total: 2, segments_total: 4 });
    // nothing left to wait for: no alarm
    expect(await alarmAt(site.siteId)).toBeNull();

    // pushing the key again creates a new unit, with nothing translated
    const again = await c.put("/v1/units", unit("post:gone", [{ key: "title", text: "Title of post:gone" }]));
    expect(again.body).toMatchObject({ unit_created: true, added: 1 });
    const matrix = (await c.get("/v1/units/post:gone/status")).body;
    expect(matrix.segments.map((s: any) => s.states)).toEqual([{ de: "missing", fr: "missing" }]);
  });

  it("are purged in bounded steps", async () => {
    setClock(T0);
    const site = await createSite({ target_languages: [{ code: "de" }] });
    const c = client(site.key);
    const total = 2 * SEGMENTS_PER_STEP + 500;
    const segments = Array.from({ length: total }, (_, i) => ({ key: `s${i}`, text: `Segment number ${i}` }));
    expect((await c.put("/v1/units", unit("big", segments))).status).toBe(200);
    expect((await c.put("/v1/units", unit("small", [{ key: "a", text: "Small" }]))).status).toBe(200);
    await c.del("/v1/units/big");
    await c.del("/v1/units/small");

    const steps = await runInDurableObject(stubOf(site.siteId), (o: SiteObject) => {
      const now = at(31);
      const out = [];
      for (let i = 0; i < 5; i++) out.push(runRetention(o.store, now, 1));
      return out;
    });
    expect(steps.map((s) => [s.segments, s.units, s.more])).toEqual([
      [SEGMENTS_PER_STEP, 0, true],
      [SEGMENTS_PER_STEP, 0, true],
      [501, 2, false],
      [0, 0, false],
      [0, 0, false],
    ]);
    expect(await rows(site.siteId, "big")).toMatchObject({ unit: 0, segments: 0 });
  });
});

describe("superseded results", () => {
  it("are purged 30 days after they were replaced; current results stay", async () => {
    setClock(T0);
    const site = await createSite({ target_languages: [{ code: "de" }] });
    const c = client(site.key);
    await c.put("/v1/units", unit("post:1", [{ key: "a", text: "Hello world" }]));
    await job(c, site.siteId);
    const first = await allResults(c);
    expect(first).toHaveLength(1);
    expect((await c.post("/v1/results/ack", { ids: [first[0].id] })).body).toMatchObject({ acknowledged: 1 });

    setClock(at(5));
    await job(c, site.siteId, { type: "translate", units: ["post:1"], force: true });
    const second = await allResults(c);
    expect(second.map((r) => r.id)).not.toContain(first[0].id);
    expect(second).toHaveLength(1);
    expect((await rows(site.siteId, "post:1")).results).toBe(2);
    // the alarm waits for the superseded result's expiry
    expect(await alarmAt(site.siteId)).toBeGreaterThanOrEqual(Date.now() + 29 * DAY);

    setClock(at(34));
    await runDurableObjectAlarm(stubOf(site.siteId));
    expect((await rows(site.siteId, "post:1")).results).toBe(2);

    setClock(at(35, 1_000));
    await runDurableObjectAlarm(stubOf(site.siteId));
    expect((await rows(site.siteId, "post:1")).results).toBe(1);
    // the current one is untouched and still delivered
    expect((await allResults(c)).map((r) => r.id)).toEqual(second.map((r) => r.id));
    expect((await c.get("/v1/units/post:1/status")).status).toBe(200);
  });
});

describe("retention's alarm and the job runner's", () => {
  it("a job is never left waiting behind retention's alarm days ahead (creating or polling it brings the alarm forward)", async () => {
    const site = await createSite({ target_languages: [{ code: "de" }] });
    const c = client(site.key);
    await c.put("/v1/units", unit("post:1", [{ key: "a", text: "Hello world" }]));
    await job(c, site.siteId);
    await job(c, site.siteId, { type: "translate", units: ["post:1"], force: true });
    expect(await alarmAt(site.siteId)).toBeGreaterThanOrEqual(Date.now() + 29 * DAY);

    await c.put("/v1/units", unit("post:1", [{ key: "a", text: "Hello there" }]));
    const created = await c.post("/v1/jobs", { confirm: true });
    expect(created.status).toBe(202);
    const soon = Date.now() + 2 * 3_600_000; // the pool's JOB_ALARM_DELAY_MS is one hour
    expect(await alarmAt(site.siteId)).toBeLessThan(soon);

    // a lost alarm is repaired by a poll even while retention's is set
    await runInDurableObject(stubOf(site.siteId), (_o: SiteObject, state) => state.storage.setAlarm(Date.now() + 30 * DAY));
    expect((await c.get(`/v1/jobs/${created.body.id}`)).status).toBe(200);
    expect(await alarmAt(site.siteId)).toBeLessThan(soon);
  });
});

describe("R2 prefixes", () => {
  it("the site object refuses a batch body outside batches/<its site id>/ (and neither reads nor deletes it)", async () => {
    const a = await createSite();
    const b = await createSite();
    const foreign = `batches/${b.siteId}/theirs.json`;
    await env.BLOBS.put(foreign, JSON.stringify({ units: [unit("post:x", [{ key: "a", text: "Theirs" }])] }));
    const settings = await runInDurableObject(stubOf(a.siteId), (o: SiteObject) => o.store.getMeta<SiteSettings>("settings")!);
    for (const blobKey of [foreign, `batches/${a.siteId}x/y.json`, `other/${a.siteId}/y.json`, `batches/${a.siteId}`]) {
      await expect(runInDurableObject(stubOf(a.siteId), (o: SiteObject) => o.pushBatch(settings, { blobKey }))).rejects.toThrow(/refused/);
    }
    expect(await env.BLOBS.head(foreign)).not.toBeNull();
    expect((await client(a.key).get("/v1/status")).body).toMatchObject({ units_total: 0 });
  });
});
