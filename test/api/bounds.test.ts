/**
 * The document says what the service does: each bound the OpenAPI document states for the main
 * request bodies (units, jobs, the handshake) and parameters is fed to the service, at the bound
 * (accepted) and just past it (422 naming the field). The bounds are read from the served document, not copied here, so a
 * bound changed on one side only fails.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { type Call, client, createSite, request, type TestSite, unit } from "../helpers/api";

let site: TestSite;
let c: ReturnType<typeof client>;
let doc: any;
const schema = (name: string) => doc.components.schemas[name];

const refused = (res: Call, field: string) => {
  expect(res.status, JSON.stringify(res.body)).toBe(422);
  expect(res.body.detail).toContain(field);
};
const accepted = (res: Call) => expect([200, 202, 204], JSON.stringify(res.body)).toContain(res.status);

beforeAll(async () => {
  site = await createSite({ target_languages: [{ code: "de" }] });
  c = client(site.key);
  doc = (await request("GET", "/v1/openapi.json")).body;
  // A translate job names units of the site (an unknown key is a 422 of its own): post:0 … post:999 exist.
  for (let i = 0; i < 1000; i += 100) accepted(await c.put("/v1/units/batch", { units: Array.from({ length: 100 }, (_, j) => unit(`post:${i + j}`, [{ key: "t", text: "Hi" }])) }));
});

describe("string bounds of a unit and its segments (maxLength, counted in code points)", () => {
  /** Fields whose only rules are the length and well-formedness (a longer run of "x" is still valid otherwise). */
  const plain = (props: Record<string, any>) =>
    Object.entries(props)
      .map(([name, p]) => [name, p.anyOf?.find((x: any) => x.type === "string") ?? p] as const)
      .filter(([name, p]) => typeof p.maxLength === "number" && (!p.pattern || p.pattern.startsWith("^(?:[^")) && name !== "fingerprint");

  it("each unit field: accepted at maxLength, 422 one past it", async () => {
    const fields = plain(schema("UnitSnapshotIn").properties);
    expect(fields.map(([n]) => n).sort()).toEqual(["label", "path"]);
    for (const [name, p] of fields) {
      // Code points: an emoji is one character of the bound.
      accepted(await c.put("/v1/units", unit(`post:${name}`, [{ key: "a", text: "Hi" }], { [name]: "😀".repeat(p.maxLength) })));
      refused(await c.put("/v1/units", unit(`post:${name}`, [{ key: "a", text: "Hi" }], { [name]: "x".repeat(p.maxLength + 1) })), name);
    }
  });

  it("each segment field: accepted at maxLength, 422 one past it", async () => {
    const fields = plain(schema("SegmentIn").properties);
    expect(fields.map(([n]) => n).sort()).toEqual(expect.arrayContaining(["key", "text"]));
    for (const [name, p] of fields) {
      const at = { key: "a", text: "Hi", [name]: "x".repeat(p.maxLength) };
      const past = { key: "a", text: "Hi", [name]: "x".repeat(p.maxLength + 1) };
      accepted(await c.put("/v1/units", unit(`post:seg-${name}`, [at])));
      refused(await c.put("/v1/units", unit(`post:seg-${name}`, [past])), name);
    }
  });

  it("maxItems of segments and of a job's units", async () => {
    const max = schema("UnitSnapshotIn").properties.segments.maxItems;
    const segs = (n: number) => Array.from({ length: n }, (_, i) => ({ key: `k${i}`, text: "x" }));
    accepted(await c.put("/v1/units", unit("post:many", segs(max))));
    refused(await c.put("/v1/units", unit("post:many", segs(max + 1))), "segments");
    const units = schema("JobIn").properties.units;
    const keys = (n: number) => Array.from({ length: n }, (_, i) => `post:${i}`);
    accepted(await c.post("/v1/jobs", { type: "translate", units: keys(units.maxItems), estimate_only: true }));
    refused(await c.post("/v1/jobs", { type: "translate", units: keys(units.maxItems + 1), estimate_only: true }), "units");
  });
});

