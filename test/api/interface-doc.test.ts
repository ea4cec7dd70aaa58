/**
 * docs/interface.md is the interface as the service serves it (issue 40): no "not shown" left
 * where the service has decided, every decided value named, and every path it documents served.
 */
import { describe, expect, it } from "vitest";
import doc from "../../docs/interface.md?raw";
import { ENGINES } from "../../src/engines/registry";
import { ADAPTERS, FORMALITIES, REVIEW_MODES } from "../../src/limits";
import { request } from "../helpers/api";

describe("docs/interface.md", () => {
  it("has no point left as not shown, and names the decided values", () => {
    const body = doc.split("\n").slice(3).join("\n");
    expect(body).not.toMatch(/not shown/i);
    expect(body).not.toMatch(/<adapter_[a-d]>/);
    for (const v of [...ADAPTERS, ...ENGINES, ...FORMALITIES, ...REVIEW_MODES]) expect(body).toContain(`\`${v}\``);
    expect(body).toContain("SHA-256");
    expect(body).toMatch(/600 requests per 60 seconds/);
    expect(body).toContain("Retry-After");
  });

  it("documents only paths the OpenAPI document serves, and marks the additions as extensions", async () => {
    const openapi = (await request("GET", "/v1/openapi.json")).body;
    const served = new Set(Object.keys(openapi.paths));
    const documented = [...doc.matchAll(/`(\/v1\/[^`?\s]*)`/g)].map((m) => m[1]);
    for (const path of documented) expect(served, path).toContain(path);
    for (const ext of ["/v1/units/texts", "/v1/webhook", "include=text,results", "state="]) expect(doc).toContain(ext);
    expect(doc.match(/Extension of version 1/g)!.length).toBeGreaterThanOrEqual(3);
  });
});
