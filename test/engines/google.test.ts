import { HttpResponse, http } from "msw";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createGoogleEngine, googleLanguage, readGoogleConfig } from "../../src/engines/google";
import { clearGoogleTokenCache, GOOGLE_TOKEN_URL } from "../../src/engines/google_auth";
import { engineError, engineRequest, numbered, recordSleeps, segments } from "../helpers/engines";
import { mockFetch, type RecordedRequest } from "../helpers/http";

const PROJECT = "demo-project";
const TOKEN = "ya29.test-access-token";
const URL_ = `https://translation.googleapis.com/v3/projects/${PROJECT}/locations/global:translateText`;

interface GoogleBody {
  contents: string[];
  sourceLanguageCode: string;
  targetLanguageCode: string;
  mimeType: string;
}

const translateHandler = (token: string | RegExp = TOKEN) =>
  http.post(URL_, async ({ request }) => {
    const authorization = request.headers.get("Authorization") ?? "";
    if (typeof token === "string" ? authorization !== `Bearer ${token}` : !token.test(authorization)) {
      return HttpResponse.json({ error: { code: 401, message: "Request had invalid authentication credentials.", status: "UNAUTHENTICATED" } }, { status: 401 });
    }
    const body = (await request.json()) as GoogleBody;
    if (!Array.isArray(body.contents) || body.contents.length > 1024 || !body.targetLanguageCode) {
      return HttpResponse.json({ error: { code: 400, message: "Too many text segments", status: "INVALID_ARGUMENT" } }, { status: 400 });
    }
    return HttpResponse.json({
      translations: body.contents.map((text) => ({ translatedText: `${text} (${body.targetLanguageCode})` })),
    });
  });

const bodies = (requests: RecordedRequest[]) => requests.filter((r) => r.url.href === URL_).map((r) => r.json<GoogleBody>());
const env = { GOOGLE_PROJECT_ID: PROJECT, GOOGLE_ACCESS_TOKEN: TOKEN };

afterEach(() => clearGoogleTokenCache());

