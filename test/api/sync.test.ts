import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { fingerprint } from "../../src/site/fingerprint";
import { client, createSite, request, unit } from "../helpers/api";

const seg = (key: string, text: string, extra: Record<string, unknown> = {}) => ({ key, text, ...extra });

async function setup(opts: Parameters<typeof createSite>[0] = {}) {
  const site = await createSite(opts);
  return { site, c: client(site.key) };
}

async function states(c: ReturnType<typeof client>, key: string) {
  const res = await c.get(`/v1/units/${key}/status`);
  expect(res.status).toBe(200);
  return Object.fromEntries(res.body.segments.map((s: any) => [s.key, s.states]));
}

describe("PUT /v1/units", () => {
  it("adds a new unit and reports every count", async () => {
    const { c } = await setup();
    const res = await c.put("/v1/units", unit("post:1", [seg("title", "Hello"), seg("body", "<p>World</p>", { format: "html" })]));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      external_key: "post:1",
      unit_created: true,
      added: 2,
      changed: 0,
      removed: 0,
      unchanged: 0,
      stale_translations: 0,
      imported_translations: 0,
      fingerprint_mismatches: [],
    });
    expect(await states(c, "post:1")).toEqual({ title: { de: "missing", fr: "missing" }, body: { de: "missing", fr: "missing" } });
  });

  it("is idempotent: the same snapshot twice changes nothing", async () => {
    const { c } = await setup();
    const body = unit("post:1", [seg("title", "Hello", { translations: { de: "Hallo" } }), seg("body", "World")]);
    await c.put("/v1/units", body);
    const before = await states(c, "post:1");
    const again = await c.put("/v1/units", body);
    expect(again.body).toMatchObject({ unit_created: false, added: 0, changed: 0, removed: 0, unchanged: 2, stale_translations: 0, imported_translations: 0 });
    expect(await states(c, "post:1")).toEqual(before);
  });

  it("a text change makes translations stale; reverting makes them current again with their previous state", async () => {
    const { c } = await setup();
    await c.put("/v1/units", unit("post:1", [seg("title", "Hello", { translations: { de: "Hallo", fr: "Bonjour" } }), seg("body", "World")]));
    expect((await states(c, "post:1")).title).toEqual({ de: "ok", fr: "ok" });
    const changed = await c.put("/v1/units", unit("post:1", [seg("title", "Hello there"), seg("body", "World")]));
    expect(changed.body).toMatchObject({ changed: 1, unchanged: 1, stale_translations: 2 });
    expect((await states(c, "post:1")).title).toEqual({ de: "stale", fr: "stale" });
    const reverted = await c.put("/v1/units", unit("post:1", [seg("title", "Hello"), seg("body", "World")]));
    expect(reverted.body).toMatchObject({ changed: 1, stale_translations: 0 });
    expect((await states(c, "post:1")).title).toEqual({ de: "ok", fr: "ok" });
  });

  it("structure-only changes are stored without staleness", async () => {
    const { c } = await setup();
    await c.put("/v1/units", unit("post:1", [seg("a", "One", { translations: { de: "Eins" } }), seg("b", "Two")]));
    const res = await c.put(
      "/v1/units",
      unit("post:1", [seg("b", "Two", { kind: "title" }), seg("a", "One", { position: 7, parent_key: "b", field: "f", max_length: 10, format: "html", kind: "body" })]),
    );
    expect(res.body).toMatchObject({ changed: 0, unchanged: 2, stale_translations: 0 });
    const status = await c.get("/v1/units/post:1/status");
    const a = status.body.segments.find((s: any) => s.key === "a");
    expect(a).toMatchObject({ position: 7, parent_key: "b", field: "f", kind: "body", states: { de: "ok", fr: "missing" } });
  });

  it("removes absent keys and restores them with their translations when they reappear", async () => {
    const { c } = await setup();
    await c.put("/v1/units", unit("post:1", [seg("a", "One", { translations: { de: "Eins" } }), seg("b", "Two")]));
    const removed = await c.put("/v1/units", unit("post:1", [seg("b", "Two")]));
    expect(removed.body).toMatchObject({ removed: 1, unchanged: 1, added: 0 });
    expect(Object.keys(await states(c, "post:1"))).toEqual(["b"]);
    expect((await c.get("/v1/status")).body.segments_total).toBe(1);
    const back = await c.put("/v1/units", unit("post:1", [seg("a", "One"), seg("b", "Two")]));
    expect(back.body).toMatchObject({ added: 1, removed: 0, unchanged: 1 });
    expect((await states(c, "post:1")).a).toEqual({ de: "ok", fr: "missing" });
  });

  it("imports translations only into empty languages of the site", async () => {
    const { c } = await setup();
    const first = await c.put("/v1/units", unit("post:1", [seg("a", "One", { translations: { de: "Eins", es: "Uno", DE: "x" } })]));
    expect(first.body.imported_translations).toBe(1);
    const second = await c.put("/v1/units", unit("post:1", [seg("a", "One", { translations: { de: "EINS!", fr: "Un" } })]));
    expect(second.body.imported_translations).toBe(1);
    expect((await states(c, "post:1")).a).toEqual({ de: "ok", fr: "ok" });
    // an import does not overwrite: after a text change the imported translation is stale
    await c.put("/v1/units", unit("post:1", [seg("a", "One!", { translations: { de: "Eins!" } })]));
    expect((await states(c, "post:1")).a).toEqual({ de: "stale", fr: "stale" });
  });

  it("reports fingerprint mismatches using the documented algorithm", async () => {
    const { c } = await setup();
    const text = "Cafe\u0301\r\nline";
    const ours = fingerprint(text);
    const expected = await crypto.subtle.digest("SHA-256", new TextEncoder().encode("Caf\u00e9\nline"));
    expect(ours).toBe([...new Uint8Array(expected)].map((b) => b.toString(16).padStart(2, "0")).join(""));
    const res = await c.put("/v1/units", unit("post:1", [seg("a", text, { fingerprint: ours }), seg("b", "x", { fingerprint: "deadbeef" })]));
    expect(res.body.fingerprint_mismatches).toEqual(["b"]);
  });

  it("writable_languages restricts the unit's target languages", async () => {
    const { c } = await setup();
    await c.put("/v1/units", unit("post:1", [seg("a", "One")], { writable_languages: ["fr"] }));
    expect((await states(c, "post:1")).a).toEqual({ fr: "missing" });
    expect((await c.get("/v1/status")).body.languages).toEqual([
      { code: "de", ok: 0, stale: 0, review: 0, missing: 0, attention: 0, attention_url: "" },
      { code: "fr", ok: 0, stale: 0, review: 0, missing: 1, attention: 0, attention_url: "" },
    ]);
  });

  it("refuses an adapter not enabled for the site", async () => {
    const { c } = await setup({ enabled_adapters: ["drupal"] });
    const res = await c.put("/v1/units", unit("post:1", [seg("a", "One")]));
    expect(res.status).toBe(422);
    expect(res.body.detail).toMatch(/adapter "wordpress" is not enabled/);
  });

  it.each([
    ["external_key pattern", { external_key: "post 1" }, /^external_key must match the pattern/],
    ["external_key length", { external_key: "k".repeat(256) }, /^external_key must have at most 255 characters/],
    ["adapter", { adapter: "joomla" }, /^adapter must be one of/],
    ["label", { label: "l".repeat(501) }, /^label must have at most 500 characters/],
    ["path", { path: "p".repeat(2001) }, /^path must have at most 2000 characters/],
    ["segments count", { segments: Array.from({ length: 5001 }, (_, i) => seg(`k${i}`, "x")) }, /^segments must have at most 5000 items/],
    ["segment key", { segments: [seg("k".repeat(501), "x")] }, /^segments\[0\]\.key must have at most 500 characters/],
    ["empty segment key", { segments: [seg("", "x")] }, /^segments\[0\]\.key must have at least 1 character/],
    ["text", { segments: [seg("a", "x".repeat(100_001))] }, /^segments\[0\]\.text must have at most 100000 characters/],
    ["field", { segments: [seg("a", "x", { field: "f".repeat(201) })] }, /^segments\[0\]\.field must have at most 200 characters/],
    ["kind", { segments: [seg("a", "x", { kind: "k".repeat(51) })] }, /^segments\[0\]\.kind must have at most 50 characters/],
    ["parent_key", { segments: [seg("a", "x", { parent_key: "p".repeat(501) })] }, /^segments\[0\]\.parent_key must have at most 500 characters/],
    ["max_length", { segments: [seg("a", "x", { max_length: 0 })] }, /^segments\[0\]\.max_length must be at least 1/],
    ["position", { segments: [seg("a", "x", { position: -1 })] }, /^segments\[0\]\.position must be at least 0/],
    ["format", { segments: [seg("a", "x", { format: "pdf" })] }, /^segments\[0\]\.format must be one of/],
    ["duplicate keys", { segments: [seg("a", "x"), seg("a", "y")] }, /^segments\[1\]\.key duplicates the key "a"/],
    ["source_language", { source_language: "e" }, /^source_language must have at least 2 characters/],
    ["writable_languages", { writable_languages: ["d!"] }, /^writable_languages\[0\] must match the pattern/],
    ["missing segments", { segments: undefined }, /^segments is required/],
  ])("422 names the field: %s", async (_name, over, detail) => {
    const { c } = await setup();
    const res = await c.put("/v1/units", { ...unit("post:1", [seg("a", "One")]), ...over });
    expect(res.status).toBe(422);
    expect(res.body.detail).toMatch(detail);
    // nothing stored
    expect((await c.get("/v1/status")).body.units_total).toBe(0);
  });

  it("accepts every bound exactly", async () => {
    const { c } = await setup();
    const res = await c.put("/v1/units", {
      ...unit("k".repeat(255), [
        seg("k".repeat(500), "x".repeat(100_000), { field: "f".repeat(200), kind: "k".repeat(50), parent_key: "p".repeat(500), max_length: 1, position: 0 }),
      ]),
      label: "l".repeat(500),
      path: "p".repeat(2000),
    });
    expect(res.status).toBe(200);
  });
});

