/**
 * Every answer the API tests receive is checked against the OpenAPI document the Worker serves
 * (GET /v1/openapi.json): its status must be documented for the operation, its content type
 * must be a documented one, its JSON body must validate against the documented schema, and
 * documented required headers must be present. Paths under /v1 and /admin that the document
 * does not describe (unknown routes, wrong methods) must answer `ErrorOut`.
 *
 * Objects are checked closed: a field the document does not list is a failure (a generated
 * client would not know it). Validation uses @cfworker/json-schema, which interprets schemas
 * (workerd refuses validators that generate code at run time).
 */

import { exports } from "cloudflare:workers";
import { type OutputUnit, type Schema, Validator } from "@cfworker/json-schema";

type Json = any;

interface Operation {
  operationId?: string;
  responses: Record<string, { content?: Record<string, { schema?: Json }>; headers?: Record<string, { required?: boolean }> }>;
}

interface Route {
  template: string;
  regex: RegExp;
  params: number;
  item: Record<string, Operation>;
}

interface Described {
  doc: Json;
  routes: Route[];
  components: Json;
  validators: Map<string, Validator>;
}

const METHODS = new Set(["get", "put", "post", "delete", "patch", "head", "options", "trace"]);
let described: Promise<Described> | undefined;

/** The served document, fetched once per test file. */
export function servedDocument(): Promise<Json> {
  return describe().then((d) => d.doc);
}

