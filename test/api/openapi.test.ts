/**
 * The OpenAPI document as a product: the served document is the checked-in one (so the client
 * generated from it is current), every operation carries what a connector author and a client
 * generator need, every example matches its schema, and the reference page renders it offline.
 * (That every answer of the API tests is a documented one is checked in test/helpers/api.ts.)
 */

import { exports } from "cloudflare:workers";
import { type Schema, Validator } from "@cfworker/json-schema";
import { describe, expect, it } from "vitest";
import checkedIn from "../../client/openapi.json";
import { TAGS } from "../../src/api/openapi";
import { SCALAR_SCRIPT } from "../../src/routes/docs.routes";
import { request } from "../helpers/api";
import { servedDocument, undocumented } from "../helpers/openapi";

type Json = any;
const PUBLIC = new Set(["getHealth", "getOpenApiDocument", "getApiReference"]);
/** Operations that answer the same for any key in the path (spec: DELETE always 204). */
const NO_404 = new Set(["deleteUnit"]);
/** Operations whose inputs are never refused (DELETE /v1/units/{key} takes any key): they list no 422. */
const NO_422 = new Set(["deleteUnit"]);
const VERBS = ["get", "list", "create", "update", "delete", "push", "send", "submit", "ack", "cancel", "set", "replace", "revoke", "decide", "erase", "invite", "restore"];
const OPERATION_ID = new RegExp(`^(admin)?(${VERBS.join("|")})[A-Z][A-Za-z0-9]*$`, "i");

async function operations() {
  const doc = await servedDocument();
  return Object.entries(doc.paths as Record<string, Record<string, Json>>).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => ({ path, method, op, where: `${method.toUpperCase()} ${path}` })),
  );
}