describe("PUT /v1/units/batch", () => {
  it("applies each unit on its own, in sent order, with failures in place", async () => {
    const { c } = await setup({ enabled_adapters: ["wordpress"] });
    const res = await c.put("/v1/units/batch", {
      units: [
        unit("post:1", [seg("a", "One")]),
        { ...unit("post:2", [seg("a", "Two")]), adapter: "drupal" },
        unit("bad key", [seg("a", "x")]),
        { external_key: "post:4" },
        unit("post:5", [seg("a", "Five"), seg("a", "dup")]),
        unit("post:6", [seg("a", "Six")]),
      ],
    });
    expect(res.status).toBe(200);
    const r = res.body.results;
    expect(r.map((x: any) => [x.external_key, x.ok])).toEqual([
      ["post:1", true],
      ["post:2", false],
      ["bad key", false],
      ["post:4", false],
      ["post:5", false],
      ["post:6", true],
    ]);
    expect(r[0].result).toMatchObject({ unit_created: true, added: 1 });
    expect(r[0].error).toBeNull();
    expect(r[1]).toMatchObject({ result: null, error: expect.stringMatching(/units\[1\]\.adapter "drupal" is not enabled/) });
    expect(r[2].error).toMatch(/^units\[2\]\.external_key must match the pattern/);
    expect(r[3].error).toMatch(/^units\[3\]\.adapter is required/);
    expect(r[4].error).toMatch(/^units\[4\]\.segments\[1\]\.key duplicates/);
    expect((await c.get("/v1/status")).body.units_total).toBe(2);
  });

  it("refuses an empty or oversized batch with 422", async () => {
    const { c } = await setup();
    expect((await c.put("/v1/units/batch", { units: [] })).body.detail).toMatch(/^units must have at least 1 item/);
    const many = Array.from({ length: 101 }, (_, i) => unit(`p:${i}`, [seg("a", "x")]));
    const res = await c.put("/v1/units/batch", { units: many });
    expect(res.status).toBe(422);
    expect(res.body.detail).toMatch(/^units must have at most 100 items/);
  });

  it("stores bodies above 1 MB in R2, applies them from there and removes the object", async () => {
    const { site, c } = await setup();
    const text = "y".repeat(20_000);
    const units = Array.from({ length: 60 }, (_, i) => unit(`big:${i}`, [seg("a", `${i} ${text}`)]));
    const puts: string[] = [];
    const deletes: string[] = [];
    const put = env.BLOBS.put.bind(env.BLOBS);
    const del = env.BLOBS.delete.bind(env.BLOBS);
    const { vi } = await import("vitest");
    const spyPut = vi.spyOn(env.BLOBS, "put").mockImplementation((key: any, ...rest: any[]) => {
      puts.push(key);
      return (put as any)(key, ...rest);
    });
    const res = await c.put("/v1/units/batch", { units });
    spyPut.mockRestore();
    expect(res.status).toBe(200);
    expect(res.body.results.every((r: any) => r.ok)).toBe(true);
    expect(puts).toHaveLength(1);
    expect(puts[0]).toMatch(new RegExp(`^batches/${site.siteId}/`));
    expect(await env.BLOBS.get(puts[0])).toBeNull();
    const listed = await env.BLOBS.list({ prefix: `batches/${site.siteId}/` });
    expect(listed.objects).toHaveLength(0);
    void deletes;
    void del;
    expect((await c.get("/v1/status")).body.units_total).toBe(60);
  });

  it("answers 413 for a batch of 10 MB or more", async () => {
    const { c } = await setup();
    const units = Array.from({ length: 100 }, (_, i) => unit(`p:${i}`, [seg("a", "z".repeat(100_000)), seg("b", "z".repeat(5_000))]));
    const res = await c.put("/v1/units/batch", { units });
    expect(res.status).toBe(413);
    expect(res.body.detail).toMatch(/too large/);
  });
});

