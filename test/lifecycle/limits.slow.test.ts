// The rate limits of the real bindings (Miniflare's in-memory ones, as wrangler.toml declares them;
// docs/decisions.md "Requests: keys, limits, hostile input, errors"): their windows follow the wall
// clock, so these tests wait for a fresh window when too little of the current one is left, and
// belong to `npm run test:slow`. test/lifecycle/limits.test.ts runs the same rules in `npm test`
// against a limiter counting on the test's own clock (test/helpers/limiter.ts).

import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createApp } from "../../src/app";
import { generateKey, KEY_CACHE_MS } from "../../src/control/keys.control";
import { ADMIN, admin, createSite, request } from "../helpers/api";
import { testEnv } from "../helpers/env";

afterEach(() => void vi.restoreAllMocks());

const from = (ip: string, key?: string) => ({ key, headers: { "cf-connecting-ip": ip } });

function expectTooMany(res: { status: number; body: any; headers: Headers }) {
  expect(res.status).toBe(429);
  expect(res.headers.get("retry-after")).toBe("60");
  expect(Object.keys(res.body)).toEqual(["detail"]);
  expect(res.body.detail).toMatch(/retry in 60 seconds/i);
}

/**
 * The limiters count in windows aligned to the wall clock (Miniflare, as Cloudflare's): a
 * burst must not straddle a window's end, or its counts start again half-way. Waits for the
 * next window when fewer than `needMs` are left in this one.
 */
async function freshWindow(needMs: number) {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < needMs) await new Promise((r) => setTimeout(r, left + 100));
}

/** `n` requests, 25 at a time; their statuses in order. */
async function burst(n: number, send: () => Promise<{ status: number }>) {
  const statuses: number[] = [];
  for (let i = 0; i < n; i += 25) statuses.push(...(await Promise.all(Array.from({ length: Math.min(25, n - i) }, () => send()))).map((r) => r.status));
  return statuses;
}

describe("per API key: 600 requests a minute", () => {
  it("the 601st request of a key is 429 with Retry-After; the site's other key and other sites are unaffected", { timeout: 120_000 }, async () => {
    // The pool raises KEY_LIMITER for the other suites; this app gets the binding as production has it.
    const app = createApp();
    const strict = { ...env, KEY_LIMITER: testEnv.TEST_KEY_LIMITER } as Env;
    const call = async (key: string, ip = "203.0.113.10") => {
      const ctx = createExecutionContext();
      const res = await app.fetch(new Request("https://api.test/v1/usage", { headers: { authorization: `Bearer ${key}`, "cf-connecting-ip": ip } }), strict, ctx);
      await waitOnExecutionContext(ctx);
      return { status: res.status, headers: res.headers, body: (await res.json()) as any };
    };
    const site = await createSite({ handshake: false });
    const other = await createSite({ handshake: false });
    const second = (await admin("POST", `/admin/v1/sites/${site.siteId}/keys`, { name: "second" })).body.key as string;

    await freshWindow(50_000);
    const statuses = await burst(600, () => call(site.key));
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    expectTooMany(await call(site.key));
    // the limit is the key's, not the address's
    expectTooMany(await call(site.key, "203.0.113.99"));

    expect((await call(second)).status).toBe(200);
    expect((await call(other.key)).status).toBe(200);
  });
});

describe("failed authentications per client address: 60 a minute", () => {
  it("the 61st failure from an address is 429 with Retry-After; other addresses and verified keys are unaffected", { timeout: 90_000 }, async () => {
    const site = await createSite({ handshake: false });
    const ip = `192.0.2.${1 + Math.floor(Math.random() * 250)}`;
    await freshWindow(20_000);
    // verified from this address before the flood, so this isolate knows the key
    expect((await request("GET", "/v1/site", from(ip, site.key))).status).toBe(200);

    const kinds = [undefined, "not-a-key", generateKey(), site.key.slice(0, -1) + (site.key.endsWith("0") ? "1" : "0")];
    const statuses = await burst(60, () => request("GET", "/v1/site", from(ip, kinds[Math.floor(Math.random() * kinds.length)])));
    expect(statuses.filter((s) => s !== 401)).toEqual([]);
    for (const key of kinds) expectTooMany(await request("GET", "/v1/site", from(ip, key)));

    // another address still gets plain 401s; a verified key from the blocked address still works
    expect((await request("GET", "/v1/site", from("203.0.113.21", generateKey()))).status).toBe(401);
    expect((await request("GET", "/v1/site", from(ip, site.key))).status).toBe(200);

    // while blocked, a live key this isolate has never seen is looked up and served; keys that fail stay 429,
    // and a forged checksum never reaches D1
    const fresh = (await admin("POST", `/admin/v1/sites/${site.siteId}/keys`, { name: "fresh" })).body.key as string;
    expect((await request("GET", "/v1/site", from(ip, fresh))).status).toBe(200);
    expectTooMany(await request("GET", "/v1/site", from(ip, generateKey())));
    const prepare = vi.spyOn(env.DB, "prepare");
    expectTooMany(await request("GET", "/v1/site", from(ip, kinds[3])));
    expect(prepare).not.toHaveBeenCalled();
    prepare.mockRestore();
  });

  it("a verified key past its 30 s cache keeps working while its address is blocked (issue 23, finding 4)", { timeout: 90_000 }, async () => {
    let clock = Date.now();
    const app = createApp({ now: () => clock });
    const ip = `198.51.100.${1 + Math.floor(Math.random() * 250)}`;
    const call = async (key: string) => {
      const ctx = createExecutionContext();
      const res = await app.fetch(new Request("https://api.test/v1/site", { headers: { authorization: `Bearer ${key}`, "cf-connecting-ip": ip } }), env, ctx);
      await waitOnExecutionContext(ctx);
      return { status: res.status, headers: res.headers, body: (await res.json()) as any };
    };
    const site = await createSite({ handshake: false });
    await freshWindow(20_000);
    expect((await call(site.key)).status).toBe(200);
    // a neighbour on the same address floods it with a bad key
    const bad = generateKey();
    const statuses = await burst(61, () => call(bad));
    expect(statuses.filter((s) => s !== 401)).toHaveLength(1);
    expectTooMany(await call(bad));
    // the good key's cache entry expires while the address stays blocked
    clock += KEY_CACHE_MS + 1_000;
    const prepare = vi.spyOn(env.DB, "prepare");
    expect((await call(site.key)).status).toBe(200);
    expect(prepare).toHaveBeenCalled(); // looked up again, not served from a stale entry
    prepare.mockRestore();
    expectTooMany(await call(bad));
  });

  it("wrong admin tokens count too: the 61st is 429, the right token from another address works", { timeout: 90_000 }, async () => {
    // Not the range of the test above: the limiter's counts outlive a test, and one address drawn by both failed this one.
    const ip = `2001:db8:141::${Math.floor(Math.random() * 0xffff).toString(16)}`;
    await freshWindow(15_000);
    const wrong = await burst(60, () => request("GET", "/admin/v1/audit", from(ip, `${ADMIN.slice(0, -1)}X`)));
    expect(wrong.filter((s) => s !== 401)).toEqual([]);
    expectTooMany(await request("GET", "/admin/v1/audit", from(ip, "nope")));
    expect((await request("GET", "/admin/v1/audit", from("203.0.113.31", ADMIN))).status).toBe(200);
  });
});
