/**
 * The connector kit's reads (docs/decisions.md "The OpenAPI document, the client and the connector kit", unit status look-up): `include=text,results`
 * on a unit's status and `state` on GET /v1/units. Both are additive: a connector that sends
 * neither sees exactly the answers it saw before they existed.
 */
import { describe, expect, it } from "vitest";
import { client, createSite, unit } from "../helpers/api";
import { allResults, job } from "../helpers/jobs";

type Client = ReturnType<typeof client>;

// The pseudo engine lengthens text by about 30%: a max_length below that is a QA error (held back in `separate` mode).
const tooLong = (key: string) => ({ key, text: "Hello world", max_length: 12 });

/** A segment's entry without the two optional look-up fields: what the answer is without `include`. */
function withoutLookup(body: any) {
  return { ...body, segments: body.segments.map(({ text: _t, results: _r, ...rest }: any) => rest) };
}

async function keys(c: Client, query: string) {
  const res = await c.get(`/v1/units${query}`);
  expect(res.status).toBe(200);
  return res.body.units.map((u: any) => u.external_key);
}

describe("GET /v1/units/{key}/status?include=text,results", () => {
  async function translated() {
    const site = await createSite({ qa_mode: "separate" });
    const c = client(site.key);
    await c.put("/v1/units", unit("post:1", [tooLong("title"), { key: "body", text: "Welcome home" }, { key: "intro", text: "Read on", translations: { de: "Lies weiter" } }]));
    await job(c, site.siteId);
    return { site, c };
  }

  it("without include the answer has neither field, and with it the rest of the answer is unchanged", async () => {
    const { c } = await translated();
    const plain = await c.get("/v1/units/post:1/status");
    expect(plain.status).toBe(200);
    for (const s of plain.body.segments) {
      expect(s).not.toHaveProperty("text");
      expect(s).not.toHaveProperty("results");
    }
    expect((await c.get("/v1/units/post:1/status?include=")).body).toEqual(plain.body);
    for (const include of ["text", "results", "text,results", "results,text"]) {
      const res = await c.get(`/v1/units/post:1/status?include=${include}`);
      expect(res.status).toBe(200);
      expect(withoutLookup(res.body)).toEqual(plain.body);
      expect(res.body.segments.every((s: any) => "text" in s === include.includes("text") && "results" in s === include.includes("results"))).toBe(true);
    }
  });

  it("gives each segment's source and current translations with their result ids and statuses", async () => {
    const { c } = await translated();
    const delivered = await allResults(c);
    const id = (key: string, language: string) => delivered.find((r) => r.key === key && r.language === language)?.id;
    const res = await c.get("/v1/units/post:1/status?include=text,results");
    const seg = (key: string) => res.body.segments.find((s: any) => s.key === key);
    expect(seg("body").text).toBe("Welcome home");
    expect(seg("body").results).toEqual({
      de: { id: id("body", "de"), text: delivered.find((r) => r.key === "body" && r.language === "de").text, origin: "mt", status: "machine_translated" },
      fr: { id: id("body", "fr"), text: expect.any(String), origin: "mt", status: "machine_translated" },
    });
    expect(seg("body").results.de.id).toMatch(/^r_\d+$/);
    // Held back by QA: never delivered, but its id and text are the ones the dashboard decides on.
    expect(seg("title").results.de).toMatchObject({ id: expect.stringMatching(/^r_\d+$/), origin: "mt", status: "needs_attention" });
    expect(seg("title").states).toEqual({ de: "attention", fr: "attention" });
    // Imported with the unit: approved, no result to review; French was translated by the job.
    expect(seg("intro").results.de).toEqual({ id: null, text: "Lies weiter", origin: "imported", status: "approved" });
    expect(seg("intro").results.fr.status).toBe("machine_translated");

    await c.post("/v1/results/ack", { ids: [id("body", "de")] });
    const acked = await c.get("/v1/units/post:1/status?include=results");
    expect(acked.body.segments.find((s: any) => s.key === "body").results.de.status).toBe("pending_review");
  });

  it("its result ids are what POST /v1/reviews takes: a connector with no state of its own approves and rejects", async () => {
    const { c } = await translated();
    const before = (await c.get("/v1/units/post:1/status?include=results")).body.segments.find((s: any) => s.key === "body");
    const reviews = await c.post("/v1/reviews", {
      reviews: [
        { id: before.results.de.id, outcome: "approved", text: "Willkommen daheim" },
        { id: before.results.fr.id, outcome: "rejected" },
      ],
    });
    expect(reviews.body).toEqual({ updated: 2, ignored: [] });
    const after = (await c.get("/v1/units/post:1/status?include=text,results")).body.segments.find((s: any) => s.key === "body");
    expect(after.states).toEqual({ de: "ok", fr: "missing" });
    expect(after.results).toEqual({ de: { id: before.results.de.id, text: "Willkommen daheim", origin: "human", status: "approved" } });
  });

  it("a translation of an earlier source keeps its status; the segment's state says stale and reviews ignore it", async () => {
    const { c } = await translated();
    const id = (await c.get("/v1/units/post:1/status?include=results")).body.segments.find((s: any) => s.key === "body").results.de.id;
    await c.put("/v1/units", unit("post:1", [tooLong("title"), { key: "body", text: "Welcome back" }, { key: "intro", text: "Read on" }]));
    const body = (await c.get("/v1/units/post:1/status?include=text,results")).body.segments.find((s: any) => s.key === "body");
    expect(body.text).toBe("Welcome back");
    expect(body.states.de).toBe("stale");
    expect(body.results.de).toMatchObject({ id, status: "machine_translated" });
    expect((await c.post("/v1/reviews", { reviews: [{ id, outcome: "approved" }] })).body).toEqual({ updated: 0, ignored: [id] });
  });

  it("refuses unknown include values with a 422 naming the field and the rule", async () => {
    const { c } = await translated();
    for (const include of ["texts", "text,bogus", "TEXT", "text,,results"]) {
      const res = await c.get(`/v1/units/post:1/status?include=${include}`);
      expect(res.status).toBe(422);
      expect(res.body.detail).toMatch(/^include must be a comma-separated list of text, results/);
    }
    expect((await c.get("/v1/units/post:9/status?include=text")).status).toBe(404);
  });
});