describe("DELETE /v1/units/{key}", () => {
  it("always answers 204 and a later push restores the unit with its translations", async () => {
    const { c } = await setup();
    expect((await c.del("/v1/units/never:1")).status).toBe(204);
    await c.put("/v1/units", unit("post:1", [seg("a", "One", { translations: { de: "Eins" } })]));
    expect((await c.del("/v1/units/post:1")).status).toBe(204);
    expect((await c.del("/v1/units/post:1")).status).toBe(204);
    expect((await c.get("/v1/units/post:1/status")).status).toBe(404);
    expect((await c.get("/v1/status")).body).toMatchObject({ units_total: 0, segments_total: 0 });
    const back = await c.put("/v1/units", unit("post:1", [seg("a", "One")]));
    expect(back.body).toMatchObject({ unit_created: true, unchanged: 1 });
    expect((await states(c, "post:1")).a).toEqual({ de: "ok", fr: "missing" });
    // docs/decisions.md "Requests: keys, limits, hostile input, errors": 204 for every key, one that could never exist included.
    expect((await request("DELETE", "/v1/units/bad%20key", { key: (await createSite()).key })).status).toBe(204);
  });
});

describe("status reads", () => {
  it("GET /v1/status counts per language, with prefix", async () => {
    const { c } = await setup();
    await c.put("/v1/units", unit("post:1", [seg("a", "One", { translations: { de: "Eins" } }), seg("b", "Two")]));
    await c.put("/v1/units", unit("page:1", [seg("a", "Three")]));
    const all = await c.get("/v1/status");
    expect(all.body).toEqual({
      units_total: 2,
      segments_total: 3,
      glossary_terms: 0,
      languages: [
        { code: "de", ok: 1, stale: 0, review: 0, missing: 2, attention: 0, attention_url: "" },
        { code: "fr", ok: 0, stale: 0, review: 0, missing: 3, attention: 0, attention_url: "" },
      ],
    });
    const posts = await c.get("/v1/status?prefix=post:");
    expect(posts.body).toMatchObject({ units_total: 1, segments_total: 2 });
    expect(posts.body.languages[0]).toMatchObject({ code: "de", ok: 1, missing: 1 });
  });

  it("GET /v1/units lists units with work, only languages with work, each unit once across pages", async () => {
    const { c } = await setup();
    await c.put("/v1/units", unit("done:1", [seg("a", "One", { translations: { de: "Eins", fr: "Un" } })]));
    await c.put("/v1/units", unit("half:1", [seg("a", "One", { translations: { de: "Eins" } })]));
    const keys: string[] = [];
    for (let i = 0; i < 23; i++) keys.push(`post:${String(i).padStart(2, "0")}`);
    for (const k of keys) await c.put("/v1/units", unit(k, [seg("a", `Text ${k}`)]));

    const first = await c.get("/v1/units?limit=500");
    expect(first.body.next_cursor).toBeNull();
    expect(first.body.units.map((u: any) => u.external_key)).toEqual(["half:1", ...keys]);
    const half = first.body.units[0];
    expect(half).toEqual({
      external_key: "half:1",
      label: "half:1",
      path: "/half:1",
      adapter: "wordpress",
      last_synced_at: expect.any(String),
      dashboard_url: expect.stringMatching(/\/units\/half%3A1$/),
      languages: [{ code: "fr", missing: 1, stale: 0, review: 0, attention: 0, attention_url: "" }],
    });

    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res: any = await c.get(`/v1/units?limit=5&prefix=post:${cursor ? `&cursor=${cursor}` : ""}`);
      expect(res.status).toBe(200);
      seen.push(...res.body.units.map((u: any) => u.external_key));
      cursor = res.body.next_cursor;
      pages++;
    } while (cursor);
    expect(seen).toEqual(keys);
    expect(pages).toBe(5);

    const de = await c.get("/v1/units?language=de&limit=500");
    expect(de.body.units.map((u: any) => u.external_key)).toEqual(keys);
    expect(de.body.units[0].languages.map((l: any) => l.code)).toEqual(["de"]);

    expect((await c.get("/v1/units?limit=0")).body.detail).toMatch(/^limit must be at least 1/);
    expect((await c.get("/v1/units?limit=501")).body.detail).toMatch(/^limit must be at most 500/);
    expect((await c.get("/v1/units?cursor=garbage!")).status).toBe(422);
    expect((await c.get("/v1/units?language=x")).body.detail).toMatch(/^language must have at least 2/);
  });

  it("GET /v1/units/{key}/status: the matrix, needing work, URLs, 404", async () => {
    const { site, c } = await setup();
    await c.put("/v1/units", unit("post:1", [seg("a", "One", { translations: { de: "Eins", fr: "Un" } }), seg("b", "Two", { translations: { de: "Zwei" } })]));
    await c.put("/v1/units", unit("post:1", [seg("a", "One"), seg("b", "Two!")]));
    const res = await c.get("/v1/units/post:1/status");
    expect(res.body).toMatchObject({
      external_key: "post:1",
      segments_total: 2,
      segments_needing_work: 1,
      dashboard_url: `https://dash.test/sites/${site.siteId}/units/post%3A1`,
      languages: [
        { code: "de", ok: 1, stale: 1, review: 0, missing: 0, attention: 0 },
        { code: "fr", ok: 1, stale: 0, review: 0, missing: 1, attention: 0 },
      ],
    });
    expect(res.body.segments).toEqual([
      { key: "a", field: "", kind: "", parent_key: "", position: 0, states: { de: "ok", fr: "ok" } },
      { key: "b", field: "", kind: "", parent_key: "", position: 1, states: { de: "stale", fr: "missing" } },
    ]);
    expect((await c.get("/v1/units/post:2/status")).status).toBe(404);
  });
});
