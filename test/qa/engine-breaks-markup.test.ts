/** A job whose engine breaks markup: QA holds the translation back for the review queue, nothing broken is delivered. */
import { expect, it } from "vitest";
import { runAlarm } from "../../src/site/jobs/runner";
import { client, createSite, unit } from "../helpers/api";
import { fakeEngine } from "../helpers/fake-engine";
import { inObject } from "../helpers/site";

it("an engine that drops a closing tag: the segment is held back with an html_tags finding; the intact one is delivered", async () => {
  const site = await createSite({ qa_mode: "separate", target_languages: [{ code: "de" }] });
  const c = client(site.key);
  const pushed = await c.put(
    "/v1/units",
    unit("page:1", [
      { key: "body", text: "<p>Hello <b>world</b></p>", format: "html" },
      { key: "title", text: "Hello" },
    ]),
  );
  expect(pushed.status).toBe(200);
  const created = (await c.post("/v1/jobs", { confirm: true })).body;
  // Breaks the markup of every text that has a closing </b>.
  const engine = fakeEngine({ translation: (text) => `DE ${text.replace("</b>", "")}` });
  for (let i = 0; i < 10 && ["queued", "running"].includes((await c.get(`/v1/jobs/${created.id}`)).body.status); i++)
    await inObject(
      site.siteId,
      async (deps) => {
        await runAlarm(deps, { budgetMs: 60_000, maxSlices: 5, sliceItems: 50 });
      },
      { engineFor: () => engine },
    );
  expect((await c.get(`/v1/jobs/${created.id}`)).body.status).toBe("succeeded");
  const held = (await c.get("/v1/attention")).body.items;
  expect(held.map((i: { key: string }) => i.key)).toEqual(["body"]);
  expect(JSON.stringify(held[0])).toMatch(/tag/i);
  const delivered = (await c.get("/v1/results")).body.results;
  expect(delivered.map((r: { key: string }) => r.key)).toEqual(["title"]);
});
