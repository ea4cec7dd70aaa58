import { HttpResponse, http } from "msw";
import { describe, expect, it } from "vitest";
import { azureLanguage, createAzureEngine } from "../../src/engines/azure";
import { engineError, engineRequest, numbered, recordSleeps, segments } from "../helpers/engines";
import { mockFetch, type RecordedRequest } from "../helpers/http";

const KEY = "a1b2c3d4e5f60718293a4b5c6d7e8f90";
const URL_ = "https://api.cognitive.microsofttranslator.com/translate";
const env = { AZURE_TRANSLATOR_KEY: KEY, AZURE_TRANSLATOR_REGION: "westeurope" };

const translateHandler = (url = URL_) =>
  http.post(url, async ({ request }) => {
    if (request.headers.get("Ocp-Apim-Subscription-Key") !== KEY) {
      return HttpResponse.json({ error: { code: 401000, message: "The request is not authorized because credentials are missing or invalid." } }, { status: 401 });
    }
    const query = new URL(request.url).searchParams;
    if (query.get("api-version") !== "3.0" || !query.get("to")) {
      return HttpResponse.json({ error: { code: 400021, message: "The API version parameter is missing or invalid." } }, { status: 400 });
    }
    const body = (await request.json()) as { Text: string }[];
    if (!Array.isArray(body) || body.length > 1000 || body.some((e) => typeof e.Text !== "string")) {
      return HttpResponse.json({ error: { code: 400077, message: "The maximum request size has been exceeded." } }, { status: 400 });
    }
    const to = query.get("to")!;
    return HttpResponse.json(body.map((e) => ({ translations: [{ text: `${e.Text} (${to})`, to }] })));
  });

const sent = (requests: RecordedRequest[]) => requests.map((r) => ({ query: Object.fromEntries(r.url.searchParams), texts: r.json<{ Text: string }[]>().map((e) => e.Text) }));