describe("bounds of the handshake body (POST /v1/handshake)", () => {
  /** A schema with its $ref followed. */
  const resolve = (s: any): any => (s?.$ref ? schema(s.$ref.split("/").pop()) : s);
  const handshake = (body: Record<string, unknown>) => hs.post("/v1/handshake", { connector_version: "bounds/1.0", source_language: "en", ...body });
  /** A string `n` code points long that every rule of `p` but the length takes (a language code is letters and digits). */
  const sized = (p: any, n: number) => (p.pattern && !p.pattern.startsWith("^(?:[^") ? "x" : "😀").repeat(n);
  /** `n` distinct items that every rule of `items` takes: `i0`, `i1` … */
  const distinct = (n: number) => Array.from({ length: n }, (_, i) => `i${i}`);
  let hs: ReturnType<typeof client>;

  beforeAll(async () => {
    // A site of its own: a handshake decides which of the site's languages are writable.
    hs = client((await createSite({ target_languages: [{ code: "de" }] })).key);
  });

  it("walks every documented bound of HandshakeIn", async () => {
    const body = resolve(doc.paths["/v1/handshake"].post.requestBody.content["application/json"].schema);
    expect(body).toBe(schema("HandshakeIn"));
    const props: Record<string, any> = Object.fromEntries(Object.entries(body.properties).map(([name, p]) => [name, resolve(p)]));
    const bounded = Object.entries(props).filter(([, p]) => ["minLength", "maxLength", "maxItems"].some((k) => k in p) || "maxLength" in (resolve(p.items) ?? {}));
    expect(bounded.map(([name]) => name).sort()).toEqual(["adapters", "capabilities", "connector_version", "languages", "source_language"]);
    const walked: string[] = [];
    for (const [name, p] of bounded) {
      if (p.type === "string") {
        if (p.maxLength !== undefined) {
          accepted(await handshake({ [name]: sized(p, p.maxLength) }));
          refused(await handshake({ [name]: sized(p, p.maxLength + 1) }), name);
          walked.push(`${name}.maxLength`);
        }
        if (p.minLength) {
          accepted(await handshake({ [name]: sized(p, p.minLength) }));
          refused(await handshake({ [name]: sized(p, p.minLength - 1) }), name);
          walked.push(`${name}.minLength`);
        }
        continue;
      }
      expect(p.type, name).toBe("array");
      const items = resolve(p.items);
      if (p.maxItems !== undefined) {
        accepted(await handshake({ [name]: distinct(p.maxItems) }));
        refused(await handshake({ [name]: distinct(p.maxItems + 1) }), name);
        walked.push(`${name}.maxItems`);
      }
      if (items.maxLength !== undefined) {
        accepted(await handshake({ [name]: [sized(items, items.maxLength)] }));
        refused(await handshake({ [name]: [sized(items, items.maxLength + 1)] }), name);
        walked.push(`${name}[].maxLength`);
      }
      if (items.minLength) {
        accepted(await handshake({ [name]: [sized(items, items.minLength)] }));
        refused(await handshake({ [name]: [sized(items, items.minLength - 1)] }), name);
        walked.push(`${name}[].minLength`);
      }
    }
    // Every bound the document states today was fed to the service: a bound dropped from the document fails here too.
    expect(walked.sort()).toEqual([
      "adapters.maxItems",
      "adapters[].maxLength",
      "capabilities.maxItems",
      "capabilities[].maxLength",
      "connector_version.maxLength",
      "languages.maxItems",
      "languages[].maxLength",
      "languages[].minLength",
      "source_language.maxLength",
      "source_language.minLength",
    ]);
  });
});

