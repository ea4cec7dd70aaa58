// Abuse limits (docs/decisions.md "Requests: keys, limits, hostile input, errors"; "Retention and erasure"): rate limits answer 429 with
// Retry-After and leave other keys and addresses alone; a forged key never reaches D1; a
// declared body of 10 MB or more is refused at once; nobody's body is read before they are
// known. The limiters here count as wrangler.toml declares them, on a clock the test moves
// (test/helpers/limiter.ts): no wait for the wall clock's next window. The real bindings, whose
// windows follow the wall clock, are tested in limits.slow.test.ts (`npm run test:slow`).

import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createApp } from "../../src/app";
import { generateKey, isWellFormedKey, KEY_CACHE_MS, keyChecksum } from "../../src/control/keys.control";
import { LIMITS } from "../../src/limits";
import toml from "../../wrangler.toml?raw";
import { ADMIN, admin, createSite, request } from "../helpers/api";
import { declaredLimiter } from "../helpers/limiter";

afterEach(() => void vi.restoreAllMocks());

function expectTooMany(res: { status: number; body: any; headers: Headers }) {
  expect(res.status).toBe(429);
  expect(res.headers.get("retry-after")).toBe("60");
  expect(Object.keys(res.body)).toEqual(["detail"]);
  expect(res.body.detail).toMatch(/retry in 60 seconds/i);
}

/** A clock for the app and the limiters, at the start of a minute (the limiters' window). */
function minuteClock() {
  let t = Math.ceil(Date.now() / 60_000) * 60_000;
  return { now: () => t, advance: (ms: number) => void (t += ms), nextMinute: () => void (t = Math.floor(t / 60_000) * 60_000 + 60_000) };
}

/** One request through `app` with `strictEnv`; its status, headers and JSON body. */
async function fetchWith(app: ReturnType<typeof createApp>, strictEnv: Env, path: string, headers: Record<string, string>) {
  const ctx = createExecutionContext();
  const res = await app.fetch(new Request(`https://api.test${path}`, { headers }), strictEnv, ctx);
  await waitOnExecutionContext(ctx);
  return { status: res.status, headers: res.headers, body: (await res.json()) as any };
}

/** `n` requests, 25 at a time; their statuses in order. */
async function burst(n: number, send: () => Promise<{ status: number }>) {
  const statuses: number[] = [];
  for (let i = 0; i < n; i += 25) statuses.push(...(await Promise.all(Array.from({ length: Math.min(25, n - i) }, () => send()))).map((r) => r.status));
  return statuses;
}

describe("per API key: 600 requests a minute", () => {
  it("wrangler.toml declares the documented limits", () => {
    const limiters = [...toml.matchAll(/\[\[ratelimits\]\]\s*name = "(\w+)"\s*namespace_id = "\d+"\s*simple = \{ limit = (\d+), period = (\d+) \}/g)].map((m) => [
      m[1],
      Number(m[2]),
      Number(m[3]),
    ]);
    expect(limiters).toEqual([
      ["KEY_LIMITER", 600, 60],
      ["AUTH_FAILURE_LIMITER", 60, 60],
      ["SIGNIN_LIMITER", 10, 60],
    ]);
  });

  it("the 601st request of a key in a minute is 429 with Retry-After; the site's other key and other sites are unaffected; the next minute it passes again", async () => {
    const clock = minuteClock();
    const app = createApp({ now: clock.now });
    const strict = { ...env, KEY_LIMITER: declaredLimiter("KEY_LIMITER", clock.now) } as Env;
    const call = async (key: string, ip = "203.0.113.10") => fetchWith(app, strict, "/v1/usage", { authorization: `Bearer ${key}`, "cf-connecting-ip": ip });
    const site = await createSite({ handshake: false });
    const other = await createSite({ handshake: false });
    const second = (await admin("POST", `/admin/v1/sites/${site.siteId}/keys`, { name: "second" })).body.key as string;

    const statuses = await burst(600, () => call(site.key));
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    expectTooMany(await call(site.key));
    // the limit is the key's, not the address's
    expectTooMany(await call(site.key, "203.0.113.99"));

    expect((await call(second)).status).toBe(200);
    expect((await call(other.key)).status).toBe(200);
    clock.nextMinute();
    expect((await call(site.key)).status).toBe(200);
  });
});