describe("GET /v1/units?state=", () => {
  // a: missing everywhere; b: in review only; c: stale only; d: up to date; e: held back (attention) and in review;
  // f: missing in French only.
  async function site() {
    const s = await createSite({ qa_mode: "separate" });
    const c = client(s.key);
    const both = { de: "Hallo", fr: "Bonjour" };
    await c.put("/v1/units/batch", {
      units: [
        unit("a:1", [{ key: "t", text: "Alpha" }]),
        unit("b:1", [{ key: "t", text: "Bravo" }]),
        unit("c:1", [{ key: "t", text: "Charlie", translations: both }]),
        unit("d:1", [{ key: "t", text: "Delta", translations: both }]),
        unit("e:1", [tooLong("t"), { key: "u", text: "Echo" }]),
        unit("f:1", [{ key: "t", text: "Foxtrot", translations: { de: "Fuchs" } }]),
      ],
    });
    await c.put("/v1/units", unit("c:1", [{ key: "t", text: "Charlie!" }]));
    await job(c, s.siteId, { type: "translate", units: ["b:1", "e:1"] });
    return c;
  }

  it("lists only units with that work, each exactly as the list without state shows it", async () => {
    const c = await site();
    const all = (await c.get("/v1/units")).body;
    expect(all.units.map((u: any) => u.external_key)).toEqual(["a:1", "b:1", "c:1", "e:1", "f:1"]);
    const expected = { missing: ["a:1", "f:1"], stale: ["c:1"], review: ["b:1", "e:1"], attention: ["e:1"] };
    for (const [state, want] of Object.entries(expected)) {
      const res = await c.get(`/v1/units?state=${state}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ units: all.units.filter((u: any) => want.includes(u.external_key)), next_cursor: null });
    }
  });

  it("a unit whose only work is review is listed for review and for no other state", async () => {
    const c = await site();
    for (const state of ["missing", "stale", "attention"]) expect(await keys(c, `?state=${state}`)).not.toContain("b:1");
    expect(await keys(c, "?state=review")).toContain("b:1");
  });

  it("combines with language, prefix and paging", async () => {
    const c = await site();
    expect(await keys(c, "?state=missing&language=de")).toEqual(["a:1"]);
    expect(await keys(c, "?state=missing&language=fr")).toEqual(["a:1", "f:1"]);
    expect(await keys(c, "?state=review&prefix=e:")).toEqual(["e:1"]);
    expect(await keys(c, "?state=stale&prefix=a:")).toEqual([]);
    const first = await c.get("/v1/units?state=review&limit=1");
    expect(first.body.units.map((u: any) => u.external_key)).toEqual(["b:1"]);
    expect(first.body.next_cursor).toEqual(expect.any(String));
    const second = await c.get(`/v1/units?state=review&limit=1&cursor=${first.body.next_cursor}`);
    expect(second.body).toMatchObject({ units: [expect.objectContaining({ external_key: "e:1" })], next_cursor: null });
  });

  it("refuses an unknown state with a 422 naming the field and the rule", async () => {
    const c = await site();
    for (const state of ["ok", "Missing", ""]) {
      const res = await c.get(`/v1/units?state=${state}`);
      expect(res.status).toBe(422);
      expect(res.body.detail).toMatch(/^state must be one of "missing", "stale", "review", "attention"/);
    }
  });
});
