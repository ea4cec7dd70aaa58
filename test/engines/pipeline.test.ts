// The shared pipeline against a stand-in protect() that really replaces placeholders with
// tokens, so restoring and MarkupError handling are exercised independently of the markup
// module's own implementation.
import { HttpResponse, http } from "msw";
import { describe, expect, it, vi } from "vitest";

vi.mock("../../src/markup/protect", () => {
  class MarkupError extends Error {
    override name = "MarkupError";
  }
  class TokenLost extends MarkupError {}
  return {
    MarkupError,
    protect(text: string, format: string, mode: "html" | "text") {
      const found: string[] = [];
      const token = (i: number) => (mode === "html" ? `<x id="${i}"/>` : `@@PH${i}@@`);
      let out = text.replace(/\{\w+\}/g, (m) => token(found.push(m)));
      if (mode === "html" && format !== "html" && format !== "rich_text") out = out.replace(/&(?!amp;)/g, "&amp;");
      return {
        text: out,
        restore(translated: string) {
          let restored = translated;
          found.forEach((original, i) => {
            const t = token(i + 1);
            if (restored.split(t).length !== 2) throw new TokenLost(`token ${i + 1} lost`);
            restored = restored.replace(t, original);
          });
          return mode === "html" && format !== "html" && format !== "rich_text" ? restored.replace(/&amp;/g, "&") : restored;
        },
      };
    },
  };
});

// The Worker's entry module (loaded by the test pool) has already imported the real
// protect(); a fresh module registry lets the mock apply to the imports below.
vi.resetModules();
const { runPipeline } = await import("../../src/engines/pipeline");
const { createDeepLEngine } = await import("../../src/engines/deepl");
const { createWorkersAiEngine } = await import("../../src/engines/workers_ai");
const { createOpenAiEngine } = await import("../../src/engines/openai");
const { mockFetch } = await import("../helpers/http");
const { engineError, engineRequest, recordSleeps, segments } = await import("../helpers/engines");

describe("runPipeline", () => {
  it("protects, batches, restores and keeps order; blank segments are not sent", async () => {
    const sent: { texts: string[]; markup: boolean }[] = [];
    const out = await runPipeline(engineRequest({ segments: [...segments(["Hi {name}", "  ", "Tom & Jerry"]), ...segments(["<b>{n}</b>"], "html")] }), {
      engine: "Test",
      mode: "html",
      limits: { maxSegments: 2, maxCharacters: 1000 },
      measure: (t) => t.length,
      send: async (batch, { markup }) => {
        sent.push({ texts: batch.map((b) => b.text), markup });
        return batch.map((b) => `T(${b.text})`);
      },
    });
    expect(sent).toEqual([
      { texts: ['Hi <x id="1"/>', "Tom &amp; Jerry"], markup: true },
      { texts: ['<b><x id="1"/></b>'], markup: true },
    ]);
    expect(out).toEqual(["T(Hi {name})", "  ", "T(Tom & Jerry)", "T(<b>{n}</b>)"]);
  });

  it("sends a batch of untouched plain texts without markup and without restoring", async () => {
    const modes: boolean[] = [];
    const out = await runPipeline(engineRequest({ texts: ["One", "Two"] }), {
      engine: "Test",
      mode: "html",
      limits: { maxSegments: 10, maxCharacters: 1000 },
      measure: (t) => t.length,
      send: async (batch, { markup }) => {
        modes.push(markup);
        return batch.map((b) => `${b.text} &amp; co`);
      },
    });
    expect(modes).toEqual([false]);
    // Not restored: a plain-text answer is taken literally.
    expect(out).toEqual(["One &amp; co", "Two &amp; co"]);
  });

  it("turns a lost token into bad_response", async () => {
    const error = await engineError(
      runPipeline(engineRequest({ texts: ["a", "Hello {name}"] }), {
        engine: "Test",
        mode: "text",
        limits: { maxSegments: 10, maxCharacters: 1000 },
        measure: (t) => t.length,
        send: async (batch) => batch.map(() => "no token"),
      }),
    );
    expect(error.kind).toBe("bad_response");
    expect(error.message).toBe("Test changed or dropped protected markup or placeholders in segment 2");
  });

  it("refuses an answer with the wrong number of translations", async () => {
    const error = await engineError(
      runPipeline(engineRequest({ texts: ["a", "b"] }), {
        engine: "Test",
        mode: "text",
        limits: { maxSegments: 10, maxCharacters: 1000 },
        measure: (t) => t.length,
        send: async () => ["only one"],
      }),
    );
    expect(error.kind).toBe("bad_response");
  });
});

describe("engines with protected markup", () => {
  it("DeepL sends protected placeholders in HTML mode and restores them", async () => {
    const mock = mockFetch([
      http.post("https://api.deepl.com/v2/translate", async ({ request }) => {
        const body = (await request.json()) as { text: string[] };
        return HttpResponse.json({ translations: body.text.map((t) => ({ text: `Hallo ${t.slice(6)}` })) });
      }),
    ]);
    const engine = createDeepLEngine({ DEEPL_API_KEY: "k" });
    const out = await engine.translate(engineRequest({ texts: ["Hello {name}"] }));
    expect(mock.requests[0].json()).toMatchObject({ text: ['Hello <x id="1"/>'], tag_handling: "html" });
    expect(out).toEqual(["Hallo {name}"]);
  });

  it("DeepL losing a placeholder is bad_response", async () => {
    mockFetch([http.post("https://api.deepl.com/v2/translate", () => HttpResponse.json({ translations: [{ text: "Hallo" }] }))]);
    const engine = createDeepLEngine({ DEEPL_API_KEY: "k" });
    const error = await engineError(engine.translate(engineRequest({ texts: ["Hello {name}"] })));
    expect(error.kind).toBe("bad_response");
  });

  it("Workers AI gets text-mode tokens and its output is restored", async () => {
    const run = vi.fn(async (_model: string, input: { text: string }) => ({ translated_text: input.text.replace("Hello", "Hallo") }));
    const engine = createWorkersAiEngine({ AI: { run } as unknown as Ai });
    const out = await engine.translate(engineRequest({ texts: ["Hello {name}"] }));
    expect(run.mock.calls[0][1]).toEqual({ text: "Hello @@PH1@@", source_lang: "en", target_lang: "de" });
    expect(out).toEqual(["Hallo {name}"]);
  });

  it("the LLM dropping a token is asked again, then bad_response", async () => {
    const { sleep } = recordSleeps();
    const mock = mockFetch([
      http.post("https://api.openai.com/v1/chat/completions", () =>
        HttpResponse.json({
          choices: [{ message: { content: JSON.stringify({ items: [{ id: "1", translation: "Hallo" }] }) }, finish_reason: "stop" }],
        }),
      ),
    ]);
    const engine = createOpenAiEngine({ OPENAI_API_KEY: "sk-test" }, { sleep });
    const error = await engineError(engine.translate(engineRequest({ texts: ["Hello {name}"] })));
    expect(error.kind).toBe("bad_response");
    expect(error.message).toContain("changed or dropped a placeholder");
    expect(mock.requests).toHaveLength(2);
    expect(mock.requests[0].json().messages[1].content).toContain("@@PH1@@");
  });
});