describe("the rules the document did not state", () => {
  it("GET /v1/jobs?active= is a boolean in the document, as the contract has it; the service also takes any case and 1 or 0 (its description says so)", async () => {
    const param = doc.paths["/v1/jobs"].get.parameters.find((p: any) => p.name === "active");
    expect(param.schema).toMatchObject({ type: "boolean", default: false });
    expect(param.schema.description).toMatch(/any case.*1.*0/i);
    for (const v of ["true", "True", "TRUE", "false", "False", "1", "0"]) expect((await c.get(`/v1/jobs?active=${v}`)).status, v).toBe(200);
    for (const v of ["yes", "2", "", "truee"]) refused(await c.get(`/v1/jobs?active=${v}`), "active");
  });

  it("a job's prefix carries the contract's pattern, and the service refuses what it refuses", async () => {
    const pattern = new RegExp(schema("JobIn").properties.prefix.pattern);
    for (const v of ["post:", "post_type:42", "page:about/team"]) {
      expect(pattern.test(v), v).toBe(true);
      accepted(await c.post("/v1/jobs", { prefix: v, estimate_only: true }));
    }
    for (const v of ["Post:", "post", "post: 1", ":x"]) {
      expect(pattern.test(v), v).toBe(false);
      refused(await c.post("/v1/jobs", { prefix: v, estimate_only: true }), "prefix");
    }
  });

  it("units: [] is refused (minItems 1), on a delta job as on a translate job", async () => {
    expect(schema("JobIn").properties.units.minItems).toBe(1);
    refused(await c.post("/v1/jobs", { units: [], estimate_only: true }), "units");
    refused(await c.post("/v1/jobs", { type: "translate", units: [], estimate_only: true }), "units");
    accepted(await c.post("/v1/jobs", { type: "translate", units: ["post:1"], estimate_only: true }));
  });

  it("unit metadata: at most x-max-json-characters (64 KB) as JSON, nested at most x-max-json-depth", async () => {
    const meta = schema("UnitSnapshotIn").properties.metadata;
    const max = meta["x-max-json-characters"];
    expect(max).toBe(65_536);
    // {"a":"…"} is 8 characters around the string.
    const sized = (n: number) => ({ a: "x".repeat(n - 8) });
    expect(JSON.stringify(sized(max))).toHaveLength(max);
    accepted(await c.put("/v1/units", unit("post:meta", [{ key: "a", text: "Hi" }], { metadata: sized(max) })));
    refused(await c.put("/v1/units", unit("post:meta", [{ key: "a", text: "Hi" }], { metadata: sized(max + 1) })), "metadata");
    const depth = meta["x-max-json-depth"];
    const nested = (n: number): unknown => (n <= 1 ? {} : { a: nested(n - 1) });
    accepted(await c.put("/v1/units", unit("post:meta", [{ key: "a", text: "Hi" }], { metadata: nested(depth) })));
    refused(await c.put("/v1/units", unit("post:meta", [{ key: "a", text: "Hi" }], { metadata: nested(depth + 1) })), "metadata");
  });

  it("DELETE /v1/units/{key} lists no 422, and answers 204 for any key", async () => {
    expect(Object.keys(doc.paths["/v1/units/{external_key}"].delete.responses)).not.toContain("422");
    // ("." and ".." cannot be sent: a URL path resolves them before any route.)
    for (const key of ["post:1", "a b", "x".repeat(300), "%00", "ü"]) expect((await c.del(`/v1/units/${encodeURIComponent(key)}`)).status, key).toBe(204);
  });

  it("POST /v1/jobs: the body is optional, and no body is a delta job", async () => {
    expect(doc.paths["/v1/jobs"].post.requestBody.required).toBe(false);
    const fresh = await createSite({ target_languages: [{ code: "de" }] });
    expect((await client(fresh.key).put("/v1/units", unit("post:1", [{ key: "a", text: "Hi" }]))).status).toBe(200);
    const res = await request("POST", "/v1/jobs", { key: fresh.key });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    expect(res.body).toMatchObject({ type: "delta" });
  });

  it("translations' keys are language codes (propertyNames)", async () => {
    const names = schema("SegmentIn").properties.translations.propertyNames;
    const pattern = new RegExp(names.pattern);
    const push = (code: string) => c.put("/v1/units", unit("post:tr", [{ key: "a", text: "Hi", translations: { [code]: "Hallo" } }]));
    for (const code of ["de", "x".repeat(names.maxLength)]) {
      expect(pattern.test(code)).toBe(true);
      accepted(await push(code));
    }
    for (const code of ["d", "x".repeat(names.maxLength + 1), "d e", "de/"]) refused(await push(code), "translations");
    expect(names.minLength).toBe(2);
  });

  it("job_id: at least 1 (minimum)", async () => {
    const param = doc.paths["/v1/jobs/{job_id}"].get.parameters.find((p: any) => p.name === "job_id");
    expect(param.schema.minimum).toBe(1);
    refused(await c.get("/v1/jobs/0"), "job_id");
    refused(await c.get("/v1/jobs/-1"), "job_id");
    expect((await c.get("/v1/jobs/1")).status).toBe(404);
  });

  it('unit keys "." and ".." are refused, as the pattern says; "..." is a key', async () => {
    const pattern = new RegExp(schema("UnitSnapshotIn").properties.external_key.pattern);
    for (const key of [".", ".."]) {
      expect(pattern.test(key), key).toBe(false);
      refused(await c.put("/v1/units", unit(key, [{ key: "a", text: "Hi" }])), "external_key");
    }
    expect(pattern.test("...")).toBe(true);
    accepted(await c.put("/v1/units", unit("...", [{ key: "a", text: "Hi" }])));
  });

  it("NUL and lone surrogates are refused in text, as the pattern says; surrogate pairs are text", async () => {
    const pattern = new RegExp(schema("SegmentIn").properties.text.pattern);
    const unicode = new RegExp(schema("SegmentIn").properties.text.pattern, "u");
    for (const bad of ["a\u0000b", "a\uD800b", "\uDC00", "x\uD83D"]) {
      expect(pattern.test(bad), JSON.stringify(bad)).toBe(false);
      expect(unicode.test(bad), JSON.stringify(bad)).toBe(false);
      refused(await c.put("/v1/units", unit("post:nul", [{ key: "a", text: bad }])), "text");
    }
    for (const good of ["😀 fine", "é", "\uFFFD"]) {
      expect(pattern.test(good) && unicode.test(good), good).toBe(true);
      accepted(await c.put("/v1/units", unit("post:nul", [{ key: "a", text: good }])));
    }
  });
});