function describe(): Promise<Described> {
  described ??= (async () => {
    const res = await exports.default.fetch(new Request("https://api.test/v1/openapi.json"));
    if (res.status !== 200) throw new Error(`GET /v1/openapi.json answered ${res.status}`);
    const text = await res.text();
    const doc = JSON.parse(text);
    const routes: Route[] = Object.entries(doc.paths as Record<string, Record<string, Operation>>).map(([template, item]) => ({
      template,
      regex: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\{[^}]+\}/g, "[^/]+")}$`),
      params: (template.match(/\{/g) ?? []).length,
      item,
    }));
    // Literal paths before templated ones (/v1/units/batch before /v1/units/{external_key}).
    routes.sort((a, b) => a.params - b.params);
    // A separate copy for validation: the validator annotates the schemas it reads.
    return { doc, routes, components: closed(JSON.parse(text).components), validators: new Map() };
  })();
  return described;
}

/**
 * The document's schemas with every object closed (`additionalProperties: false` where the
 * schema lists properties and says nothing about others). `allOf` of objects (a schema that
 * extends another) is merged into one object first, so closing does not reject the other
 * branch's fields.
 */
function closer(schemas: Record<string, Json>) {
  const resolve = (s: Json): Json => (s?.$ref ? schemas[s.$ref.split("/").pop()] : s);
  const visit = (s: Json): Json => {
    if (Array.isArray(s)) return s.map(visit);
    if (!s || typeof s !== "object") return s;
    let out: Json = Object.fromEntries(Object.entries(s).map(([k, v]) => [k, k === "example" || k === "default" ? v : visit(v)]));
    // Branches are visited first, so an extension of an extension (allOf inside allOf) merges too.
    const branches: Json[] | undefined = Array.isArray(out.allOf) ? out.allOf.map((b: Json) => visit(resolve(b))) : undefined;
    if (branches?.every((b: Json) => b?.type === "object" || b?.properties)) {
      const { allOf: _allOf, ...rest } = out;
      out = {
        ...rest,
        type: "object",
        properties: Object.assign({}, ...branches.map((b: Json) => b.properties ?? {})),
        required: [...new Set(branches.flatMap((b: Json) => b.required ?? []))],
      };
    }
    if (out.properties && out.additionalProperties === undefined) out.additionalProperties = false;
    return out;
  };
  return visit;
}

function closed(components: Json): Json {
  const visit = closer(components.schemas);
  return { ...components, schemas: Object.fromEntries(Object.entries(components.schemas as Record<string, Json>).map(([k, v]) => [k, visit(v)])) };
}

function validator(d: Described, key: string, schema: Json): Validator {
  let v = d.validators.get(key);
  if (!v) {
    // The response's schema as the root, with the components beside it so `#/components/...` resolves.
    const root = { ...closer(d.components.schemas)(schema), components: d.components };
    d.validators.set(key, (v = new Validator(root as Schema, "2020-12", false)));
  }
  return v;
}

const ERROR_OUT = { $ref: "#/components/schemas/ErrorOut" };

function describeErrors(errors: OutputUnit[]): string {
  // The deepest failures say the most; the $ref / anyOf wrappers above them repeat them.
  const leaves = errors.filter((e) => !["$ref", "allOf", "anyOf", "properties", "items"].includes(e.keyword));
  return (leaves.length ? leaves : errors)
    .slice(0, 6)
    .map((e) => `${e.instanceLocation} ${e.error}`)
    .join("; ");
}

/**
 * Checks one answer against the served document; returns the problem, or undefined when the
 * answer is a documented one.
 */
export async function undocumented(method: string, url: string, res: { status: number; headers: Headers; text: string }): Promise<string | undefined> {
  const path = new URL(url).pathname;
  if (!path.startsWith("/v1/") && !path.startsWith("/admin/")) return undefined;
  const d = await describe();
  const m = method.toLowerCase();
  const route = d.routes.find((r) => r.regex.test(path) && r.item[m]) ?? d.routes.find((r) => r.regex.test(path));
  const operation = route?.item[m];
  const where = `${method} ${path} → ${res.status}`;
  const contentType = (res.headers.get("content-type") ?? "").split(";")[0].trim();

  const checkJson = (key: string, schema: Json, what: string) => {
    if (contentType !== "application/json") return `${where}: ${what} says application/json, the answer is "${contentType || "without a body type"}"`;
    let body: unknown;
    try {
      body = JSON.parse(res.text);
    } catch {
      return `${where}: the body is not JSON: ${res.text.slice(0, 200)}`;
    }
    const result = validator(d, key, schema).validate(body);
    if (!result.valid) return `${where}: the body does not match ${what}: ${describeErrors(result.errors)}; body ${res.text.slice(0, 300)}`;
    return undefined;
  };

  if (!operation || !METHODS.has(m)) {
    // Not an operation of the document: only an ErrorOut answer (404, 405) is acceptable.
    if (res.status < 400) return `${where}: ${route ? `${method} is not documented on ${route.template}` : "the path is not in the document"}, yet the answer is a success`;
    return checkJson("ErrorOut", ERROR_OUT, "ErrorOut");
  }

  const name = operation.operationId ?? `${method} ${route!.template}`;
  const response = operation.responses[String(res.status)] ?? operation.responses[`${String(res.status)[0]}XX`] ?? operation.responses.default;
  if (!response) return `${where}: status ${res.status} is not documented for ${name} (documented: ${Object.keys(operation.responses).join(", ")}); body ${res.text.slice(0, 300)}`;

  for (const [header, spec] of Object.entries(response.headers ?? {}))
    if (spec.required && !res.headers.has(header)) return `${where}: the documented header ${header} is missing (${name})`;

  const content = response.content;
  if (!content || !Object.keys(content).length) {
    if (res.text.length) return `${where}: ${name} documents no body for ${res.status}, the answer has one: ${res.text.slice(0, 200)}`;
    return undefined;
  }
  if (m === "head") return undefined;
  const media = content[contentType];
  if (!media) return `${where}: content type "${contentType}" is not documented for ${name} ${res.status} (documented: ${Object.keys(content).join(", ")})`;
  if (contentType !== "application/json" || !media.schema) return undefined;
  return checkJson(`${name} ${res.status}`, media.schema, `the documented schema of ${name} ${res.status}`);
}
