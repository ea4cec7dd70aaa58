// Secrets never leave the service: site API keys, the admin token and engine credentials do
// not appear in any response body or header, nor in any log line, across a run full of errors
// (engines that echo the key in their error bodies, retries that give up, 401s with bad or
// revoked keys, a 500 while authenticating). Everything is logged to spies and inspected.
import { env } from "cloudflare:workers";
import { HttpResponse } from "msw";
import { afterEach, describe, expect, it, vi } from "vitest";
import { generateKey } from "../../src/control/keys.control";
import { ADMIN, admin, type Call, createSite, request, unit } from "../helpers/api";
import { alarm, DEEPL_KEY, deeplError, mockEngines, OPENAI_KEY, openaiError, type Script } from "../helpers/faults";

afterEach(() => void vi.restoreAllMocks());

/** Every console line written while the test runs (the Worker and the site object share the isolate). */
function captureLogs() {
  const lines: string[] = [];
  for (const level of ["log", "info", "warn", "error", "debug"] as const)
    vi.spyOn(console, level).mockImplementation((...args: unknown[]) => {
      lines.push(args.map((a) => (typeof a === "string" ? a : a instanceof Error ? `${a.message}\n${a.stack}` : JSON.stringify(a))).join(" "));
    });
  return lines;
}

/** Calls the API and keeps what came back: status, body text, header lines. */
function recorder() {
  const seen: { what: string; text: string }[] = [];
  const call = async (method: string, path: string, opts: Parameters<typeof request>[2] = {}): Promise<Call> => {
    const res = await request(method, path, opts);
    const headers = [...res.headers].map(([k, v]) => `${k}: ${v}`).join("\n");
    seen.push({ what: `${method} ${path} → ${res.status}`, text: `${JSON.stringify(res.body)}\n${headers}` });
    return res;
  };
  return { call, seen };
}

/** The engines' error bodies quote the credentials, as some services do. */
const echoing: { deepl: Script; openai: Script }[] = [
  {
    deepl: () => deeplError(403, `Authorization failed: "${DEEPL_KEY}" is not a valid authentication key`),
    openai: () =>
      HttpResponse.json(
        {
          error: {
            message: `Incorrect API key provided: ${OPENAI_KEY}. You can find your API key at https://platform.openai.com/account/api-keys.`,
            type: "invalid_request_error",
            code: "invalid_api_key",
          },
        },
        { status: 401 },
      ),
  },
  {
    deepl: () => deeplError(400, `Value for 'target_lang' not supported with key ${DEEPL_KEY}`),
    openai: () => openaiError(500, `Upstream failure for Authorization: Bearer ${OPENAI_KEY}`),
  },
  {
    deepl: () => deeplError(503, `Overloaded for ${DEEPL_KEY} (DeepL-Auth-Key ${DEEPL_KEY})`),
    openai: () => openaiError(429, `Quota used up for ${OPENAI_KEY}`, "insufficient_quota"),
  },
];

