/**
 * A job whose engine breaks markup. The fake engine runs the real engines' pipeline
 * (test/helpers/fake-engine.ts): it is sent protected text, and its answer is restored before
 * QA sees it, so the break happens on what a real engine receives. Nothing broken is delivered:
 * a break restoration accepts (tokens moved) is held back by QA's html_tags check; one it
 * refuses (a token lost) fails the segment's batch.
 */
import { expect, it } from "vitest";
import { runAlarm } from "../../src/site/jobs/runner";
import { client, createSite, unit } from "../helpers/api";
import { type FakeEngine, fakeEngine } from "../helpers/fake-engine";
import { inObject } from "../helpers/site";

/** A site with one unit of two HTML segments (one to break, one left intact) and a plain one, and its job run to the end with `engine`. */
async function runJob(engine: FakeEngine) {
  const site = await createSite({ qa_mode: "separate", target_languages: [{ code: "de" }] });
  const c = client(site.key);
  const pushed = await c.put(
    "/v1/units",
    unit("page:1", [
      { key: "body", text: "<p>Hello <b>world</b></p>", format: "html" },
      { key: "intro", text: "<p>Hi <em>there</em></p>", format: "html" },
      { key: "title", text: "Hello" },
    ]),
  );
  expect(pushed.status).toBe(200);
  const created = (await c.post("/v1/jobs", { confirm: true })).body;
  for (let i = 0; i < 10 && ["queued", "running"].includes((await c.get(`/v1/jobs/${created.id}`)).body.status); i++)
    await inObject(site.siteId, (deps) => runAlarm(deps, { budgetMs: 60_000, maxSlices: 5, sliceItems: 50 }), { engineFor: () => engine });
  const job = (await c.get(`/v1/jobs/${created.id}`)).body;
  const held = (await c.get("/v1/attention")).body.items as { key: string }[];
  const delivered = Object.fromEntries(((await c.get("/v1/results")).body.results as { key: string; text: string }[]).map((r) => [r.key, r.text]));
  return { job, held, delivered };
}

it("an engine that swaps the tokens of a <b> element: restoration puts them back as it was told, QA's html_tags holds the segment back; the intact ones are delivered", async () => {
  // The engine gets ⟦1⟧Hello ⟦2⟧world⟦3⟧⟦4⟧ for the body and answers with ⟦2⟧ and ⟦3⟧ in each other's place.
  const engine = fakeEngine({ translation: (text) => `DE ${text.replace("⟦2⟧world⟦3⟧", "⟦3⟧world⟦2⟧")}` });
  const { job, held, delivered } = await runJob(engine);

  // What the engine saw was protected: placeholders, never a tag.
  expect([...engine.texts].sort()).toEqual(["Hello", "⟦1⟧Hello ⟦2⟧world⟦3⟧⟦4⟧", "⟦1⟧Hi ⟦2⟧there⟦3⟧⟦4⟧"]);
  expect(job).toMatchObject({ status: "succeeded", done_segments: 3, failed_segments: 0, qa_failed_segments: 1 });
  expect(held.map((i) => i.key)).toEqual(["body"]);
  expect(JSON.stringify(held[0])).toContain("html_tags");
  // The segments the engine left alone come back with their markup byte-identical.
  expect(delivered).toEqual({ intro: "DE <p>Hi <em>there</em></p>", title: "DE Hello" });
});

it("an HTML-mode engine that drops a closing tag: restoration refuses the answer and the segment fails; nothing broken is delivered", async () => {
  // One text a request, so the refused answer fails only its own segment.
  const engine = fakeEngine({ mode: "html", limits: { maxSegments: 1 }, translation: (text) => `DE ${text.replace("</b>", "")}` });
  const { job, held, delivered } = await runJob(engine);

  expect(engine.texts).toContain('<p id="m1">Hello <b id="m2">world</b></p>');
  expect(job).toMatchObject({ status: "succeeded", done_segments: 2, failed_segments: 1, qa_failed_segments: 0 });
  expect(JSON.stringify(job.errors)).toMatch(/changed or dropped protected markup/);
  expect(held).toEqual([]);
  expect(delivered).toEqual({ intro: "DE <p>Hi <em>there</em></p>", title: "DE Hello" });
});
