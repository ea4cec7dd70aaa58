// The fast paths of a push must answer exactly what the full path would: an unchanged batch
// unit answered from its stored digest, and status by key type from maintained sums.
import { describe, expect, it } from "vitest";
import { admin, client, createSite, request, unit } from "../helpers/api";
import { job } from "../helpers/jobs";

const A = unit("post:1", [
  { key: "a", text: "Hello" },
  { key: "b", text: "World", fingerprint: "0".repeat(64) },
]);
const A2 = unit("post:1", [
  { key: "a", text: "Hello again" },
  { key: "b", text: "World", fingerprint: "0".repeat(64) },
]);

describe("an unchanged batch unit (snapshot digest)", () => {
  it("is answered as unchanged with the same fingerprint_mismatches, and any other push clears the digest", async () => {
    const site = await createSite();
    const c = client(site.key);
    const first = await c.put("/v1/units/batch", { units: [A] });
    expect(first.body.results[0].result).toMatchObject({ added: 2, fingerprint_mismatches: ["b"] });
    const again = await c.put("/v1/units/batch", { units: [A] });
    expect(again.body.results[0]).toEqual({
      external_key: "post:1",
      ok: true,
      error: null,
      result: {
        external_key: "post:1",
        unit_created: false,
        added: 0,
        changed: 0,
        removed: 0,
        unchanged: 2,
        stale_translations: 0,
        imported_translations: 0,
        fingerprint_mismatches: ["b"],
      },
    });
    // A single-unit push of other content, then the old batch again: a real push, not a replay.
    expect((await c.put("/v1/units", A2)).body).toMatchObject({ changed: 1 });
    expect((await c.put("/v1/units/batch", { units: [A] })).body.results[0].result).toMatchObject({ changed: 1, unchanged: 1 });
    // Deleted, then the same batch: restored.
    await c.del("/v1/units/post:1");
    expect((await c.put("/v1/units/batch", { units: [A] })).body.results[0].result).toMatchObject({ unit_created: true, unchanged: 2 });
    expect((await c.get("/v1/status")).body.units_total).toBe(1);
  });

  it("a key twice in one batch is applied in order", async () => {
    const site = await createSite();
    const c = client(site.key);
    await c.put("/v1/units/batch", { units: [A] });
    const res = await c.put("/v1/units/batch", { units: [A2, A] });
    expect(res.body.results.map((r: any) => r.result)).toMatchObject([{ changed: 1 }, { changed: 1 }]);
    const res2 = await c.put("/v1/units/batch", { units: [A, A2] });
    expect(res2.body.results.map((r: any) => r.result)).toMatchObject([{ unchanged: 2 }, { changed: 1 }]);
  });

  it("is the digest of the unit's text as sent: other spacing is a real push, and of two `units` arrays the one parsed counts", async () => {
    const site = await createSite();
    const raw = (text: string) => request("PUT", "/v1/units/batch", { key: site.key, raw: text, headers: { "content-type": "application/json" } });
    // JSON.parse keeps the last `units`: A is applied, and its digest must be of A's text, not A2's.
    const first = await raw(`{"units": [${JSON.stringify(A2)}], "units": [${JSON.stringify(A)}]}`);
    expect(first.body.results).toHaveLength(1);
    expect(first.body.results[0].result).toMatchObject({ unit_created: true, added: 2 });
    expect((await raw(`{"units": [${JSON.stringify(A2)}]}`)).body.results[0].result).toMatchObject({ changed: 1, unchanged: 1 });
    // The same unit spaced otherwise: not the text last applied, so diffed in full, with the same answer.
    expect((await raw(`{"units": [${JSON.stringify(A2, null, 2)}]}`)).body.results[0].result).toMatchObject({ changed: 0, unchanged: 2, fingerprint_mismatches: ["b"] });
    expect((await raw(`{"units": [${JSON.stringify(A2, null, 2)}]}`)).body.results[0].result).toMatchObject({ changed: 0, unchanged: 2, fingerprint_mismatches: ["b"] });
  });

  it("is refused again when its adapter was disabled since", async () => {
    const site = await createSite();
    const c = client(site.key);
    await c.put("/v1/units/batch", { units: [A] });
    await admin("PATCH", `/admin/v1/sites/${site.siteId}`, { enabled_adapters: ["drupal"] });
    const res = await c.put("/v1/units/batch", { units: [A] });
    expect(res.body.results[0]).toMatchObject({ ok: false, error: expect.stringMatching(/adapter "wordpress" is not enabled/) });
  });

  it("a snapshot with translations is always applied (an import may apply now that did not before)", async () => {
    const site = await createSite({ target_languages: [{ code: "de" }] });
    const c = client(site.key);
    const withImport = unit("post:1", [{ key: "a", text: "Hello", translations: { de: "Hallo" } }]);
    expect((await c.put("/v1/units/batch", { units: [withImport] })).body.results[0].result).toMatchObject({ imported_translations: 1 });
    await job(c, site.siteId, { type: "translate", units: ["post:1"], force: true });
    const [r] = (await c.get("/v1/results")).body.results;
    await c.post("/v1/reviews", { reviews: [{ id: r.id, outcome: "rejected" }] });
    expect((await c.put("/v1/units/batch", { units: [withImport] })).body.results[0].result).toMatchObject({ imported_translations: 1, unchanged: 1 });
  });
});

describe("status by key type", () => {
  it("GET /v1/status?prefix=post: agrees with the summed counts of the same units", async () => {
    const site = await createSite({ target_languages: [{ code: "de" }, { code: "fr" }] });
    const c = client(site.key);
    const both = async () => {
      const [typed, summed, other] = await Promise.all([c.get("/v1/status?prefix=post:"), c.get("/v1/status?prefix=pos"), c.get("/v1/status?prefix=page:")]);
      expect(typed.body).toEqual(summed.body);
      return { post: typed.body, page: other.body };
    };
    await c.put("/v1/units/batch", {
      units: [
        A,
        unit("post:2", [{ key: "x", text: "One" }]),
        unit("page:1", [
          { key: "y", text: "Two" },
          { key: "z", text: "Three" },
        ]),
      ],
    });
    let s = await both();
    expect(s.post).toMatchObject({ units_total: 2, segments_total: 3 });
    expect(s.page).toMatchObject({ units_total: 1, segments_total: 2 });
    await job(c, site.siteId, { languages: ["de"] });
    s = await both();
    expect(s.post.languages[0]).toMatchObject({ code: "de", review: 3, missing: 0 });
    await c.put("/v1/units", A2);
    await c.del("/v1/units/post:2");
    await admin("PATCH", `/admin/v1/sites/${site.siteId}`, {
      target_languages: [
        { code: "de", engine: "pseudo" },
        { code: "it", engine: "pseudo" },
      ],
    });
    s = await both();
    expect(s.post).toMatchObject({ units_total: 1, segments_total: 2 });
    expect(s.post.languages.map((l: any) => l.code)).toEqual(["de", "it"]);
    expect(s.post.languages[0]).toMatchObject({ stale: 1, review: 1 });
  });
});