describe("Azure engine", () => {
  it("splits at 1,000 elements per request and checks headers and query", async () => {
    const mock = mockFetch([translateHandler()]);
    const texts = numbered(2500);
    const out = await createAzureEngine(env).translate(engineRequest({ texts, source: "en", target: "zh-hans" }));
    expect(sent(mock.requests).map((r) => r.texts.length)).toEqual([1000, 1000, 500]);
    expect(out).toEqual(texts.map((t) => `${t} (zh-Hans)`));
    const first = mock.requests[0];
    expect(first.url.origin + first.url.pathname).toBe(URL_);
    expect(sent(mock.requests)[0].query).toEqual({ "api-version": "3.0", from: "en", to: "zh-Hans", textType: "plain" });
    expect(first.headers.get("Ocp-Apim-Subscription-Key")).toBe(KEY);
    expect(first.headers.get("Ocp-Apim-Subscription-Region")).toBe("westeurope");
    expect(first.headers.get("Content-Type")).toContain("application/json");
  });

  it("splits at 50,000 characters per request", async () => {
    const mock = mockFetch([translateHandler()]);
    await createAzureEngine(env).translate(engineRequest({ texts: ["a".repeat(30_000), "b".repeat(20_000), "c".repeat(1)] }));
    expect(sent(mock.requests).map((r) => r.texts.length)).toEqual([2, 1]);
  });

  it("uses textType=html for html and rich_text", async () => {
    const mock = mockFetch([translateHandler()]);
    const engine = createAzureEngine(env);
    await engine.translate(engineRequest({ segments: segments(["<p>Hi</p>"], "html") }));
    await engine.translate(engineRequest({ segments: segments(["<p>Hi</p>"], "rich_text") }));
    expect(sent(mock.requests).map((r) => r.query.textType)).toEqual(["html", "html"]);
  });

  it("omits the region header when none is set and honours a custom endpoint", async () => {
    const custom = "https://my-translator.cognitiveservices.azure.com/translator/text/v3.0";
    const mock = mockFetch([translateHandler(`${custom}/translate`)]);
    await createAzureEngine({ AZURE_TRANSLATOR_KEY: KEY, AZURE_TRANSLATOR_ENDPOINT: `${custom}/` }).translate(engineRequest({ texts: ["Hi"] }));
    expect(mock.requests[0].url.href.startsWith(`${custom}/translate?`)).toBe(true);
    expect(mock.requests[0].headers.has("Ocp-Apim-Subscription-Region")).toBe(false);
  });

  it("maps site language codes to Azure's", async () => {
    expect(azureLanguage("zh-hans")).toBe("zh-Hans");
    expect(azureLanguage("zh-TW")).toBe("zh-Hant");
    expect(azureLanguage("pt-br")).toBe("pt");
    expect(azureLanguage("pt-pt")).toBe("pt-pt");
    expect(azureLanguage("sr-latn")).toBe("sr-Latn");
    expect(azureLanguage("sr-Latn-RS")).toBe("sr-Latn");
    expect(azureLanguage("sr")).toBe("sr-Cyrl");
    expect(azureLanguage("fr-CA")).toBe("fr-ca");
    expect(azureLanguage("no")).toBe("nb");

    const mock = mockFetch([translateHandler()]);
    await createAzureEngine(env).translate(engineRequest({ texts: ["Hi"], source: "pt-br", target: "pt-pt" }));
    expect(sent(mock.requests)[0].query).toMatchObject({ from: "pt", to: "pt-pt" });
  });

  it("retries 429 honouring Retry-After, then succeeds", async () => {
    const { sleep, sleeps } = recordSleeps();
    let calls = 0;
    const mock = mockFetch([
      http.post(URL_, () =>
        ++calls === 1
          ? HttpResponse.json(
              { error: { code: 429001, message: "The server rejected the request because the client has exceeded request limits." } },
              { status: 429, headers: { "Retry-After": "4" } },
            )
          : undefined,
      ),
      translateHandler(),
    ]);
    await expect(createAzureEngine(env, { sleep }).translate(engineRequest({ texts: ["Hi"] }))).resolves.toEqual(["Hi (de)"]);
    expect(mock.requests).toHaveLength(2);
    expect(sleeps).toEqual([4000]);
  });

  it("retries a 5xx burst, then succeeds; gives up past the retry limit", async () => {
    const { sleep } = recordSleeps();
    const statuses = [500, 503];
    mockFetch([http.post(URL_, () => (statuses.length ? new HttpResponse(null, { status: statuses.shift() }) : undefined)), translateHandler()]);
    await expect(createAzureEngine(env, { sleep }).translate(engineRequest({ texts: ["Hi"] }))).resolves.toEqual(["Hi (de)"]);

    const mock = mockFetch([http.post(URL_, () => HttpResponse.json({ error: { code: 503000, message: "Service is temporarily unavailable." } }, { status: 503 }))]);
    const error = await engineError(createAzureEngine(env, { sleep }).translate(engineRequest({ texts: ["Hi"] })));
    expect(error.kind).toBe("unavailable");
    expect(mock.requests).toHaveLength(4);
  });

  it("fails with quota on 403001 after one request", async () => {
    const { sleep } = recordSleeps();
    const mock = mockFetch([
      http.post(URL_, () =>
        HttpResponse.json({ error: { code: 403001, message: "The operation is not allowed because the subscription has exceeded its free quota." } }, { status: 403 }),
      ),
    ]);
    const error = await engineError(createAzureEngine(env, { sleep }).translate(engineRequest({ texts: ["Hi"] })));
    expect(error.kind).toBe("quota");
    expect(mock.requests).toHaveLength(1);
  });

  it("reports an unsupported target, and missing credentials, without requests", async () => {
    const mock = mockFetch([]);
    const engine = createAzureEngine(env);
    expect(engine.supports("xx")).toBe(false);
    expect(engine.supports("pt-BR")).toBe(true);
    expect((await engineError(engine.translate(engineRequest({ target: "xx" })))).kind).toBe("unsupported_language");
    const error = await engineError(createAzureEngine({}).translate(engineRequest({})));
    expect(error.kind).toBe("not_configured");
    expect(error.message).toContain("AZURE_TRANSLATOR_KEY");
    expect(mock.requests).toHaveLength(0);
  });

  it("never puts the key in an error message", async () => {
    mockFetch([http.post(URL_, () => HttpResponse.json({ error: { code: 401000, message: `Key ${KEY} invalid` } }, { status: 401 }))]);
    const error = await engineError(createAzureEngine(env).translate(engineRequest({ texts: ["Hi"] })));
    expect(error.kind).toBe("rejected");
    expect(error.message).toBe("Azure Translator refused the credentials (HTTP 401)");

    mockFetch([http.post(URL_, () => HttpResponse.json({ error: { code: 400000, message: `Bad request for ${KEY}` } }, { status: 400 }))]);
    const other = await engineError(createAzureEngine(env).translate(engineRequest({ texts: ["Hi"] })));
    expect(other.message).not.toContain(KEY);
  });

  it("AZURE_TRANSLATOR_MAX_CHARACTERS bounds the characters per request (the free tier refuses 50,000 with 429001 every time)", async () => {
    const { sleep } = recordSleeps();
    // As the F0 tier answers: a request of more than about 33,300 characters is refused with 429001, whatever the wait.
    const freeTier = http.post(URL_, async ({ request }) => {
      const body = (await request.clone().json()) as { Text: string }[];
      const size = body.reduce((n, e) => n + [...e.Text].length, 0);
      if (size > 33_300)
        return HttpResponse.json({ error: { code: 429001, message: "The server rejected the request because the client has exceeded request limits." } }, { status: 429 });
      return undefined;
    });
    const texts = Array.from({ length: 40 }, (_, i) => `${i} ${"word ".repeat(240)}`.trim()); // ~1,200 characters each, ~48,000 in all
    const refused = mockFetch([freeTier, translateHandler()]);
    const error = await engineError(createAzureEngine(env, { sleep }).translate(engineRequest({ texts })));
    expect(error.kind).toBe("unavailable");
    expect(refused.requests).toHaveLength(4); // one request, refused each of 4 attempts

    const mock = mockFetch([freeTier, translateHandler()]);
    const out = await createAzureEngine({ ...env, AZURE_TRANSLATOR_MAX_CHARACTERS: "10000" }, { sleep }).translate(engineRequest({ texts }));
    expect(out).toEqual(texts.map((t) => `${t} (de)`));
    const sizes = sent(mock.requests).map((r) => r.texts.reduce((n, t) => n + [...t].length, 0));
    expect(sizes.length).toBe(5);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(10_000);
    expect(createAzureEngine({ ...env, AZURE_TRANSLATOR_MAX_CHARACTERS: "90000" }).limits.maxCharacters).toBe(50_000);
    expect(createAzureEngine({ ...env, AZURE_TRANSLATOR_MAX_CHARACTERS: "nonsense" }).limits.maxCharacters).toBe(50_000);
  });
});
