/**
 * One `results.available` per batch of results (issue 40: it arrived twice for one job, with
 * different ids): the event's data is composed only when a deliverable result is newer than
 * the ones the last event announced; the burst window's second compose message finds none.
 */
import { describe, expect, it } from "vitest";
import { client, createSite, unit } from "../helpers/api";
import { job } from "../helpers/jobs";
import { stubOf } from "../helpers/site";

const compose = (siteId: number) => stubOf(siteId).webhookData("results.available");

describe("results.available data", () => {
  it("is composed once per batch of new results: a second compose of the same results sends nothing", async () => {
    const site = await createSite();
    const c = client(site.key);
    expect(await compose(site.siteId)).toBeNull();
    await c.put(
      "/v1/units",
      unit("post:1", [
        { key: "a", text: "Hello" },
        { key: "b", text: "World" },
      ]),
    );
    await job(c, site.siteId);
    // Both compose messages of the job's burst (the window's first and its last) read the same results.
    expect(await compose(site.siteId)).toEqual({ pending: 4, languages: ["de", "fr"] });
    expect(await compose(site.siteId)).toBeNull();
    // Acknowledging changes nothing new to announce.
    const ids = (await c.get("/v1/results")).body.results.map((r: any) => r.id);
    await c.post("/v1/results/ack", { ids: ids.slice(0, 2) });
    expect(await compose(site.siteId)).toBeNull();
    // A later job's results are a new batch: announced once, with everything still pending.
    await c.put("/v1/units", unit("post:2", [{ key: "a", text: "Another text" }]));
    await job(c, site.siteId);
    expect(await compose(site.siteId)).toEqual({ pending: 4, languages: ["de", "fr"] });
    expect(await compose(site.siteId)).toBeNull();
  });
});