describe("the OpenAPI document", () => {
  it("is served without a key and equals client/openapi.json (run `npm run openapi` after changing the API)", async () => {
    const res = await request("GET", "/v1/openapi.json");
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe("3.1.0");
    expect(res.body, "client/openapi.json is stale: run `npm run openapi` and commit client/").toEqual(checkedIn);
  });

  it("names servers (production placeholder and local development) and defines every tag it uses", async () => {
    const doc = await servedDocument();
    expect(doc.servers.map((s: Json) => s.url)).toEqual(["https://{host}", "http://127.0.0.1:8787"]);
    expect(doc.tags.map((t: Json) => t.name)).toEqual(TAGS.map((t) => t.name));
    for (const t of doc.tags) expect(t.description, t.name).toBeTruthy();
  });

  it("gives every operation a unique camelCase verb operationId, a summary, a description and a known tag", async () => {
    const ops = await operations();
    expect(ops.length).toBeGreaterThanOrEqual(27);
    const problems: string[] = [];
    const ids = new Map<string, string>();
    const tags = new Set<string>(TAGS.map((t) => t.name));
    for (const { op, where } of ops) {
      if (!op.operationId) problems.push(`${where}: no operationId`);
      else if (!OPERATION_ID.test(op.operationId) || !/^[a-z]/.test(op.operationId))
        problems.push(`${where}: operationId "${op.operationId}" is not a camelCase verb (${VERBS.join(", ")}, optionally after "admin")`);
      else if (ids.has(op.operationId)) problems.push(`${where}: operationId "${op.operationId}" is also used by ${ids.get(op.operationId)}`);
      else ids.set(op.operationId, where);
      if (!op.summary?.trim()) problems.push(`${where}: no summary`);
      if (!op.description?.trim()) problems.push(`${where}: no description`);
      if (!op.tags?.length) problems.push(`${where}: no tags`);
      for (const t of op.tags ?? []) if (!tags.has(t)) problems.push(`${where}: tag "${t}" is not one of ${[...tags].join(", ")}`);
    }
    expect(problems).toEqual([]);
  });

  it("documents the error answers each operation can give", async () => {
    const problems: string[] = [];
    for (const { op, where } of await operations()) {
      const has = (status: string) => op.responses?.[status] !== undefined;
      const need = (status: string, why: string) => {
        if (!has(status)) problems.push(`${where}: no ${status} (${why})`);
      };
      need("500", "any operation can fail on the service's side");
      if (PUBLIC.has(op.operationId)) {
        if (!Array.isArray(op.security) || op.security.length !== 0) problems.push(`${where}: a public operation must say security: []`);
        continue;
      }
      const scheme = Object.keys(op.security?.[0] ?? {})[0];
      if (!["bearer", "admin"].includes(scheme)) problems.push(`${where}: security names no scheme`);
      need("401", "it checks a key");
      need("429", "rate limits: per key, and failed authentications per client address");
      if (has("429") && !op.responses["429"].headers?.["Retry-After"]?.required) problems.push(`${where}: 429 without a required Retry-After header`);
      if (has("401") && !op.responses["401"].headers?.["WWW-Authenticate"]?.required) problems.push(`${where}: 401 without a required WWW-Authenticate header`);
      const params = (op.parameters ?? []) as Json[];
      if ((op.requestBody || params.length) && !NO_422.has(op.operationId)) need("422", "it validates its inputs");
      if (NO_422.has(op.operationId) && has("422")) problems.push(`${where}: lists a 422 it never answers`);
      if (op.requestBody) {
        need("413", "bodies of 10 MB or more");
        need("415", "bodies that are not JSON");
      }
      if (params.some((p) => p.in === "path") && !NO_404.has(op.operationId)) need("404", "it names something in its path");
      for (const [status, response] of Object.entries(op.responses as Record<string, Json>)) {
        if (Number(status) < 400) continue;
        const ref = response.content?.["application/json"]?.schema?.$ref;
        // AttentionConfirmOut: ErrorOut plus the findings of a fix that needs confirming; StorageFullOut: ErrorOut plus its `code`;
        // the deep health's 503 is its own report (which dependency failed).
        if (op.operationId === "adminGetHealth" && status === "503" && ref === "#/components/schemas/DeepHealthOut") continue;
        if (
          !["#/components/schemas/ErrorOut", "#/components/schemas/BillingErrorOut", "#/components/schemas/AttentionConfirmOut", "#/components/schemas/StorageFullOut"].includes(
            ref,
          )
        )
          problems.push(`${where}: ${status} is not ErrorOut, BillingErrorOut or AttentionConfirmOut`);
      }
    }
    expect(problems).toEqual([]);
  });

  it("gives the connector's main operations example bodies, and every example matches its schema", async () => {
    const doc = await servedDocument();
    const examples: { where: string; schema: Json; example: Json }[] = [];
    for (const { op, where } of await operations()) {
      const req = op.requestBody?.content?.["application/json"];
      if (req?.example !== undefined) examples.push({ where: `${where} request`, schema: req.schema, example: req.example });
      for (const [status, response] of Object.entries(op.responses as Record<string, Json>)) {
        const media = response.content?.["application/json"];
        if (media?.example !== undefined) examples.push({ where: `${where} ${status}`, schema: media.schema, example: media.example });
        for (const [name, named] of Object.entries((media?.examples ?? {}) as Record<string, Json>))
          examples.push({ where: `${where} ${status} (${name})`, schema: media.schema, example: named.value });
      }
    }
    const withExample = new Set(examples.map((e) => e.where));
    for (const main of [
      "PUT /v1/units request",
      "PUT /v1/units 200",
      "PUT /v1/units/batch request",
      "PUT /v1/units/batch 200",
      "POST /v1/handshake request",
      "POST /v1/jobs request",
      "POST /v1/jobs 202",
      "POST /v1/jobs 409",
      "GET /v1/results 200",
      "POST /v1/results/ack request",
      "POST /v1/reviews request",
    ])
      expect(withExample, main).toContain(main);
    const problems: string[] = [];
    for (const { where, schema, example } of examples) {
      const result = new Validator({ ...schema, components: structuredClone(doc.components) } as Schema, "2020-12", false).validate(example);
      if (!result.valid)
        problems.push(
          `${where}: ${result.errors
            .map((e) => `${e.instanceLocation} ${e.error}`)
            .slice(-3)
            .join("; ")}`,
        );
    }
    expect(problems).toEqual([]);
  });

  it("describes every schema property (what a connector needs: units, bounds, when null)", async () => {
    const doc = await servedDocument();
    const component = (ref: string) => doc.components.schemas[ref.replace("#/components/schemas/", "")];
    // A property that only references a component is described when the component is.
    const described = (schema: Json): boolean => Boolean(schema.description) || (schema.$ref ? described(component(schema.$ref)) : false) || (schema.allOf ?? []).some(described);
    const missing: string[] = [];
    const walk = (schema: Json, where: string, seen: Set<Json>) => {
      if (!schema || typeof schema !== "object" || seen.has(schema)) return;
      seen.add(schema);
      for (const [name, property] of Object.entries((schema.properties ?? {}) as Record<string, Json>)) {
        if (!described(property)) missing.push(`${where}.${name}`);
        walk(property, `${where}.${name}`, seen);
      }
      for (const key of ["items", "additionalProperties"]) walk(schema[key], `${where}[]`, seen);
      for (const key of ["allOf", "anyOf", "oneOf"]) for (const [i, part] of (schema[key] ?? []).entries()) walk(part, `${where}|${i}`, seen);
    };
    for (const [name, schema] of Object.entries(doc.components.schemas as Record<string, Json>)) walk(schema, name, new Set());
    for (const { op, where } of await operations()) {
      walk(op.requestBody?.content?.["application/json"]?.schema, `${where} request`, new Set());
      for (const [status, response] of Object.entries(op.responses as Record<string, Json>)) walk(response.content?.["application/json"]?.schema, `${where} ${status}`, new Set());
    }
    expect(missing).toEqual([]);
  });

  it("declares nullable fields nullable: a failed batch item's result and a 402's estimate", async () => {
    const doc = await servedDocument();
    const accepts = (name: string, value: unknown) =>
      new Validator({ $ref: `#/components/schemas/${name}`, components: structuredClone(doc.components) } as Schema, "2020-12").validate(value).valid;
    expect(accepts("BatchItemOut", { external_key: "post:1", ok: false, result: null, error: "units[0].segments is required" })).toBe(true);
    expect(accepts("BatchItemOut", { external_key: "post:1", ok: false, result: { nonsense: 1 }, error: null })).toBe(false);
    expect(accepts("BillingErrorOut", { detail: "No subscription.", code: "subscription_required", estimate: null })).toBe(true);
    expect(accepts("UnitsWorkOut", { units: [], next_cursor: null })).toBe(true);
  });

  it("states what the service enforces where the contract says it: a job's prefix pattern, and GET /v1/jobs' active as a boolean", async () => {
    const doc = await servedDocument();
    const prefix = doc.components.schemas.JobIn.properties.prefix;
    expect(prefix.pattern).toBe("^[a-z0-9_]+:\\S*$");
    const accepts = (value: unknown) => new Validator(prefix as Schema, "2020-12").validate(value).valid;
    expect([accepts("post:"), accepts("post_type:42"), accepts("Post:"), accepts("post"), accepts("post: 1")]).toEqual([true, true, false, false, false]);
    const active = doc.paths["/v1/jobs"].get.parameters.find((p: Json) => p.name === "active");
    expect(active.schema).toMatchObject({ type: "boolean", default: false });
    expect(active.schema.pattern).toBeUndefined();
  });
});

