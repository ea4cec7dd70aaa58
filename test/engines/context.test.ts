// What engines are told besides the text (docs/decisions.md, "What engines are told"): the
// OpenAI-compatible prompt's context and its bound, DeepL's `context`, and the engines without a
// context notion, whose requests stay byte-identical. Recorded by HTTP-level fakes.
import { HttpResponse, http } from "msw";
import { describe, expect, it } from "vitest";
import { createAzureEngine } from "../../src/engines/azure";
import { createDeepLEngine, DEEPL_CONTEXT_CHARACTERS } from "../../src/engines/deepl";
import { clearDeepLGlossaryCache } from "../../src/engines/deepl_glossary";
import { createGoogleEngine } from "../../src/engines/google";
import { createOpenAiEngine, OPENAI_PROMPT_CHARACTERS } from "../../src/engines/openai";
import { CONTEXT_PART_CHARACTERS, ITEM_CONTEXT_CHARACTERS } from "../../src/engines/prompt_context";
import { createPseudoEngine } from "../../src/engines/pseudo";
import type { EngineSegment, SegmentContext } from "../../src/engines/types";
import { createWorkersAiEngine } from "../../src/engines/workers_ai";
import { engineError, engineRequest } from "../helpers/engines";
import { mockFetch, type RecordedRequest } from "../helpers/http";

const OPENAI_KEY = "sk-proj-Abc123Def456Ghi789Jkl012Mno345";
const OPENAI_URL = "https://llm.example.test/v1/chat/completions";
const openAiEnv = { OPENAI_API_KEY: OPENAI_KEY, OPENAI_BASE_URL: "https://llm.example.test/v1", OPENAI_MODEL: "test-model" };
const DEEPL_KEY = "0f3c2a1b-aaaa-bbbb-cccc-123456789abc";
const DEEPL_URL = "https://api.deepl.com/v2/translate";

interface ChatBody {
  messages: { role: string; content: string }[];
}
interface Item {
  id: string;
  text: string;
  context?: { label?: string; path?: string; before?: string[]; after?: string[]; examples?: { source: string; translation: string }[] };
}

/** A chat-completions stand-in answering every item of the user message. */
const chat = http.post(OPENAI_URL, async ({ request }) => {
  if (request.headers.get("Authorization") !== `Bearer ${OPENAI_KEY}`) return HttpResponse.json({ error: { message: "bad key" } }, { status: 401 });
  const body = (await request.json()) as ChatBody;
  const items = (JSON.parse(body.messages[1].content).items as Item[]).map((item) => ({ id: item.id, translation: `DE:${item.text}` }));
  return HttpResponse.json({ choices: [{ index: 0, message: { role: "assistant", content: JSON.stringify({ items }) }, finish_reason: "stop" }] });
});

/** A DeepL stand-in that checks what the API requires and "translates" by tagging. */
const deepl = http.post(DEEPL_URL, async ({ request }) => {
  if (request.headers.get("Authorization") !== `DeepL-Auth-Key ${DEEPL_KEY}`) return HttpResponse.json({ message: "Wrong endpoint" }, { status: 403 });
  const body = (await request.json()) as { text: string[]; target_lang: string; context?: unknown };
  if (!Array.isArray(body.text) || body.text.length > 50 || (body.context !== undefined && typeof body.context !== "string")) {
    return HttpResponse.json({ message: "Bad request" }, { status: 400 });
  }
  return HttpResponse.json({ translations: body.text.map((text) => ({ text: `${text} (${body.target_lang})` })) });
});

const chatBodies = (requests: RecordedRequest[]) => requests.filter((r) => r.url.href === OPENAI_URL).map((r) => r.json<ChatBody>());
const itemsOf = (body: ChatBody): Item[] => JSON.parse(body.messages[1].content).items;

const pageContext: SegmentContext = {
  label: "Checkout",
  path: "/shop/checkout",
  before: ["Your order", "Shipping address"],
  after: ["Pay now", "Terms apply"],
  examples: [
    { source: "Order summary", target: "Zusammenfassung", similarity: 0.8 },
    { source: "Order total:", target: "Bestellsumme:", similarity: 0.92 },
    { source: "Orders", target: "Bestellungen", similarity: 0.76 },
    { source: "Order now", target: "Jetzt bestellen", similarity: 0.75 },
  ],
};

