// Engines together with the project's real protect(): what an engine that changes nothing
// answers must come back byte-identical, in HTML mode and in text mode alike.
import { HttpResponse, http } from "msw";
import { describe, expect, it } from "vitest";
import { createAzureEngine } from "../../src/engines/azure";
import { createDeepLEngine } from "../../src/engines/deepl";
import { createGoogleEngine } from "../../src/engines/google";
import { createOpenAiEngine } from "../../src/engines/openai";
import type { EngineSegment } from "../../src/engines/types";
import { createWorkersAiEngine } from "../../src/engines/workers_ai";
import { engineError, engineRequest } from "../helpers/engines";
import { mockFetch } from "../helpers/http";

const SAMPLES: EngineSegment[] = [
  { text: "Hello {name}, you have %d new messages.", format: "plain" },
  { text: "Tom & Jerry <3\nSecond line", format: "plain" },
  { text: '<p>Read the <a href="/terms" title="Terms">terms</a> of {{site}}.</p>', format: "html" },
  { text: "<h2>Title</h2><p>Body &amp; more</p>", format: "rich_text" },
  { text: "**Bold** and [a link](https://example.com) with `code`", format: "markdown" },
  { text: "Just words", format: "plain" },
];

describe("engines with the real protect()", () => {
  it("DeepL (HTML mode) returns every sample unchanged when DeepL echoes", async () => {
    const mock = mockFetch([
      http.post("https://api.deepl.com/v2/translate", async ({ request }) => {
        const body = (await request.json()) as { text: string[] };
        return HttpResponse.json({ translations: body.text.map((text) => ({ text })) });
      }),
    ]);
    const out = await createDeepLEngine({ DEEPL_API_KEY: "k" }).translate(engineRequest({ segments: SAMPLES }));
    expect(out).toEqual(SAMPLES.map((s) => s.text));
    expect(mock.requests[0].json()).toMatchObject({ tag_handling: "html" });
  });

  it("Google and Azure (HTML mode) round-trip every sample", async () => {
    mockFetch([
      http.post("https://translation.googleapis.com/v3/projects/p/locations/global:translateText", async ({ request }) => {
        const body = (await request.json()) as { contents: string[]; mimeType: string };
        expect(body.mimeType).toBe("text/html");
        return HttpResponse.json({ translations: body.contents.map((translatedText) => ({ translatedText })) });
      }),
      http.post("https://api.cognitive.microsofttranslator.com/translate", async ({ request }) => {
        expect(new URL(request.url).searchParams.get("textType")).toBe("html");
        const body = (await request.json()) as { Text: string }[];
        return HttpResponse.json(body.map((e) => ({ translations: [{ text: e.Text, to: "de" }] })));
      }),
    ]);
    const request = engineRequest({ segments: SAMPLES });
    await expect(createGoogleEngine({ GOOGLE_PROJECT_ID: "p", GOOGLE_ACCESS_TOKEN: "t" }).translate(request)).resolves.toEqual(SAMPLES.map((s) => s.text));
    await expect(createAzureEngine({ AZURE_TRANSLATOR_KEY: "k" }).translate(request)).resolves.toEqual(SAMPLES.map((s) => s.text));
  });

  it("Workers AI and the LLM (text mode) round-trip every sample", async () => {
    const ai = { run: async (_m: string, input: { text: string }) => ({ translated_text: input.text }) } as unknown as Ai;
    await expect(createWorkersAiEngine({ AI: ai }).translate(engineRequest({ segments: SAMPLES }))).resolves.toEqual(SAMPLES.map((s) => s.text));

    mockFetch([
      http.post("https://api.openai.com/v1/chat/completions", async ({ request }) => {
        const body = (await request.json()) as { messages: { content: string }[] };
        const items = JSON.parse(body.messages[1].content).items as { id: string; text: string }[];
        const content = JSON.stringify({ items: items.map((i) => ({ id: i.id, translation: i.text })) });
        return HttpResponse.json({ choices: [{ message: { role: "assistant", content }, finish_reason: "stop" }] });
      }),
    ]);
    await expect(createOpenAiEngine({ OPENAI_API_KEY: "k" }).translate(engineRequest({ segments: SAMPLES }))).resolves.toEqual(SAMPLES.map((s) => s.text));
  });

  it("an engine that drops a protected placeholder yields bad_response", async () => {
    mockFetch([
      http.post("https://api.deepl.com/v2/translate", async ({ request }) => {
        const body = (await request.json()) as { text: string[] };
        // Drops every element the engine was asked to leave alone.
        return HttpResponse.json({ translations: body.text.map((text) => ({ text: text.replace(/<span[^>]*>.*?<\/span>/g, "") })) });
      }),
    ]);
    const error = await engineError(createDeepLEngine({ DEEPL_API_KEY: "k" }).translate(engineRequest({ segments: [{ text: "Hello {name}", format: "plain" }] })));
    expect(error.kind).toBe("bad_response");
  });
});