describe("failed authentications per client address: 60 a minute", () => {
  it("the 61st failure from an address is 429 with Retry-After; other addresses and verified keys are unaffected", async () => {
    const clock = minuteClock();
    const app = createApp({ now: clock.now });
    const strict = { ...env, AUTH_FAILURE_LIMITER: declaredLimiter("AUTH_FAILURE_LIMITER", clock.now) } as Env;
    const call = (ip: string, key?: string) => fetchWith(app, strict, "/v1/site", { "cf-connecting-ip": ip, ...(key ? { authorization: `Bearer ${key}` } : {}) });
    const site = await createSite({ handshake: false });
    const ip = "192.0.2.61";
    // verified from this address before the flood, so this isolate knows the key
    expect((await call(ip, site.key)).status).toBe(200);

    const kinds = [undefined, "not-a-key", generateKey(), site.key.slice(0, -1) + (site.key.endsWith("0") ? "1" : "0")];
    const statuses = await burst(60, () => call(ip, kinds[Math.floor(Math.random() * kinds.length)]));
    expect(statuses.filter((s) => s !== 401)).toEqual([]);
    for (const key of kinds) expectTooMany(await call(ip, key));

    // another address still gets plain 401s; a verified key from the blocked address still works
    expect((await call("203.0.113.21", generateKey())).status).toBe(401);
    expect((await call(ip, site.key)).status).toBe(200);

    // while blocked, a live key this isolate has never seen is looked up and served; keys that fail stay 429,
    // and a forged checksum never reaches D1
    const fresh = (await admin("POST", `/admin/v1/sites/${site.siteId}/keys`, { name: "fresh" })).body.key as string;
    expect((await call(ip, fresh)).status).toBe(200);
    expectTooMany(await call(ip, generateKey()));
    const prepare = vi.spyOn(env.DB, "prepare");
    expectTooMany(await call(ip, kinds[3]));
    expect(prepare).not.toHaveBeenCalled();
    prepare.mockRestore();
    // the next minute the address is counted afresh
    clock.nextMinute();
    expect((await call(ip, generateKey())).status).toBe(401);
  });

  it("a verified key past its 30 s cache keeps working while its address is blocked (issue 23, finding 4)", async () => {
    const clock = minuteClock();
    const app = createApp({ now: clock.now });
    const strict = { ...env, AUTH_FAILURE_LIMITER: declaredLimiter("AUTH_FAILURE_LIMITER", clock.now) } as Env;
    const ip = "198.51.100.61";
    const call = (key: string) => fetchWith(app, strict, "/v1/site", { authorization: `Bearer ${key}`, "cf-connecting-ip": ip });
    const site = await createSite({ handshake: false });
    expect((await call(site.key)).status).toBe(200);
    // a neighbour on the same address floods it with a bad key
    const bad = generateKey();
    const statuses = await burst(61, () => call(bad));
    expect(statuses.filter((s) => s !== 401)).toHaveLength(1);
    expectTooMany(await call(bad));
    // the good key's cache entry expires while the address stays blocked (the same minute)
    clock.advance(KEY_CACHE_MS + 1_000);
    const prepare = vi.spyOn(env.DB, "prepare");
    expect((await call(site.key)).status).toBe(200);
    expect(prepare).toHaveBeenCalled(); // looked up again, not served from a stale entry
    prepare.mockRestore();
    expectTooMany(await call(bad));
  });

  it("wrong admin tokens count too: the 61st is 429, the right token from another address works", async () => {
    const clock = minuteClock();
    const app = createApp({ now: clock.now });
    const strict = { ...env, AUTH_FAILURE_LIMITER: declaredLimiter("AUTH_FAILURE_LIMITER", clock.now) } as Env;
    const call = (ip: string, token: string) => fetchWith(app, strict, "/admin/v1/audit", { authorization: `Bearer ${token}`, "cf-connecting-ip": ip });
    const ip = "2001:db8:141::61";
    const wrong = await burst(60, () => call(ip, `${ADMIN.slice(0, -1)}X`));
    expect(wrong.filter((s) => s !== 401)).toEqual([]);
    expectTooMany(await call(ip, "nope"));
    expect((await call("203.0.113.31", ADMIN)).status).toBe(200);
  });
});

