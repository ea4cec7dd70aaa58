import { HttpResponse, http } from "msw";
import { afterEach, describe, expect, it } from "vitest";
import { createDeepLEngine, DEEPL_LIMITS, deeplSource, deeplTarget } from "../../src/engines/deepl";
import { clearDeepLGlossaryCache, glossaryEntries } from "../../src/engines/deepl_glossary";
import { engineError, engineRequest, numbered, recordSleeps, segments } from "../helpers/engines";
import { mockFetch, type RecordedRequest } from "../helpers/http";

const KEY = "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0";
const FREE_KEY = "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0:fx";
const PRO = "https://api.deepl.com/v2/translate";
const FREE = "https://api-free.deepl.com/v2/translate";

interface DeepLBody {
  text: string[];
  source_lang: string;
  target_lang: string;
  formality?: string;
  tag_handling?: string;
  glossary_id?: string;
  context?: string;
  preserve_formatting?: boolean;
}

/** A DeepL stand-in that checks what the real API requires and "translates" by tagging. */
const translateHandler = (url = PRO, key = KEY) =>
  http.post(url, async ({ request }) => {
    if (request.headers.get("Authorization") !== `DeepL-Auth-Key ${key}`) {
      return HttpResponse.json({ message: "Wrong endpoint" }, { status: 403 });
    }
    if (!request.headers.get("Content-Type")?.startsWith("application/json")) return new HttpResponse(null, { status: 415 });
    const body = (await request.json()) as DeepLBody;
    if (!Array.isArray(body.text) || body.text.length === 0 || body.text.length > 50 || !body.target_lang) {
      return HttpResponse.json({ message: "Bad request" }, { status: 400 });
    }
    return HttpResponse.json({
      translations: body.text.map((text) => ({ detected_source_language: body.source_lang, text: `${text} (${body.target_lang})` })),
    });
  });

const bodies = (requests: RecordedRequest[]) => requests.filter((r) => r.url.pathname === "/v2/translate").map((r) => r.json<DeepLBody>());

afterEach(() => clearDeepLGlossaryCache());