describe("Google engine", () => {
  it("splits at 1,024 strings per request, in order", async () => {
    const mock = mockFetch([translateHandler()]);
    const texts = numbered(1100);
    const out = await createGoogleEngine(env).translate(engineRequest({ texts, target: "fr" }));
    expect(bodies(mock.requests).map((b) => b.contents.length)).toEqual([1024, 76]);
    expect(out).toEqual(texts.map((t) => `${t} (fr)`));
    expect(mock.requests[0].headers.get("Authorization")).toBe(`Bearer ${TOKEN}`);
    expect(bodies(mock.requests)[0]).toMatchObject({ sourceLanguageCode: "en", targetLanguageCode: "fr", mimeType: "text/plain" });
  });

  it("splits at 30,000 code points per request, counting code points", async () => {
    const mock = mockFetch([translateHandler()]);
    // 15,000 emoji are 15,000 code points but 30,000 UTF-16 units: two fit in one request.
    const emoji = "😀".repeat(15_000);
    await createGoogleEngine(env).translate(engineRequest({ texts: [emoji, emoji, "x".repeat(10_000), "y".repeat(25_000)] }));
    expect(bodies(mock.requests).map((b) => b.contents.length)).toEqual([2, 1, 1]);
  });

  it("sends text/html for html and rich_text, text/plain for plain text", async () => {
    const mock = mockFetch([translateHandler()]);
    const engine = createGoogleEngine(env);
    await engine.translate(engineRequest({ segments: segments(["<p>Hi</p>"], "html") }));
    await engine.translate(engineRequest({ segments: segments(["<p>Hi</p>"], "rich_text") }));
    await engine.translate(engineRequest({ segments: segments(["Hi"], "plain") }));
    expect(bodies(mock.requests).map((b) => b.mimeType)).toEqual(["text/html", "text/html", "text/plain"]);
  });

  it("maps site language codes to Google's", async () => {
    expect(googleLanguage("zh-hans")).toBe("zh-CN");
    expect(googleLanguage("zh")).toBe("zh-CN");
    expect(googleLanguage("zh-hant")).toBe("zh-TW");
    expect(googleLanguage("zh-HK")).toBe("zh-TW");
    expect(googleLanguage("pt-br")).toBe("pt-BR");
    expect(googleLanguage("pt-pt")).toBe("pt-PT");
    expect(googleLanguage("fr-ca")).toBe("fr-CA");
    expect(googleLanguage("de-CH")).toBe("de");
    expect(googleLanguage("nb")).toBe("no");
    expect(googleLanguage("iw")).toBe("he");

    const mock = mockFetch([translateHandler()]);
    await createGoogleEngine(env).translate(engineRequest({ texts: ["Hi"], source: "en-us", target: "zh-hant" }));
    expect(bodies(mock.requests)[0]).toMatchObject({ sourceLanguageCode: "en", targetLanguageCode: "zh-TW" });
  });

  it("retries a 429 (Retry-After) and a rate-limit 403, then succeeds", async () => {
    const { sleep, sleeps } = recordSleeps();
    const failures = [
      () => HttpResponse.json({ error: { code: 429, status: "RESOURCE_EXHAUSTED" } }, { status: 429, headers: { "Retry-After": "1" } }),
      () => HttpResponse.json({ error: { code: 403, message: "Rate Limit Exceeded", errors: [{ reason: "rateLimitExceeded" }] } }, { status: 403 }),
    ];
    const mock = mockFetch([http.post(URL_, () => failures.shift()?.()), translateHandler()]);
    await expect(createGoogleEngine(env, { sleep }).translate(engineRequest({ texts: ["Hi"] }))).resolves.toEqual(["Hi (de)"]);
    expect(mock.requests).toHaveLength(3);
    expect(sleeps[0]).toBe(1000);
  });

  // Error bodies as Cloud Translation v3 answers them (google.rpc.Status with ErrorInfo details).
  const v3Error = (code: number, status: string, message: string, info: { reason: string; metadata?: Record<string, string> }) =>
    HttpResponse.json(
      {
        error: {
          code,
          message,
          status,
          details: [{ "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: info.reason, domain: "googleapis.com", metadata: info.metadata ?? {} }],
        },
      },
      { status: code },
    );

  it("retries 403 per-minute rate limits, whatever their case or form: userRateLimitExceeded (v2 reason) and v3 ErrorInfo RATE_LIMIT_EXCEEDED", async () => {
    const { sleep, sleeps } = recordSleeps();
    const failures = [
      () => HttpResponse.json({ error: { code: 403, message: "User Rate Limit Exceeded", errors: [{ reason: "userRateLimitExceeded" }] } }, { status: 403 }),
      () => HttpResponse.json({ error: { code: 403, message: "Rate Limit Exceeded", errors: [{ reason: "RateLimitExceeded" }] } }, { status: 403 }),
      () =>
        v3Error(403, "PERMISSION_DENIED", "Quota exceeded for quota metric 'Characters' and limit 'Characters per minute per user'", {
          reason: "RATE_LIMIT_EXCEEDED",
          metadata: { quota_limit: "CharactersPerMinutePerProjectPerUser", quota_metric: "translate.googleapis.com/default" },
        }),
    ];
    const mock = mockFetch([http.post(URL_, () => failures.shift()?.()), translateHandler()]);
    await expect(createGoogleEngine(env, { sleep }).translate(engineRequest({ texts: ["Hi"] }))).resolves.toEqual(["Hi (de)"]);
    expect(mock.requests).toHaveLength(4);
    expect(sleeps).toHaveLength(3);
  });

  it("a daily limit is quota (the language fails, no retry): dailyLimitExceeded (v2) and a v3 ErrorInfo whose quota is per day", async () => {
    const { sleep } = recordSleeps();
    for (const answer of [
      () => HttpResponse.json({ error: { code: 403, message: "Daily Limit Exceeded", errors: [{ reason: "dailyLimitExceeded", domain: "usageLimits" }] } }, { status: 403 }),
      () =>
        v3Error(429, "RESOURCE_EXHAUSTED", "Quota exceeded for quota metric 'Characters' and limit 'Characters per day'", {
          reason: "RATE_LIMIT_EXCEEDED",
          metadata: { quota_limit: "CharactersPerDayPerProject" },
        }),
    ]) {
      const mock = mockFetch([http.post(URL_, answer)]);
      const error = await engineError(createGoogleEngine(env, { sleep }).translate(engineRequest({ texts: ["Hi"] })));
      expect(error.kind).toBe("quota");
      expect(error.message).toMatch(/daily limit is used up/);
      expect(mock.requests).toHaveLength(1);
    }
  });

  it("other 403s are shown with their reason and not retried (API disabled, permission denied)", async () => {
    const mock = mockFetch([
      http.post(URL_, () =>
        v3Error(403, "PERMISSION_DENIED", "Cloud Translation API has not been used in project demo-project before or it is disabled.", { reason: "SERVICE_DISABLED" }),
      ),
    ]);
    const error = await engineError(createGoogleEngine(env).translate(engineRequest({ texts: ["Hi"] })));
    expect(error.kind).toBe("rejected");
    expect(error.message).toBe(
      "Google Cloud Translation refused the request (HTTP 403: SERVICE_DISABLED: Cloud Translation API has not been used in project demo-project before or it is disabled.)",
    );
    expect(mock.requests).toHaveLength(1);
  });

  it("gives up with unavailable after a 5xx burst past the retry limit", async () => {
    const { sleep } = recordSleeps();
    const mock = mockFetch([http.post(URL_, () => HttpResponse.json({ error: { code: 503, message: "The service is currently unavailable." } }, { status: 503 }))]);
    const error = await engineError(createGoogleEngine(env, { sleep }).translate(engineRequest({ texts: ["Hi"] })));
    expect(error.kind).toBe("unavailable");
    expect(mock.requests).toHaveLength(4);
  });

  it("reports an unsupported target without a request", async () => {
    const mock = mockFetch([]);
    const engine = createGoogleEngine(env);
    expect(engine.supports("tlh")).toBe(false);
    expect(engine.supports("zh-Hant")).toBe(true);
    expect((await engineError(engine.translate(engineRequest({ target: "tlh" })))).kind).toBe("unsupported_language");
    expect(mock.requests).toHaveLength(0);
  });

  it("is not_configured without a project or without credentials", async () => {
    const mock = mockFetch([]);
    for (const partial of [{ GOOGLE_ACCESS_TOKEN: TOKEN }, { GOOGLE_PROJECT_ID: PROJECT }, {}]) {
      const error = await engineError(createGoogleEngine(partial).translate(engineRequest({})));
      expect(error.kind).toBe("not_configured");
      expect(error.message).toContain("GOOGLE_SERVICE_ACCOUNT");
    }
    const bad = await engineError(createGoogleEngine({ GOOGLE_PROJECT_ID: PROJECT, GOOGLE_SERVICE_ACCOUNT: '{"private_key":"secret-material"}' }).translate(engineRequest({})));
    expect(bad.kind).toBe("not_configured");
    expect(bad.message).not.toContain("secret-material");
    expect(mock.requests).toHaveLength(0);
  });

  it("never puts the access token in an error message", async () => {
    const { sleep } = recordSleeps();
    mockFetch([http.post(URL_, () => HttpResponse.json({ error: { message: `Bad token ${TOKEN}` } }, { status: 400 }))]);
    const error = await engineError(createGoogleEngine(env, { sleep }).translate(engineRequest({ texts: ["Hi"] })));
    expect(error.kind).toBe("rejected");
    expect(error.message).not.toContain(TOKEN);

    mockFetch([translateHandler("another-token")]);
    const auth = await engineError(createGoogleEngine(env, { sleep }).translate(engineRequest({ texts: ["Hi"] })));
    expect(auth.message).toBe("Google Cloud Translation refused the credentials (HTTP 401)");
  });
});

describe("Google service-account authentication", () => {
  async function serviceAccount(): Promise<{ json: string; publicKey: CryptoKey; pem: string }> {
    const pair = (await crypto.subtle.generateKey({ name: "RSASSA-PKCS1-v1_5", modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: "SHA-256" }, true, [
      "sign",
      "verify",
    ])) as CryptoKeyPair;
    const der = new Uint8Array((await crypto.subtle.exportKey("pkcs8", pair.privateKey)) as ArrayBuffer);
    const base64 = btoa(String.fromCharCode(...der));
    const pem = `-----BEGIN PRIVATE KEY-----\n${base64.match(/.{1,64}/g)!.join("\n")}\n-----END PRIVATE KEY-----\n`;
    const json = JSON.stringify({
      type: "service_account",
      project_id: PROJECT,
      private_key_id: "kid-1",
      private_key: pem,
      client_email: "translator@demo-project.iam.gserviceaccount.com",
    });
    return { json, publicKey: pair.publicKey, pem };
  }

  const decode = (part: string) => JSON.parse(atob(part.replace(/-/g, "+").replace(/_/g, "/")));
  const bytes = (part: string) => Uint8Array.from(atob(part.replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0));

  function tokenHandler(publicKey: CryptoKey, expiresIn = 3599) {
    let issued = 0;
    return http.post(GOOGLE_TOKEN_URL, async ({ request }) => {
      expect(request.headers.get("Content-Type")).toContain("application/x-www-form-urlencoded");
      const form = new URLSearchParams(await request.text());
      expect(form.get("grant_type")).toBe("urn:ietf:params:oauth:grant-type:jwt-bearer");
      const [header, claims, signature] = form.get("assertion")!.split(".");
      const valid = await crypto.subtle.verify("RSASSA-PKCS1-v1_5", publicKey, bytes(signature), new TextEncoder().encode(`${header}.${claims}`));
      if (!valid) return HttpResponse.json({ error: "invalid_grant", error_description: "Invalid JWT Signature." }, { status: 400 });
      expect(decode(header)).toEqual({ alg: "RS256", typ: "JWT", kid: "kid-1" });
      const c = decode(claims);
      expect(c).toMatchObject({
        iss: "translator@demo-project.iam.gserviceaccount.com",
        scope: "https://www.googleapis.com/auth/cloud-translation",
        aud: GOOGLE_TOKEN_URL,
      });
      expect(c.exp - c.iat).toBe(3600);
      issued++;
      return HttpResponse.json({ access_token: `minted-${issued}`, expires_in: expiresIn, token_type: "Bearer" });
    });
  }

  it("signs an RS256 JWT, exchanges it for a token, and caches the token", async () => {
    const { json, publicKey } = await serviceAccount();
    const mock = mockFetch([tokenHandler(publicKey), translateHandler("minted-1")]);
    const engine = createGoogleEngine({ GOOGLE_SERVICE_ACCOUNT: json });
    expect(readGoogleConfig({ GOOGLE_SERVICE_ACCOUNT: json })).toMatchObject({ ok: true, config: { project: PROJECT } });

    await expect(engine.translate(engineRequest({ texts: ["Hi"] }))).resolves.toEqual(["Hi (de)"]);
    await expect(engine.translate(engineRequest({ texts: ["Bye"] }))).resolves.toEqual(["Bye (de)"]);
    expect(mock.requests.filter((r) => r.url.href === GOOGLE_TOKEN_URL)).toHaveLength(1);
    expect(bodies(mock.requests)).toHaveLength(2);
  });

  it("mints a new token shortly before the old one expires", async () => {
    const { json, publicKey } = await serviceAccount();
    const mock = mockFetch([tokenHandler(publicKey), translateHandler(/^Bearer minted-\d+$/)]);
    const engine = createGoogleEngine({ GOOGLE_SERVICE_ACCOUNT: json, GOOGLE_PROJECT_ID: PROJECT });
    const start = Date.now();
    const now = vi.spyOn(Date, "now").mockReturnValue(start);
    await engine.translate(engineRequest({ texts: ["Hi"] }));
    now.mockReturnValue(start + 50 * 60_000); // 50 minutes later: still fresh
    await engine.translate(engineRequest({ texts: ["Hi"] }));
    now.mockReturnValue(start + 56 * 60_000); // within 5 minutes of expiry
    await engine.translate(engineRequest({ texts: ["Hi"] }));
    now.mockRestore();
    expect(mock.requests.filter((r) => r.url.href === GOOGLE_TOKEN_URL)).toHaveLength(2);
    expect(mock.requests.filter((r) => r.url.href === URL_).map((r) => r.headers.get("Authorization"))).toEqual(["Bearer minted-1", "Bearer minted-1", "Bearer minted-2"]);
  });

  it("reports refused service-account credentials without quoting the key", async () => {
    const { sleep } = recordSleeps();
    const { json, pem } = await serviceAccount();
    const other = await serviceAccount(); // the endpoint knows a different key
    const mock = mockFetch([tokenHandler(other.publicKey)]);
    const error = await engineError(createGoogleEngine({ GOOGLE_SERVICE_ACCOUNT: json }, { sleep }).translate(engineRequest({ texts: ["Hi"] })));
    expect(error.kind).toBe("rejected");
    expect(error.message).toBe("Google refused the service-account credentials (HTTP 400: invalid_grant); check GOOGLE_SERVICE_ACCOUNT");
    expect(error.message).not.toContain(pem.slice(40, 80));
    expect(mock.requests).toHaveLength(1);
  });

  it("is not_configured when the private key cannot be read", async () => {
    const mock = mockFetch([]);
    const json = JSON.stringify({
      client_email: "a@b.iam.gserviceaccount.com",
      private_key: "-----BEGIN PRIVATE KEY-----\nnot-a-key\n-----END PRIVATE KEY-----",
      project_id: PROJECT,
    });
    const error = await engineError(createGoogleEngine({ GOOGLE_SERVICE_ACCOUNT: json }).translate(engineRequest({ texts: ["Hi"] })));
    expect(error.kind).toBe("not_configured");
    expect(error.message).not.toContain("not-a-key");
    expect(mock.requests).toHaveLength(0);
  });
});