describe("keys carry a checksum", () => {
  it("generated keys are tsk_ + 32 random base62 characters + a 6-character checksum, and check out", () => {
    const keys = Array.from({ length: 200 }, generateKey);
    for (const key of keys) {
      expect(key).toMatch(/^tsk_[0-9A-Za-z]{38}$/);
      expect(isWellFormedKey(key)).toBe(true);
      expect(key.slice(-6)).toBe(keyChecksum(key.slice(0, -6)));
    }
    expect(new Set(keys).size).toBe(keys.length);
    // known answers (zlib's CRC-32, base62), so scripts/seed.mjs and other clients can check keys the same way
    expect(keyChecksum(`tsk_${"a".repeat(32)}`)).toBe("1isIz1");
    expect(keyChecksum("tsk_0123456789ABCDEFGHIJKLMNOPQRSTUV")).toBe("3fo7jf");
    // any one character changed breaks the checksum
    const key = keys[0];
    for (let i = 4; i < key.length; i++) {
      const swapped = key.slice(0, i) + (key[i] === "a" ? "b" : "a") + key.slice(i + 1);
      expect(isWellFormedKey(swapped), `position ${i}`).toBe(false);
    }
  });

  it("a forged, mistyped or truncated key is 401 without a single D1 query; a well-formed unknown one does reach D1", async () => {
    const site = await createSite({ handshake: false });
    const prepare = vi.spyOn(env.DB, "prepare");
    const forged = [
      `tsk_${"A".repeat(38)}`,
      site.key.slice(0, 10) + (site.key[10] === "x" ? "y" : "x") + site.key.slice(11),
      site.key.slice(0, -1),
      `${site.key}0`,
      `tsk_${"A".repeat(32)}`,
    ];
    for (const key of forged) {
      const res = await request("GET", "/v1/status", { key });
      expect(res.status, key).toBe(401);
      expect(res.headers.get("www-authenticate")).toMatch(/^Bearer/);
    }
    expect(prepare).not.toHaveBeenCalled();

    // the spy sees the Worker's queries: an unknown key with a valid checksum is looked up
    expect((await request("GET", "/v1/status", { key: generateKey() })).status).toBe(401);
    expect(prepare).toHaveBeenCalled();
  });
});

describe("order of work: declared size, then the caller, then the body", () => {
  const app = createApp();

  /** A body that records whether anyone read it. */
  function watchedBody() {
    const state = { pulled: false };
    const stream = new ReadableStream<Uint8Array>(
      {
        pull(controller) {
          state.pulled = true;
          controller.enqueue(new TextEncoder().encode('{"external_key":"a","adapter":"wordpress","segments":[]}'));
          controller.close();
        },
      },
      { highWaterMark: 0 },
    );
    return { stream, state };
  }

  async function send(headers: Record<string, string>, body: ReadableStream | string) {
    const ctx = createExecutionContext();
    const req = new Request("https://api.test/v1/units", { method: "PUT", headers, body });
    const res = await app.fetch(req, env, ctx);
    await waitOnExecutionContext(ctx);
    return { status: res.status, body: (await res.json()) as any, bodyUsed: req.bodyUsed };
  }

  it("a body is never read for a caller without a valid key", async () => {
    for (const authorization of [undefined, "Bearer not-a-key", `Bearer ${generateKey()}`]) {
      const { stream, state } = watchedBody();
      const headers: Record<string, string> = { "content-type": "application/json", "cf-connecting-ip": "203.0.113.40" };
      if (authorization) headers.authorization = authorization;
      const res = await send(headers, stream);
      expect(res.status).toBe(401);
      expect(state.pulled, String(authorization)).toBe(false);
      expect(res.bodyUsed).toBe(false);
    }
    // with a valid key the same body is read and applied
    const site = await createSite({ handshake: false });
    const { stream, state } = watchedBody();
    const res = await send({ "content-type": "application/json", authorization: `Bearer ${site.key}` }, stream);
    expect(res.status).toBe(200);
    expect(state.pulled).toBe(true);
  });

  it("Content-Length of 10 MB or more is 413 at once, before authentication and without reading", async () => {
    expect(LIMITS.bodyBytes).toBe(10_485_760);
    for (const length of [LIMITS.bodyBytes, LIMITS.bodyBytes + 1, 10 * LIMITS.bodyBytes]) {
      const { stream, state } = watchedBody();
      const res = await send({ "content-type": "application/json", "content-length": String(length) }, stream);
      expect(res.status).toBe(413);
      expect(res.body.detail).toMatch(/10485760 bytes/);
      expect(state.pulled).toBe(false);
    }
    // just below: the size is fine, so the missing key decides
    const { stream } = watchedBody();
    expect((await send({ "content-type": "application/json", "content-length": String(LIMITS.bodyBytes - 1), "cf-connecting-ip": "203.0.113.41" }, stream)).status).toBe(401);
  });
});

