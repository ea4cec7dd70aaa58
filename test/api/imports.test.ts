/**
 * `translations` on a push imports only into languages still empty (interface: "only fills
 * languages that are still empty"). Found by the model test alone until now (test/model), and in
 * 1 run of 6: here each state is set up by hand and an import aimed at it.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { client, createSite, type TestSite, unit } from "../helpers/api";
import { job } from "../helpers/jobs";

let site: TestSite;
let c: ReturnType<typeof client>;

type SegmentStatus = { key: string; states: Record<string, string>; results?: Record<string, { id: string | null; text: string; origin: string }> };
const segments = async () => ((await c.get("/v1/units/post:1/status?include=results")).body.segments as SegmentStatus[]).sort((a, b) => a.key.localeCompare(b.key));

const SEGMENTS = [
  { key: "review", text: "Hello world" },
  // Pseudo output grows past 12 characters: held back for the review queue (qa_mode separate).
  { key: "attention", text: "Hello there world", max_length: 12 },
  { key: "ok", text: "Good bye" },
];

beforeAll(async () => {
  site = await createSite({ qa_mode: "separate", target_languages: [{ code: "de" }] });
  c = client(site.key);
  expect((await c.put("/v1/units", unit("post:1", SEGMENTS))).status).toBe(200);
  await job(c, site.siteId);
  const byKey = Object.fromEntries((await segments()).map((s) => [s.key, s]));
  expect((await c.post("/v1/reviews", { reviews: [{ id: byKey.ok.results!.de.id, outcome: "approved" }] })).body.updated).toBe(1);
});

describe("an import (`translations` on a push)", () => {
  it("leaves a translation in review, in attention or approved as it was; fills a missing one", async () => {
    const before = await segments();
    expect(before.map((s) => [s.key, s.states.de])).toEqual([
      ["attention", "attention"],
      ["ok", "ok"],
      ["review", "review"],
    ]);
    const results = (await c.get("/v1/results")).body.results.map((r: { id: string }) => r.id);
    const held = (await c.get("/v1/attention")).body.items.map((i: { id: string }) => i.id);
    expect(results).toHaveLength(1);
    expect(held).toHaveLength(1);

    const pushed = await c.put(
      "/v1/units",
      unit("post:1", [...SEGMENTS.map((s) => ({ ...s, translations: { de: `Importiert ${s.key}` } })), { key: "missing", text: "New text", translations: { de: "Neuer Text" } }]),
    );
    expect(pushed.status).toBe(200);
    expect(pushed.body.imported_translations).toBe(1);

    const after = await segments();
    expect(after.map((s) => [s.key, s.states.de])).toEqual([
      ["attention", "attention"],
      ["missing", "ok"],
      ["ok", "ok"],
      ["review", "review"],
    ]);
    for (const s of before) expect(after.find((a) => a.key === s.key)?.results, s.key).toEqual(s.results);
    expect(after.find((s) => s.key === "missing")?.results?.de).toMatchObject({ id: null, text: "Neuer Text", origin: "imported" });
    expect((await c.get("/v1/results")).body.results.map((r: { id: string }) => r.id)).toEqual(results);
    expect((await c.get("/v1/attention")).body.items.map((i: { id: string }) => i.id)).toEqual(held);
  });

  it("fills a language whose translation was rejected (state missing again)", async () => {
    const review = (await segments()).find((s) => s.key === "review")!;
    expect((await c.post("/v1/reviews", { reviews: [{ id: review.results!.de.id, outcome: "rejected" }] })).body.updated).toBe(1);
    const pushed = await c.put(
      "/v1/units",
      unit("post:1", [...SEGMENTS.map((s) => (s.key === "review" ? { ...s, translations: { de: "Hallo Welt" } } : s)), { key: "missing", text: "New text" }]),
    );
    expect(pushed.body.imported_translations).toBe(1);
    expect((await segments()).find((s) => s.key === "review")).toMatchObject({ states: { de: "ok" }, results: { de: { text: "Hallo Welt", origin: "imported" } } });
  });
});