describe("OpenAI-compatible engine: context", () => {
  it("gives each text its unit's label and path, neighbours, the 3 best fuzzy examples, and only the glossary terms that occur", async () => {
    const mock = mockFetch([chat]);
    const glossary = [
      { source: "order", language: "de", target: "Bestellung", caseSensitive: false },
      { source: "Wishlist", language: "de", target: "Wunschliste", caseSensitive: false },
    ];
    const segments: EngineSegment[] = [
      { text: "Order total", format: "plain", kind: "page", field: "body", context: pageContext },
      { text: "Home", format: "plain" },
    ];
    const out = await createOpenAiEngine(openAiEnv).translate(engineRequest({ segments, glossary }));
    expect(out).toEqual(["DE:Order total", "DE:Home"]);
    const [body] = chatBodies(mock.requests);
    const [withContext, without] = itemsOf(body);
    expect(withContext.context).toEqual({
      label: "Checkout",
      path: "/shop/checkout",
      before: ["Your order", "Shipping address"],
      after: ["Pay now", "Terms apply"],
      // The most similar first; the fourth is left out.
      examples: [
        { source: "Order total:", translation: "Bestellsumme:" },
        { source: "Order summary", translation: "Zusammenfassung" },
        { source: "Orders", translation: "Bestellungen" },
      ],
    });
    expect(without).not.toHaveProperty("context");
    expect(JSON.parse(body.messages[1].content).glossary).toEqual([{ source: "order", target: "Bestellung" }]);
    // The system prompt says what context is for, and that it is never translated.
    expect(body.messages[0].content).toMatch(/"context" is for understanding only, never to translate/);
  });

  it("keeps the system prompt as it was for texts without context", async () => {
    const mock = mockFetch([chat]);
    await createOpenAiEngine(openAiEnv).translate(engineRequest({ texts: ["Home"] }));
    await createOpenAiEngine(openAiEnv).translate(engineRequest({ segments: [{ text: "Home", format: "plain", context: {} }] }));
    const [plain, empty] = chatBodies(mock.requests);
    expect(plain.messages[0].content).not.toContain('"context"');
    expect(empty).toEqual(plain);
  });

  it("protects the text as before: placeholders in neighbours and examples are context, not tokens to restore", async () => {
    const mock = mockFetch([chat]);
    const segments: EngineSegment[] = [
      {
        text: "Hello <b>{name}</b>",
        format: "html",
        context: { before: ["Hi {first}"], examples: [{ source: "Hello <b>{user}</b>", target: "Hallo <b>{user}</b>", similarity: 0.8 }] },
      },
    ];
    const out = await createOpenAiEngine(openAiEnv).translate(engineRequest({ segments }));
    const [item] = itemsOf(chatBodies(mock.requests)[0]);
    // The text is protected (its markup and placeholder become tokens) and restored; the context is sent as data.
    expect(item.text).not.toContain("{name}");
    expect(item.text).not.toContain("<b>");
    expect(out).toEqual(["DE:Hello <b>{name}</b>"]);
    expect(item.context?.before).toEqual(["Hi {first}"]);
  });

  it("cuts one text's oversized context in the documented order: neighbours first, then examples beyond the best; never the text or its terms", async () => {
    const mock = mockFetch([chat]);
    const huge = (c: string) => c.repeat(50_000);
    const example = (c: string, similarity: number) => ({ source: huge(c), target: huge(c.toUpperCase()), similarity });
    const text = "Read more about the order.".repeat(200);
    const glossary = [{ source: "order", language: "de", target: "Bestellung", caseSensitive: false }];
    const segments: EngineSegment[] = [
      {
        text,
        format: "plain",
        context: {
          label: huge("L"),
          path: "/blog/post",
          before: [huge("a"), huge("b")],
          after: [huge("c"), huge("d")],
          examples: [example("x", 0.8), example("y", 0.95), example("z", 0.9)],
        },
      },
    ];
    const out = await createOpenAiEngine(openAiEnv).translate(engineRequest({ segments, glossary }));
    expect(out).toEqual([`DE:${text}`]);
    const [body] = chatBodies(mock.requests);
    const [item] = itemsOf(body);
    expect(item.text).toBe(text);
    expect(JSON.parse(body.messages[1].content).glossary).toEqual([{ source: "order", target: "Bestellung" }]);
    const context = item.context!;
    expect(JSON.stringify(context).length).toBeLessThanOrEqual(ITEM_CONTEXT_CHARACTERS);
    expect(context.label).toHaveLength(CONTEXT_PART_CHARACTERS);
    expect(context.path).toBe("/blog/post");
    // All neighbours went before any example; the best example (y, 0.95) is the one kept.
    expect(context.before).toBeUndefined();
    expect(context.after).toBeUndefined();
    expect(context.examples).toHaveLength(1);
    expect(context.examples![0].source.startsWith("yyy")).toBe(true);
  });

  it("drops the farthest neighbours first when only the neighbours overflow", async () => {
    const mock = mockFetch([chat]);
    const n = (c: string) => c.repeat(CONTEXT_PART_CHARACTERS);
    const segments: EngineSegment[] = [{ text: "Home", format: "plain", context: { before: [n("a"), n("b")], after: [n("c"), n("d")] } }];
    // A bound that holds two neighbours of 200 characters but not four.
    const { promptContext } = await import("../../src/engines/prompt_context");
    const cut = promptContext(segments[0].context, 2 * CONTEXT_PART_CHARACTERS + 60);
    expect(cut).toEqual({ before: [n("b")], after: [n("c")] });
    await createOpenAiEngine(openAiEnv).translate(engineRequest({ segments }));
    expect(itemsOf(chatBodies(mock.requests)[0])[0].context).toEqual({ before: [n("a"), n("b")], after: [n("c"), n("d")] });
  });

  it("splits texts across requests rather than dropping context, each request within the prompt's bound", async () => {
    const mock = mockFetch([chat]);
    const big = (i: number): SegmentContext => ({
      label: `Page ${i}`,
      before: [`${"b".repeat(190)} ${i}`, `${"c".repeat(190)} ${i}`],
      after: [`${"d".repeat(190)} ${i}`],
      examples: [{ source: `${"e".repeat(900)} ${i}`, target: `${"f".repeat(900)} ${i}`, similarity: 0.9 }],
    });
    const segments: EngineSegment[] = Array.from({ length: 40 }, (_, i) => ({ text: `Text ${i}`, format: "plain", context: big(i) }));
    const out = await createOpenAiEngine(openAiEnv).translate(engineRequest({ segments }));
    expect(out).toEqual(segments.map((s) => `DE:${s.text}`));
    const sent = chatBodies(mock.requests);
    // Without context these 40 short texts are one request.
    expect(sent.length).toBeGreaterThan(1);
    for (const body of sent) expect(body.messages[1].content.length).toBeLessThanOrEqual(OPENAI_PROMPT_CHARACTERS);
    const items = sent.flatMap(itemsOf);
    expect(items.map((i) => i.text)).toEqual(segments.map((s) => s.text));
    // Every text kept its whole context.
    items.forEach((item, i) => {
      expect(item.context?.before).toHaveLength(2);
      expect(item.context?.after).toHaveLength(1);
      expect(item.context?.examples?.[0].source).toBe(big(i).examples![0].source);
    });
  });
});