describe("DeepL engine", () => {
  it("splits 120 texts into 3 requests of at most 50, in order", async () => {
    const mock = mockFetch([translateHandler()]);
    const engine = createDeepLEngine({ DEEPL_API_KEY: KEY });
    const texts = numbered(120);
    const out = await engine.translate(engineRequest({ texts, target: "de" }));

    expect(bodies(mock.requests).map((b) => b.text.length)).toEqual([50, 50, 20]);
    expect(bodies(mock.requests).flatMap((b) => b.text)).toEqual(texts);
    expect(out).toEqual(texts.map((t) => `${t} (DE)`));
    for (const request of mock.requests) {
      expect(request.method).toBe("POST");
      expect(request.url.href).toBe(PRO);
      expect(request.headers.get("Authorization")).toBe(`DeepL-Auth-Key ${KEY}`);
      expect(request.json()).toMatchObject({ source_lang: "EN", target_lang: "DE", preserve_formatting: true });
    }
  });

  it("keeps each request body under 128 KiB", async () => {
    const mock = mockFetch([translateHandler()]);
    const engine = createDeepLEngine({ DEEPL_API_KEY: KEY });
    const texts = Array.from({ length: 5 }, (_, i) => `${i}`.repeat(50_000));
    const out = await engine.translate(engineRequest({ texts }));
    expect(bodies(mock.requests).map((b) => b.text.length)).toEqual([2, 2, 1]);
    for (const request of mock.requests) expect(new TextEncoder().encode(request.body).length).toBeLessThanOrEqual(128 * 1024);
    expect(out).toHaveLength(5);
    expect(DEEPL_LIMITS).toEqual({ maxSegments: 50, maxCharacters: 128 * 1024 - 2048 });
  });

  it("uses api-free.deepl.com for keys ending in :fx", async () => {
    const mock = mockFetch([translateHandler(FREE, FREE_KEY)]);
    const engine = createDeepLEngine({ DEEPL_API_KEY: FREE_KEY });
    await expect(engine.translate(engineRequest({ texts: ["Hi"] }))).resolves.toEqual(["Hi (DE)"]);
    expect(mock.requests[0].url.host).toBe("api-free.deepl.com");
  });

  it("maps site language codes to DeepL's", async () => {
    expect(deeplTarget("pt-br")).toBe("PT-BR");
    expect(deeplTarget("pt-PT")).toBe("PT-PT");
    expect(deeplTarget("pt")).toBe("PT-PT");
    expect(deeplTarget("en-gb")).toBe("EN-GB");
    expect(deeplTarget("en")).toBe("EN-US");
    expect(deeplTarget("en_US")).toBe("EN-US");
    expect(deeplTarget("zh-hans")).toBe("ZH-HANS");
    expect(deeplTarget("zh")).toBe("ZH-HANS");
    expect(deeplTarget("zh-hant")).toBe("ZH-HANT");
    expect(deeplTarget("zh-TW")).toBe("ZH-HANT");
    expect(deeplTarget("de-AT")).toBe("DE");
    expect(deeplTarget("es-MX")).toBe("ES-419");
    expect(deeplTarget("nb")).toBe("NB");
    expect(deeplSource("en-gb")).toBe("EN");
    expect(deeplSource("pt-br")).toBe("PT");
    expect(deeplSource("zh-hant")).toBe("ZH");

    const mock = mockFetch([translateHandler()]);
    const engine = createDeepLEngine({ DEEPL_API_KEY: KEY });
    await engine.translate(engineRequest({ texts: ["Hi"], source: "en-us", target: "pt-br" }));
    await engine.translate(engineRequest({ texts: ["Hi"], source: "pt-br", target: "en" }));
    await engine.translate(engineRequest({ texts: ["Hi"], source: "en", target: "zh-hant" }));
    expect(bodies(mock.requests).map((b) => [b.source_lang, b.target_lang])).toEqual([
      ["EN", "PT-BR"],
      ["PT", "EN-US"],
      ["EN", "ZH-HANT"],
    ]);
  });

  it("maps formality: formal → prefer_more, informal → prefer_less, default → omitted", async () => {
    const mock = mockFetch([translateHandler()]);
    const engine = createDeepLEngine({ DEEPL_API_KEY: KEY });
    await engine.translate(engineRequest({ texts: ["Hi"], formality: "formal" }));
    await engine.translate(engineRequest({ texts: ["Hi"], formality: "informal" }));
    await engine.translate(engineRequest({ texts: ["Hi"], formality: "default" }));
    const sent = bodies(mock.requests);
    expect(sent[0].formality).toBe("prefer_more");
    expect(sent[1].formality).toBe("prefer_less");
    expect(sent[2]).not.toHaveProperty("formality");
  });

  it("uses tag_handling html for html and rich_text, not for plain text", async () => {
    const mock = mockFetch([translateHandler()]);
    const engine = createDeepLEngine({ DEEPL_API_KEY: KEY });
    await engine.translate(engineRequest({ segments: segments(["<p>Hi</p>"], "html") }));
    await engine.translate(engineRequest({ segments: segments(["<p>Hi</p>"], "rich_text") }));
    await engine.translate(engineRequest({ segments: segments(["Hi"], "plain") }));
    const sent = bodies(mock.requests);
    expect(sent[0].tag_handling).toBe("html");
    expect(sent[1].tag_handling).toBe("html");
    expect(sent[2]).not.toHaveProperty("tag_handling");
  });

  it("passes context when every text of a request shares kind and field", async () => {
    const mock = mockFetch([translateHandler()]);
    const engine = createDeepLEngine({ DEEPL_API_KEY: KEY });
    await engine.translate(engineRequest({ segments: segments(["Home", "Shop"], "plain", { kind: "menu", field: "label" }) }));
    await engine.translate(engineRequest({ segments: [...segments(["A"], "plain", { field: "title" }), ...segments(["B"], "plain", { field: "body" })] }));
    const sent = bodies(mock.requests);
    expect(sent[0].context).toBe('Website content: the "label" field of a "menu".');
    expect(sent[1]).not.toHaveProperty("context");
  });

  it("does not send blank segments and makes no request when nothing is left", async () => {
    const mock = mockFetch([translateHandler()]);
    const engine = createDeepLEngine({ DEEPL_API_KEY: KEY });
    await expect(engine.translate(engineRequest({ texts: ["", "  "] }))).resolves.toEqual(["", "  "]);
    expect(mock.requests).toHaveLength(0);
    await expect(engine.translate(engineRequest({ texts: ["A", "", "B"] }))).resolves.toEqual(["A (DE)", "", "B (DE)"]);
    expect(bodies(mock.requests)[0].text).toEqual(["A", "B"]);
  });

  it("retries 429 after the Retry-After wait, then succeeds", async () => {
    const { sleep, sleeps } = recordSleeps();
    let calls = 0;
    const mock = mockFetch([http.post(PRO, () => (++calls === 1 ? new HttpResponse(null, { status: 429, headers: { "Retry-After": "3" } }) : undefined)), translateHandler()]);
    const engine = createDeepLEngine({ DEEPL_API_KEY: KEY }, { sleep });
    await expect(engine.translate(engineRequest({ texts: ["Hi"] }))).resolves.toEqual(["Hi (DE)"]);
    expect(mock.requests).toHaveLength(2);
    expect(sleeps).toEqual([3000]);
  });

  it("retries a burst of 5xx and 529, then succeeds", async () => {
    const { sleep, sleeps } = recordSleeps();
    const statuses = [503, 529, 500];
    const mock = mockFetch([http.post(PRO, () => (statuses.length ? new HttpResponse("busy", { status: statuses.shift() }) : undefined)), translateHandler()]);
    const engine = createDeepLEngine({ DEEPL_API_KEY: KEY }, { sleep });
    await expect(engine.translate(engineRequest({ texts: ["Hi"] }))).resolves.toEqual(["Hi (DE)"]);
    expect(mock.requests).toHaveLength(4);
    expect(sleeps).toHaveLength(3);
  });

  it("gives up with unavailable after the retry limit", async () => {
    const { sleep } = recordSleeps();
    const mock = mockFetch([http.post(PRO, () => HttpResponse.json({ message: "Service unavailable" }, { status: 503 }))]);
    const engine = createDeepLEngine({ DEEPL_API_KEY: KEY }, { sleep });
    const error = await engineError(engine.translate(engineRequest({ texts: ["Hi"] })));
    expect(error.kind).toBe("unavailable");
    expect(error.message).toBe("DeepL is unavailable (HTTP 503: Service unavailable); gave up after 4 attempts");
    expect(mock.requests).toHaveLength(4);
  });

  it("fails with quota on 456 after exactly one request", async () => {
    const { sleep, sleeps } = recordSleeps();
    const mock = mockFetch([http.post(PRO, () => HttpResponse.json({ message: "Quota exceeded" }, { status: 456 }))]);
    const engine = createDeepLEngine({ DEEPL_API_KEY: KEY }, { sleep });
    const error = await engineError(engine.translate(engineRequest({ texts: numbered(120) })));
    expect(error.kind).toBe("quota");
    expect(mock.requests).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });

  it("reports an unsupported target without calling DeepL", async () => {
    const mock = mockFetch([translateHandler()]);
    const engine = createDeepLEngine({ DEEPL_API_KEY: KEY });
    expect(engine.supports("sw")).toBe(false);
    expect(engine.supports("de")).toBe(true);
    expect(engine.supports("pt-BR")).toBe(true);
    const error = await engineError(engine.translate(engineRequest({ texts: ["Hi"], target: "sw" })));
    expect(error.kind).toBe("unsupported_language");
    expect(error.message).toBe('DeepL does not translate into "sw"');
    const source = await engineError(engine.translate(engineRequest({ texts: ["Hi"], source: "sw", target: "de" })));
    expect(source.kind).toBe("unsupported_language");
    expect(mock.requests).toHaveLength(0);
  });

  it("is not_configured without a key, and still answers supports()", async () => {
    const mock = mockFetch([]);
    const engine = createDeepLEngine({});
    expect(engine.supports("de")).toBe(true);
    const error = await engineError(engine.translate(engineRequest({ texts: ["Hi"] })));
    expect(error.kind).toBe("not_configured");
    expect(error.message).toBe("DeepL is not configured: set the DEEPL_API_KEY secret.");
    expect(mock.requests).toHaveLength(0);
  });

  it("never puts the key in an error message", async () => {
    const { sleep } = recordSleeps();
    mockFetch([http.post(PRO, () => HttpResponse.json({ message: `Invalid auth key ${KEY}` }, { status: 403 }))]);
    const engine = createDeepLEngine({ DEEPL_API_KEY: KEY }, { sleep });
    const error = await engineError(engine.translate(engineRequest({ texts: ["Hi"] })));
    expect(error.kind).toBe("rejected");
    expect(error.message).toBe("DeepL refused the credentials (HTTP 403)");

    mockFetch([http.post(PRO, () => HttpResponse.json({ message: `Value for key ${KEY} malformed` }, { status: 400 }))]);
    const other = await engineError(engine.translate(engineRequest({ texts: ["Hi"] })));
    expect(other.message).not.toContain(KEY);
    expect(other.message).not.toContain(KEY.slice(0, 8));
  });

  it("reports a malformed answer as bad_response", async () => {
    mockFetch([http.post(PRO, () => HttpResponse.json({ translations: [{ text: "only one" }] }))]);
    const engine = createDeepLEngine({ DEEPL_API_KEY: KEY });
    const error = await engineError(engine.translate(engineRequest({ texts: ["a", "b"] })));
    expect(error.kind).toBe("bad_response");
  });
});

