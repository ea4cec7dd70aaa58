// Jobs on the production alarm path: JOB_ALARM_DELAY_MS is 0 in this project, so the alarm
// that POST /v1/jobs sets fires on its own and each invocation re-arms the next. Progress is
// read straight from the object's storage: no client request (which would re-arm a lost
// alarm) takes part, so the job finishing proves it needs none.
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { SiteObject } from "../../src/site/object";
import { client, createSite, unit } from "../helpers/api";
import { flakyDb } from "../helpers/faults";
import { allResults } from "../helpers/jobs";
import { objectEnv, setObjectEnv, stubOf } from "../helpers/site";

async function jobRow(siteId: number, id: number) {
  return runInDurableObject(
    stubOf(siteId),
    (o: SiteObject) =>
      o.store.one<{ status: string; done_segments: number; failed_segments: number; slices: number }>(
        "SELECT status, done_segments, failed_segments, slices FROM jobs WHERE id = ?",
        id,
      )!,
  );
}

describe("self-scheduling alarms", () => {
  it("a job runs to the end on its own alarms, with no client polling", async () => {
    const site = await createSite({ target_languages: [{ code: "de" }, { code: "fr" }] });
    const c = client(site.key);
    const segments = Array.from({ length: 600 }, (_, i) => ({ key: `k${i}`, text: `Paragraph ${i} of the page` }));
    expect((await c.put("/v1/units", unit("page:1", segments))).status).toBe(200);
    const created = await c.post("/v1/jobs", { confirm: true });
    expect(created.status).toBe(202);

    let row = await jobRow(site.siteId, created.body.id);
    for (let i = 0; i < 300 && (row.status === "queued" || row.status === "running"); i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      row = await jobRow(site.siteId, created.body.id);
    }
    expect(row).toMatchObject({ status: "succeeded", done_segments: 1200, failed_segments: 0 });
    // No alarm is left behind once no job waits.
    expect(await runInDurableObject(stubOf(site.siteId), (_o: SiteObject, state) => state.storage.getAlarm())).toBeNull();
    expect(await allResults(c)).toHaveLength(1200);
  });

  it("a D1 outage during the job: the alarm backs off and re-arms itself, and the job still finishes with no client polling", async () => {
    const site = await createSite({ target_languages: [{ code: "de" }] });
    const c = client(site.key);
    const segments = Array.from({ length: 300 }, (_, i) => ({ key: `k${i}`, text: `Line ${i} of the shop` }));
    expect((await c.put("/v1/units", unit("page:1", segments))).status).toBe(200);
    // D1 fails for the runner (usage and glossary look-ups) from the start of the job until the test lifts it.
    let down = true;
    const outage = flakyDb(env.DB, { down: (sql) => down && /usage_ledger|glossary/i.test(sql) });
    await runInDurableObject(stubOf(site.siteId), (o: SiteObject) => setObjectEnv(o, { ...objectEnv(o), DB: outage }));
    const created = await c.post("/v1/jobs", { confirm: true });
    expect(created.status).toBe(202);

    const faults = () => runInDurableObject(stubOf(site.siteId), (o: SiteObject) => o.store.getMeta<{ infrastructure: number }>("runner_faults"));
    for (let i = 0; i < 100 && !(await faults()); i++) await new Promise((resolve) => setTimeout(resolve, 20));
    expect((await faults())?.infrastructure).toBeGreaterThanOrEqual(1);
    expect(await runInDurableObject(stubOf(site.siteId), (_o: SiteObject, state) => state.storage.getAlarm())).not.toBeNull();
    down = false;

    let row = await jobRow(site.siteId, created.body.id);
    for (let i = 0; i < 400 && (row.status === "queued" || row.status === "running"); i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      row = await jobRow(site.siteId, created.body.id);
    }
    expect(row).toMatchObject({ status: "succeeded", done_segments: 300, failed_segments: 0 });
    expect(await faults()).toBeUndefined();
  });
});