describe("admin token", () => {
  it("shorter than 32 characters (or unset) disables the admin API, with a log line saying what to do", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    const app = createApp();
    for (const token of ["x".repeat(31), "", undefined]) {
      const ctx = createExecutionContext();
      const res = await app.fetch(
        new Request("https://api.test/admin/v1/audit", { headers: { authorization: `Bearer ${token}`, "cf-connecting-ip": "203.0.113.50" } }),
        { ...env, ADMIN_TOKEN: token } as Env,
        ctx,
      );
      await waitOnExecutionContext(ctx);
      expect(res.status, String(token)).toBe(401);
      expect(await res.json()).toEqual({ detail: "A valid admin token is required." });
    }
    const logged = warn.mock.calls.map((args) => String(args[0])).join("\n");
    expect(logged).toMatch(/admin API is disabled: ADMIN_TOKEN is only 31 characters; it needs at least 32/);
    expect(logged).not.toContain("x".repeat(31));
    // exactly 32 characters is enough
    const ctx = createExecutionContext();
    const token = "y".repeat(32);
    const res = await app.fetch(new Request("https://api.test/admin/v1/audit", { headers: { authorization: `Bearer ${token}` } }), { ...env, ADMIN_TOKEN: token } as Env, ctx);
    await waitOnExecutionContext(ctx);
    expect(res.status).toBe(200);
  });
});

describe("OpenAPI document", () => {
  it("documents 429 with Retry-After, and the lifecycle admin operations", async () => {
    const doc = (await request("GET", "/v1/openapi.json")).body;
    for (const [path, method] of [
      ["/v1/status", "get"],
      ["/v1/units", "put"],
      ["/v1/jobs", "post"],
    ]) {
      const r429 = doc.paths[path][method].responses["429"];
      expect(r429, `${method} ${path}`).toBeDefined();
      expect(r429.headers["Retry-After"]).toBeDefined();
    }
    const ops = {
      adminDeleteSite: ["/admin/v1/sites/{site_id}", "delete"],
      adminDeleteOrganization: ["/admin/v1/organizations/{org_id}", "delete"],
      adminGetOrganizationUsage: ["/admin/v1/organizations/{org_id}/usage", "get"],
      adminListAudit: ["/admin/v1/audit", "get"],
    };
    for (const [id, [path, method]] of Object.entries(ops)) {
      const op = doc.paths[path][method];
      expect(op.operationId).toBe(id);
      expect(op.tags).toEqual(["admin"]);
      expect(op.security).toEqual([{ admin: [] }]);
      expect(op.summary && op.description).toBeTruthy();
      for (const status of ["401", "422", "429"]) expect(op.responses[status], `${id} ${status}`).toBeDefined();
    }
  });
});
