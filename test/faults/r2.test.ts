// R2 faults on large batch pushes (bodies over 1 MB travel through R2, not over RPC): the
// Worker's put failing and the site object's get failing. Either way the answer is a clean
// 5xx ErrorOut, nothing is stored, and a retry of the same batch succeeds.
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { client, createSite, request, unit } from "../helpers/api";

const BIG = "Lorem ipsum dolor sit amet. ".repeat(3_500).slice(0, 95_000);
/** 2 units × 6 segments × 95,000 characters: about 1.1 MB, above the 1 MB inline limit. */
const batch = {
  units: [1, 2].map((u) =>
    unit(
      `page:${u}`,
      Array.from({ length: 6 }, (_, i) => ({ key: `body${i}`, text: `${u}.${i} ${BIG}` })),
    ),
  ),
};

async function blobs(siteId: number) {
  const listed = await env.BLOBS.list({ prefix: `batches/${siteId}/` });
  return listed.objects.map((o) => o.key);
}

/** The answer is ErrorOut and nothing more: no class names, R2 keys, stack frames or causes. */
function expectCleanServerError(res: { status: number; body: any }) {
  expect(res.status).toBe(500);
  expect(Object.keys(res.body)).toEqual(["detail"]);
  expect(res.body.detail).toMatch(/^Something went wrong on our side\. Quote request id \S+ if you contact support\.$/);
  expect(JSON.stringify(res.body)).not.toMatch(/R2|batches\/|Error|stack|\bat \S+:\d+|blob/i);
}

async function pushBatch(key: string) {
  const res = await request("PUT", "/v1/units/batch", { key, body: batch });
  return res;
}

afterEach(() => void vi.restoreAllMocks());

describe("R2 faults on large batches", () => {
  it("the body is really over the inline limit (it goes through R2) and is deleted once applied", async () => {
    expect(new TextEncoder().encode(JSON.stringify(batch)).length).toBeGreaterThan(1024 * 1024);
    const site = await createSite();
    const put = vi.spyOn(env.BLOBS, "put");
    const res = await pushBatch(site.key);
    expect(res.status).toBe(200);
    expect(res.body.results.map((r: any) => [r.external_key, r.ok, r.result.added])).toEqual([
      ["page:1", true, 6],
      ["page:2", true, 6],
    ]);
    expect(put).toHaveBeenCalledTimes(1);
    expect(await blobs(site.siteId)).toEqual([]);
  });

  it("R2 put fails: a clean 500, nothing stored (units nor blobs); the retry succeeds", async () => {
    const site = await createSite();
    const c = client(site.key);
    const errors = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const put = vi.spyOn(env.BLOBS, "put").mockImplementationOnce(async () => {
      throw new Error("R2 put: We encountered an internal error. Please try again. (10001)");
    });

    const failed = await pushBatch(site.key);
    expectCleanServerError(failed);
    expect(put).toHaveBeenCalledTimes(1);
    // The internals are logged (once, with the request id the client was given), never returned.
    const requestId = /request id (\S+) if/.exec(failed.body.detail)![1];
    expect(failed.headers.get("x-request-id")).toBe(requestId);
    const logged = errors.mock.calls.map((args) => args.join(" "));
    expect(logged.filter((l) => l.includes("10001"))).toHaveLength(1);
    expect(logged.find((l) => l.includes("10001"))).toContain(requestId);
    expect((await c.get("/v1/status")).body).toMatchObject({ units_total: 0, segments_total: 0 });
    expect(await blobs(site.siteId)).toEqual([]);

    const retry = await pushBatch(site.key);
    expect(retry.status).toBe(200);
    expect((await c.get("/v1/status")).body).toMatchObject({ units_total: 2, segments_total: 12 });
  });

  it("R2 get fails in the site object: a clean 500, no unit stored, and no copy of the body left in R2; the retry succeeds", async () => {
    const site = await createSite();
    const c = client(site.key);
    vi.spyOn(console, "error").mockImplementation(() => undefined);
    const get = vi.spyOn(env.BLOBS, "get").mockImplementationOnce(async () => {
      throw new Error("R2 get: Network connection lost.");
    });

    const failed = await pushBatch(site.key);
    expectCleanServerError(failed);
    expect(get).toHaveBeenCalledTimes(1);
    expect((await c.get("/v1/status")).body).toMatchObject({ units_total: 0, segments_total: 0 });
    expect((await c.get("/v1/units/page:1/status")).status).toBe(404);
    // The customer's content must not stay behind in R2 when the batch was not applied.
    expect(await blobs(site.siteId)).toEqual([]);

    const retry = await pushBatch(site.key);
    expect(retry.status).toBe(200);
    expect((await c.get("/v1/status")).body).toMatchObject({ units_total: 2, segments_total: 12 });
  });
});