describe("DeepL: context", () => {
  it("sends the unit's label and neighbouring text as `context`, one request per unit", async () => {
    clearDeepLGlossaryCache();
    const mock = mockFetch([deepl]);
    const unitA: SegmentContext = { label: "Football news", path: "/news/1", before: ["The match ended 2:1."], after: ["Read the report"] };
    const unitB: SegmentContext = { label: "Garden shop", path: "/shop", after: ["Wooden gates from 99 €"] };
    const segments: EngineSegment[] = [
      { text: "Goal", format: "plain", context: unitA },
      { text: "Gate", format: "plain", context: unitB },
      { text: "Second half", format: "plain", context: { ...unitA, before: ["Goal"], after: ["Read the report"] } },
    ];
    const out = await createDeepLEngine({ DEEPL_API_KEY: DEEPL_KEY }).translate(engineRequest({ segments }));
    expect(out).toEqual(["Goal (DE)", "Gate (DE)", "Second half (DE)"]);
    const sent = mock.requests.map((r) => r.json<{ text: string[]; context?: string }>());
    expect(sent.map((b) => b.text)).toEqual([["Goal", "Second half"], ["Gate"]]);
    // The label, then each neighbour once; a text of the request is not repeated as context.
    expect(sent[0].context).toBe("Football news\nThe match ended 2:1.\nRead the report");
    expect(sent[1].context).toBe("Garden shop\nWooden gates from 99 €");
  });

  it("refuses a text too long for one request before any unit's request is sent", async () => {
    clearDeepLGlossaryCache();
    const mock = mockFetch([deepl]);
    const segments: EngineSegment[] = [
      { text: "Goal", format: "plain", context: { label: "Football news" } },
      { text: "x".repeat(140_000), format: "plain", context: { label: "Garden shop" } },
    ];
    const error = await engineError(createDeepLEngine({ DEEPL_API_KEY: DEEPL_KEY }).translate(engineRequest({ segments })));
    expect(error.kind).toBe("rejected");
    expect(mock.requests).toHaveLength(0);
  });

  it("keeps the kind and field sentence, and bounds the unit context", async () => {
    clearDeepLGlossaryCache();
    const mock = mockFetch([deepl]);
    const long = Array.from({ length: 20 }, (_, i) => `${"n".repeat(150)} ${i}`);
    const segments: EngineSegment[] = [
      { text: "Post", format: "plain", kind: "post", field: "title", context: { label: "Blog", before: long.slice(0, 10), after: long.slice(10) } },
    ];
    await createDeepLEngine({ DEEPL_API_KEY: DEEPL_KEY }).translate(engineRequest({ segments }));
    const [body] = mock.requests.map((r) => r.json<{ context: string }>());
    const [sentence, ...unit] = body.context.split("\n");
    expect(sentence).toBe('Website content: the "title" field of a "post".');
    expect(unit[0]).toBe("Blog");
    expect(Array.from(unit.join("\n")).length).toBeLessThanOrEqual(DEEPL_CONTEXT_CHARACTERS);
    expect(unit.length).toBeGreaterThan(2);
  });
});

