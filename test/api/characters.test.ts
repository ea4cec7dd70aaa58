// Characters (docs/decisions.md "Pushes"): every limit, estimate, reservation and bill
// counts Unicode code points, the same count everywhere; a segment's count is computed once at
// push and stored.
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { SiteObject } from "../../src/site/object";
import { client, createSite, unit } from "../helpers/api";
import { runJob } from "../helpers/jobs";
import { stubOf } from "../helpers/site";

const EMOJI = "😀"; // one code point, two UTF-16 units

describe("characters are code points", () => {
  it("a text of 100,000 emoji is within the 100,000-character limit; one more is a 422 naming the field", async () => {
    const site = await createSite({ target_languages: [{ code: "de" }] });
    const c = client(site.key);
    const full = EMOJI.repeat(100_000);
    const ok = await c.put("/v1/units", unit("post:1", [{ key: "a", text: full, translations: { de: full } }]));
    expect(ok.status, JSON.stringify(ok.body).slice(0, 300)).toBe(200);
    const over = await c.put("/v1/units", unit("post:2", [{ key: "a", text: full + EMOJI }]));
    expect(over.status).toBe(422);
    expect(over.body.detail).toBe("segments[0].text must have at most 100000 characters (Unicode code points)");
    const overImport = await c.put("/v1/units", unit("post:3", [{ key: "a", text: "Hi", translations: { de: `${full}x` } }]));
    expect(overImport.status).toBe(422);
    expect(overImport.body.detail).toMatch(/^segments\[0\]\.translations\.de must have at most 100000 characters/);
    // Short fields too: a 200-character name may be 200 emoji.
    const key = await c.put("/v1/units", unit("post:4", [{ key: EMOJI.repeat(500), text: "x" }], { label: EMOJI.repeat(500) }));
    expect(key.status).toBe(200);
  });

  it("the count is stored per segment at push, and estimate, reservation, job and ledger all use it", async () => {
    const site = await createSite({ target_languages: [{ code: "de" }, { code: "fr" }] });
    const c = client(site.key);
    const texts = ["Héllo wörld", `${EMOJI}${EMOJI} party 🇩🇪`, "日本語のテキスト", "e\u0301"];
    await c.put(
      "/v1/units",
      unit(
        "post:1",
        texts.map((text, i) => ({ key: `k${i}`, text })),
      ),
    );
    const codePoints = texts.map((t) => [...t].length);
    const stored = await runInDurableObject(stubOf(site.siteId), (o: SiteObject) =>
      o.store.all<{ key: string; characters: number }>("SELECT key, characters FROM segments ORDER BY key"),
    );
    expect(stored.map((s) => s.characters)).toEqual(codePoints);

    const perLanguage = codePoints.reduce((a, b) => a + b, 0);
    const estimate = await c.post("/v1/jobs", { estimate_only: true });
    expect(estimate.body.estimated_characters).toBe(2 * perLanguage);
    const created = await c.post("/v1/jobs", { confirm: true });
    const reserved = await env.DB.prepare("SELECT characters FROM reservations WHERE site_id = ?").bind(site.siteId).first<{ characters: number }>();
    expect(reserved!.characters).toBe(2 * perLanguage);
    const finished = await runJob(c, site.siteId, created.body.id);
    expect(finished).toMatchObject({ status: "succeeded", characters: 2 * perLanguage });
    const ledger = await env.DB.prepare("SELECT sum(characters) AS n FROM usage_ledger WHERE site_id = ?").bind(site.siteId).first<{ n: number }>();
    expect(ledger!.n).toBe(2 * perLanguage);
  });

  it("a changed text is counted again; an unchanged one keeps its count", async () => {
    const site = await createSite({ target_languages: [{ code: "de" }] });
    const c = client(site.key);
    await c.put(
      "/v1/units",
      unit("post:1", [
        { key: "a", text: "abc" },
        { key: "b", text: "xyz" },
      ]),
    );
    await c.put(
      "/v1/units",
      unit("post:1", [
        { key: "a", text: `${EMOJI}abc${EMOJI}` },
        { key: "b", text: "xyz", format: "html" },
      ]),
    );
    const stored = await runInDurableObject(stubOf(site.siteId), (o: SiteObject) =>
      o.store.all<{ key: string; characters: number }>("SELECT key, characters FROM segments ORDER BY key"),
    );
    expect(stored).toEqual([
      { key: "a", characters: 5 },
      { key: "b", characters: 3 },
    ]);
  });
});