describe("DeepL glossaries", () => {
  const terms = [
    { source: "cart", language: "de", target: "Warenkorb", caseSensitive: false },
    { source: "checkout", language: "de", target: "Kasse", caseSensitive: false },
  ];

  const glossaryHandlers = (existing: object[] = []) => {
    const created: { name: string; source_lang: string; target_lang: string; entries: string; entries_format: string }[] = [];
    return {
      created,
      handlers: [
        http.get("https://api.deepl.com/v2/glossaries", ({ request }) => {
          expect(request.headers.get("Authorization")).toBe(`DeepL-Auth-Key ${KEY}`);
          return HttpResponse.json({ glossaries: [...existing, ...created.map((g, i) => ({ ...g, glossary_id: `g-${i}`, ready: true }))] });
        }),
        http.post("https://api.deepl.com/v2/glossaries", async ({ request }) => {
          expect(request.headers.get("Authorization")).toBe(`DeepL-Auth-Key ${KEY}`);
          const body = (await request.json()) as (typeof created)[number];
          if (body.entries_format !== "tsv" || !body.entries.includes("\t")) return HttpResponse.json({ message: "Bad entries" }, { status: 400 });
          created.push(body);
          return HttpResponse.json(
            { glossary_id: `g-${created.length - 1}`, name: body.name, ready: true, source_lang: body.source_lang, target_lang: body.target_lang, entry_count: 2 },
            { status: 201 },
          );
        }),
        translateHandler(),
      ],
    };
  };

  it("creates a glossary from TSV entries once and passes its id", async () => {
    const { created, handlers } = glossaryHandlers();
    const mock = mockFetch(handlers);
    const engine = createDeepLEngine({ DEEPL_API_KEY: KEY });
    await engine.translate(engineRequest({ texts: ["Your cart"], target: "pt-br", glossary: terms }));
    await engine.translate(engineRequest({ texts: ["Go to checkout"], target: "pt-br", glossary: [...terms].reverse() }));

    expect(created).toHaveLength(1);
    expect(created[0]).toMatchObject({ source_lang: "en", target_lang: "pt", entries: "cart\tWarenkorb\ncheckout\tKasse", entries_format: "tsv" });
    expect(created[0].name).toMatch(/^transync-[0-9a-f]{40}$/);
    expect(bodies(mock.requests).map((b) => b.glossary_id)).toEqual(["g-0", "g-0"]);
    // One lookup and one creation in all: the second translation used the cached id.
    expect(mock.requests.filter((r) => r.url.pathname === "/v2/glossaries").map((r) => r.method)).toEqual(["GET", "POST"]);
  });

  it("reuses a glossary that already exists on the account", async () => {
    const first = glossaryHandlers();
    mockFetch(first.handlers);
    await createDeepLEngine({ DEEPL_API_KEY: KEY }).translate(engineRequest({ texts: ["cart"], glossary: terms }));
    const name = first.created[0].name;
    clearDeepLGlossaryCache(); // as after an isolate restart

    const second = glossaryHandlers([{ glossary_id: "existing-1", name, ready: true, source_lang: "en", target_lang: "de" }]);
    const mock = mockFetch(second.handlers);
    await createDeepLEngine({ DEEPL_API_KEY: KEY }).translate(engineRequest({ texts: ["cart"], glossary: terms }));
    expect(second.created).toHaveLength(0);
    expect(bodies(mock.requests)[0].glossary_id).toBe("existing-1");
  });

  it("translates without a glossary when DeepL refuses to create it", async () => {
    const mock = mockFetch([
      http.get("https://api.deepl.com/v2/glossaries", () => HttpResponse.json({ glossaries: [] })),
      http.post("https://api.deepl.com/v2/glossaries", () => HttpResponse.json({ message: "Unsupported glossary language" }, { status: 400 })),
      translateHandler(),
    ]);
    const out = await createDeepLEngine({ DEEPL_API_KEY: KEY }).translate(engineRequest({ texts: ["cart"], glossary: terms }));
    expect(out).toEqual(["cart (DE)"]);
    expect(bodies(mock.requests)[0]).not.toHaveProperty("glossary_id");
  });

  it("fails with quota when glossary creation hits 456", async () => {
    mockFetch([
      http.get("https://api.deepl.com/v2/glossaries", () => HttpResponse.json({ glossaries: [] })),
      http.post("https://api.deepl.com/v2/glossaries", () => new HttpResponse(null, { status: 456 })),
    ]);
    const error = await engineError(createDeepLEngine({ DEEPL_API_KEY: KEY }).translate(engineRequest({ texts: ["cart"], glossary: terms })));
    expect(error.kind).toBe("quota");
  });

  it("builds sorted TSV entries, dropping ones DeepL would refuse", () => {
    expect(
      glossaryEntries([
        { source: " zeta ", language: "de", target: " Z ", caseSensitive: false },
        { source: "alpha", language: "de", target: "A", caseSensitive: false },
        { source: "alpha", language: "de", target: "dup", caseSensitive: false },
        { source: "tab\there", language: "de", target: "x", caseSensitive: false },
        // As the official client refuses them: C0 and C1 controls, U+2028 and U+2029.
        { source: "bell\u0007", language: "de", target: "x", caseSensitive: false },
        { source: "next line", language: "de", target: "x\u0085y", caseSensitive: false },
        { source: "line\u2028sep", language: "de", target: "x", caseSensitive: false },
        { source: "para", language: "de", target: "x\u2029y", caseSensitive: false },
        { source: "ümlaut ok", language: "de", target: "non\u00a0breaking is fine", caseSensitive: false },
        { source: "empty", language: "de", target: " ", caseSensitive: false },
      ]),
    ).toBe("alpha\tA\nzeta\tZ\nümlaut ok\tnon\u00a0breaking is fine");
  });

  it("names an organization's glossaries after it and deletes its superseded ones for the same pair (never another's)", async () => {
    const deleted: string[] = [];
    const existing = [
      { glossary_id: "old-1", name: "transync-o7-0123456789012345678901234567890123456789", ready: true, source_lang: "en", target_lang: "de" },
      { glossary_id: "other-org", name: "transync-o8-0123456789012345678901234567890123456789", ready: true, source_lang: "en", target_lang: "de" },
      { glossary_id: "other-pair", name: "transync-o7-9999999999999999999999999999999999999999", ready: true, source_lang: "en", target_lang: "fr" },
      { glossary_id: "not-ours", name: "marketing terms", ready: true, source_lang: "en", target_lang: "de" },
    ];
    const { created, handlers } = glossaryHandlers(existing);
    const mock = mockFetch([
      ...handlers,
      http.delete("https://api.deepl.com/v2/glossaries/:id", ({ params, request }) => {
        expect(request.headers.get("Authorization")).toBe(`DeepL-Auth-Key ${KEY}`);
        deleted.push(String(params.id));
        return new HttpResponse(null, { status: 204 });
      }),
    ]);
    await createDeepLEngine({ DEEPL_API_KEY: KEY }).translate({ ...engineRequest({ texts: ["Your cart"], target: "de", glossary: terms }), glossaryOwner: "7" });
    expect(created).toHaveLength(1);
    expect(created[0].name).toMatch(/^transync-o7-[0-9a-f]{40}$/);
    expect(deleted).toEqual(["old-1"]);
    expect(bodies(mock.requests)[0].glossary_id).toBe("g-0");
  });

  it("a failed deletion does not fail the translation", async () => {
    const { handlers } = glossaryHandlers([
      { glossary_id: "old-1", name: "transync-o7-0123456789012345678901234567890123456789", ready: true, source_lang: "en", target_lang: "de" },
    ]);
    const { sleep } = recordSleeps();
    mockFetch([...handlers, http.delete("https://api.deepl.com/v2/glossaries/:id", () => HttpResponse.json({ message: "Internal error" }, { status: 500 }))]);
    const out = await createDeepLEngine({ DEEPL_API_KEY: KEY }, { sleep }).translate({ ...engineRequest({ texts: ["cart"], target: "de", glossary: terms }), glossaryOwner: "7" });
    expect(out).toEqual(["cart (DE)"]);
  });
});