describe("secrets never appear in responses or logs", () => {
  it("engine errors echoing credentials, bad and revoked keys, and a 500 while authenticating", async () => {
    const logs = captureLogs();
    const { call, seen } = recorder();
    let round = 0;
    mockEngines({ deepl: (n, t) => echoing[round].deepl(n, t), openai: (n, t) => echoing[round].openai(n, t) });

    const site = await createSite({
      target_languages: [
        { code: "de", engine: "deepl" },
        { code: "fr", engine: "openai" },
      ],
    });
    const key = site.key;
    const second = (await admin("POST", `/admin/v1/sites/${site.siteId}/keys`, { name: "staging" })).body;
    const third = (await admin("POST", `/admin/v1/sites/${site.siteId}/keys`, { name: "ci" })).body;
    const secrets = { key, revoked: second.key as string, fresh: third.key as string, ADMIN, DEEPL_KEY, OPENAI_KEY };

    await call("PUT", "/v1/units", {
      key,
      body: unit("post:1", [
        { key: "a", text: "Hello world" },
        { key: "b", text: "Good morning" },
      ]),
    });
    const messages: string[] = [];
    for (round = 0; round < echoing.length; round++) {
      const created = await call("POST", "/v1/jobs", { key, body: {} });
      expect(created.status).toBe(202);
      await alarm(site.siteId);
      const done = await call("GET", `/v1/jobs/${created.body.id}`, { key });
      expect(done.body).toMatchObject({ status: "failed", failed_segments: 4 });
      // The job's languages run side by side: each round's errors are compared in a fixed order.
      messages.push(...done.body.errors.map((e: any) => e.message).sort((a: string, b: string) => (a.startsWith("DeepL") ? 0 : 1) - (b.startsWith("DeepL") ? 0 : 1)));
      await call("GET", "/v1/jobs", { key });
    }
    // The failures are reported, in plain language, with the echoed credentials removed.
    expect(messages).toEqual([
      "DeepL refused the credentials (HTTP 403)",
      "The language model refused the credentials (HTTP 401)",
      expect.stringMatching(/^DeepL rejected the request \(HTTP 400: Value for 'target_lang' not supported with key \[redacted\]\)$/),
      expect.stringMatching(/^The language model is unavailable \(HTTP 500: Upstream failure for Authorization: Bearer \[redacted\]\); gave up after 4 attempts$/),
      expect.stringMatching(/^DeepL is unavailable \(HTTP 503: Overloaded for \[redacted\] \(DeepL-Auth-Key \[redacted\]\)\); gave up after 4 attempts$/),
      expect.stringMatching(/quota is used up/),
    ]);

    // 401s: a key of the right shape that does not exist, a malformed one, a revoked one, the
    // admin token as a site key, a site key as the admin token.
    await admin("DELETE", `/admin/v1/sites/${site.siteId}/keys/${second.id}`);
    const unknown = generateKey();
    for (const bad of [unknown, `${key}x`, key.slice(0, -1), secrets.revoked, ADMIN]) {
      for (const [method, path] of [
        ["GET", "/v1/site"],
        ["POST", "/v1/jobs"],
        ["GET", "/v1/results"],
      ] as const) {
        const res = await call(method, path, { key: bad, body: method === "POST" ? {} : undefined });
        expect(res.status, `${method} ${path} with ${bad.slice(0, 8)}…`).toBe(401);
        expect(JSON.stringify(res.body)).not.toContain(bad);
      }
    }
    expect((await call("GET", `/admin/v1/sites/${site.siteId}/keys`, { key })).status).toBe(401);
    expect((await call("GET", "/v1/site", { headers: { authorization: `Basic ${btoa(`user:${key}`)}` } })).status).toBe(401);

    // A 500: D1 fails while a key that is not cached yet is looked up.
    const lost = () => Promise.reject(new Error("D1_ERROR: Network connection lost."));
    vi.spyOn(env.DB, "prepare").mockImplementationOnce(() => {
      const failing: any = { bind: () => failing, all: lost, raw: lost, first: lost, run: lost };
      return failing;
    });
    const crashed = await call("GET", "/v1/site", { key: secrets.fresh });
    expect(crashed.status).toBe(500);
    expect(Object.keys(crashed.body)).toEqual(["detail"]);
    expect(logs.some((l) => l.includes("D1_ERROR") || l.includes("Failed query"))).toBe(true);
    expect((await call("GET", "/v1/site", { key: secrets.fresh })).status).toBe(200);

    // Admin reads show key prefixes only.
    const keys = await call("GET", `/admin/v1/sites/${site.siteId}/keys`, { key: ADMIN });
    expect(keys.body.keys).toHaveLength(3);
    expect(keys.body.keys.find((k: any) => k.id === second.id).revoked_at).toEqual(expect.any(String));
    await call("GET", "/v1/openapi.json");
    await call("GET", `/admin/v1/sites/${site.siteId}/attention`, { key: ADMIN });

    expect(seen.length).toBeGreaterThan(30);
    expect(logs.length).toBeGreaterThan(0);
    for (const [name, secret] of Object.entries(secrets)) {
      for (const r of seen) expect(r.text, `${name} in the answer to ${r.what}`).not.toContain(secret);
      for (const line of logs) expect(line, `${name} in a log line`).not.toContain(secret);
    }
  });
});