describe("the check every API test's answers go through (test/helpers/openapi.ts)", () => {
  const json = (status: number, body: unknown, headers: Record<string, string> = {}) => ({
    status,
    headers: new Headers({ "content-type": "application/json", ...headers }),
    text: JSON.stringify(body),
  });
  const sync = {
    external_key: "post:1",
    unit_created: true,
    added: 1,
    changed: 0,
    removed: 0,
    unchanged: 0,
    stale_translations: 0,
    imported_translations: 0,
    fingerprint_mismatches: [],
  };
  const url = (path: string) => `https://api.test${path}`;

  it("accepts documented answers", async () => {
    expect(await undocumented("PUT", url("/v1/units"), json(200, sync))).toBeUndefined();
    expect(await undocumented("PUT", url("/v1/units/batch"), json(200, { results: [{ external_key: "x", ok: false, result: null, error: "bad" }] }))).toBeUndefined();
    expect(await undocumented("DELETE", url("/v1/units/post:1"), { status: 204, headers: new Headers(), text: "" })).toBeUndefined();
    expect(await undocumented("GET", url("/v1/site"), json(401, { detail: "no" }, { "www-authenticate": "Bearer" }))).toBeUndefined();
    expect(await undocumented("GET", url("/v1/nothing"), json(404, { detail: "No such endpoint" }))).toBeUndefined();
    expect(await undocumented("GET", url("/dashboard/whatever"), { status: 200, headers: new Headers({ "content-type": "text/html" }), text: "<p>" })).toBeUndefined();
  });

  it("refuses a status, a field, a type, a body, a header or a path the document does not describe", async () => {
    expect(await undocumented("PUT", url("/v1/units"), json(418, { detail: "teapot" }))).toMatch(/status 418 is not documented for pushUnit/);
    expect(await undocumented("PUT", url("/v1/units"), json(200, { ...sync, secret: 1 }))).toMatch(/pushUnit 200.*secret/);
    expect(await undocumented("PUT", url("/v1/units"), json(200, { ...sync, added: "1" }))).toMatch(/#\/added/);
    expect(await undocumented("PUT", url("/v1/units/batch"), json(200, { results: [{ external_key: "x", ok: true, result: { nope: 1 }, error: null }] }))).toMatch(/pushBatch 200/);
    expect(await undocumented("GET", url("/v1/site"), json(401, { detail: "no" }))).toMatch(/WWW-Authenticate is missing/);
    expect(await undocumented("POST", url("/v1/jobs"), json(402, { detail: "pay" }))).toMatch(/#.*code/);
    expect(await undocumented("DELETE", url("/v1/units/post:1"), json(204, { deleted: true }))).toMatch(/documents no body/);
    expect(await undocumented("GET", url("/v1/status"), { status: 200, headers: new Headers({ "content-type": "text/plain" }), text: "ok" })).toMatch(/content type "text\/plain"/);
    expect(await undocumented("GET", url("/v1/nothing"), json(200, {}))).toMatch(/not in the document/);
    expect(await undocumented("PATCH", url("/v1/units"), json(405, { message: "no" }))).toMatch(/ErrorOut/);
  });
});

describe("the reference page (GET /v1/docs)", () => {
  it("is public HTML that renders the served document with the script from this Worker, not a CDN", async () => {
    const res = await exports.default.fetch(new Request("https://api.test/v1/docs"));
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
    const html = await res.text();
    expect(html).toContain(`<script src="${SCALAR_SCRIPT}">`);
    expect(html).toContain('"url": "/v1/openapi.json"');
    expect(html).toContain("Transync API reference");
    expect(html).not.toMatch(/<script[^>]+src="https?:/);
    expect(html).not.toContain("fonts.scalar.com");
  });
});
