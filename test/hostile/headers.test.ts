/**
 * Issue 23, finding 5 (the API half): /v1/docs carries the dashboard's security headers (it
 * shares the dashboard's origin), and the request id is always the service's own.
 */
import { env, exports } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createSite, request, unit } from "../helpers/api";

afterEach(() => void vi.restoreAllMocks());

const get = (path: string, headers: Record<string, string> = {}) => exports.default.fetch(new Request(`https://api.test${path}`, { headers }));

describe("GET /v1/docs", () => {
  it("refuses framing and sniffing, and allows scripts only from this origin and its own inline one", async () => {
    const res = await get("/v1/docs");
    expect(res.status).toBe(200);
    const html = await res.text();
    const dashboard = await get("/dashboard");
    for (const name of ["x-frame-options", "x-content-type-options", "referrer-policy"]) expect(res.headers.get(name), name).toBe(dashboard.headers.get(name));
    expect(res.headers.get("x-frame-options")).toBe("DENY");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    const csp = res.headers.get("content-security-policy")!;
    const directives = new Map(csp.split(/;\s*/).map((d) => [d.split(" ")[0], d.split(" ").slice(1)]));
    expect(directives.get("frame-ancestors")).toEqual(["'none'"]);
    expect(directives.get("default-src")).toEqual(["'none'"]);
    const nonce = /^'nonce-(.+)'$/.exec(directives.get("script-src")!.find((s) => s.startsWith("'nonce-"))!)![1];
    expect(directives.get("script-src")).toEqual(["'self'", `'nonce-${nonce}'`]);
    expect(directives.get("connect-src")).toEqual(["'self'"]);
    // Every script of the page is the vendored bundle or carries this response's nonce.
    const scripts = html.match(/<script\b[^>]*>/g)!;
    expect(scripts.length).toBeGreaterThanOrEqual(2);
    for (const tag of scripts) expect(tag.includes('src="/vendor/scalar/standalone.js"') || tag.includes(`nonce="${nonce}"`), tag).toBe(true);
    // A fresh nonce each time.
    expect((await get("/v1/docs")).headers.get("content-security-policy")).not.toBe(csp);
  });
});

describe("X-Request-Id", () => {
  const chosen = "attacker-chosen-id-0123456789";

  it("is made by the service, never taken from the request", async () => {
    const res = await get("/v1/health", { "x-request-id": chosen });
    expect(res.headers.get("x-request-id")).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-/);
    expect(res.headers.get("x-request-id")).not.toBe(chosen);
  });

  it("a 500 quotes the service's id, not the client's", async () => {
    const site = await createSite();
    vi.spyOn(console, "error").mockImplementation(() => undefined);
    vi.spyOn(env.BLOBS, "put").mockImplementationOnce(async () => {
      throw new Error("R2 put failed");
    });
    // A batch over 1 MB goes through R2, whose put fails here.
    const big = {
      units: Array.from({ length: 3 }, (_, i) =>
        unit(`rid:${i}`, [
          { key: "a", text: "x".repeat(90_000) },
          { key: "b", text: "y".repeat(90_000) },
          { key: "c", text: "z".repeat(90_000) },
          { key: "d", text: "w".repeat(90_000) },
        ]),
      ),
    };
    const res = await request("PUT", "/v1/units/batch", { key: site.key, body: big, headers: { "x-request-id": chosen } });
    expect(res.status).toBe(500);
    expect(res.body.detail).not.toContain(chosen);
    expect(res.body.detail).toContain(res.headers.get("x-request-id"));
  });
});