describe("engines without a context notion", () => {
  const withContext = (texts: string[]): EngineSegment[] => texts.map((text) => ({ text, format: "plain", context: pageContext }));
  const plain = (texts: string[]): EngineSegment[] => texts.map((text) => ({ text, format: "plain" }));
  const texts = ["Home", "Read more", "Order"];
  const record = async (translate: (segments: EngineSegment[]) => Promise<string[]>, handler: Parameters<typeof mockFetch>[0]) => {
    const mock = mockFetch(handler);
    const a = await translate(plain(texts));
    const b = await translate(withContext(texts));
    const [first, second] = [mock.requests.slice(0, mock.requests.length / 2), mock.requests.slice(mock.requests.length / 2)];
    expect(b).toEqual(a);
    return { first, second };
  };
  const same = (first: RecordedRequest[], second: RecordedRequest[]) => {
    expect(second.length).toBeGreaterThan(0);
    expect(second.map((r) => [r.url.href, r.body])).toEqual(first.map((r) => [r.url.href, r.body]));
  };

  it("google sends identical request bodies", async () => {
    const engine = createGoogleEngine({ GOOGLE_PROJECT_ID: "p", GOOGLE_ACCESS_TOKEN: "ya29.token" });
    const { first, second } = await record(
      (segments) => engine.translate(engineRequest({ segments })),
      [
        http.post(/translation\.googleapis\.com/, async ({ request }) => {
          const body = (await request.json()) as { contents: string[] };
          return HttpResponse.json({ translations: body.contents.map((t) => ({ translatedText: `${t}!` })) });
        }),
      ],
    );
    same(first, second);
  });

  it("azure sends identical request bodies", async () => {
    const engine = createAzureEngine({ AZURE_TRANSLATOR_KEY: "k", AZURE_TRANSLATOR_REGION: "westeurope" });
    const { first, second } = await record(
      (segments) => engine.translate(engineRequest({ segments })),
      [
        http.post(/microsofttranslator\.com/, async ({ request }) => {
          const body = (await request.json()) as { Text: string }[];
          return HttpResponse.json(body.map((e) => ({ translations: [{ text: `${e.Text}!`, to: "de" }] })));
        }),
      ],
    );
    same(first, second);
  });

  it("workers_ai and pseudo get identical inputs and answer the same", async () => {
    const inputs: unknown[] = [];
    const ai = {
      async run(_model: string, input: { text: string }) {
        inputs.push(input);
        return { translated_text: `${input.text}!` };
      },
    } as unknown as Ai;
    const workersAi = createWorkersAiEngine({ AI: ai });
    const a = await workersAi.translate(engineRequest({ segments: plain(texts) }));
    const b = await workersAi.translate(engineRequest({ segments: withContext(texts) }));
    expect(b).toEqual(a);
    expect(inputs.slice(inputs.length / 2)).toEqual(inputs.slice(0, inputs.length / 2));
    const pseudo = createPseudoEngine({});
    expect(await pseudo.translate(engineRequest({ segments: withContext(texts) }))).toEqual(await pseudo.translate(engineRequest({ segments: plain(texts) })));
  });
});
