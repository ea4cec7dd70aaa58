// Over-long texts: split at paragraph, then sentence boundaries, translated in pieces and
// joined back byte-exact around the pieces; through the real pipeline and the Workers AI engine.
import { describe, expect, it } from "vitest";
import { runPipeline } from "../../src/engines/pipeline";
import { joinPieces, splitLongText } from "../../src/engines/split";
import { createWorkersAiEngine, WORKERS_AI_LIMITS } from "../../src/engines/workers_ai";
import { engineError, engineRequest, segments } from "../helpers/engines";

const within = (n: number) => (piece: string) => [...piece].length <= n;

describe("splitLongText", () => {
  it("cuts at blank lines first and packs neighbouring paragraphs while they fit; joining the pieces gives the text back", () => {
    const text = "First paragraph here.\n\nSecond one.\n \n\nThird paragraph, longer than the others.";
    const split = splitLongText(text, "plain", within(40))!;
    expect(split.pieces).toEqual(["First paragraph here.\n\nSecond one.", "Third paragraph, longer than the others."]);
    expect(split.separators).toEqual(["\n \n\n"]);
    expect(joinPieces(split.pieces, split.separators)).toBe(text);
  });

  it("cuts a paragraph too long on its own at sentence ends (. ! ? and CJK 。！？), keeping the whitespace between them", () => {
    const text = "One sentence. Another one!  A third? Yes.\n\n日本語の文です。次の文です。";
    const split = splitLongText(text, "plain", within(16))!;
    expect(split.pieces).toEqual(["One sentence.", "Another one!", "A third? Yes.", "日本語の文です。次の文です。"]);
    expect(joinPieces(split.pieces, split.separators)).toBe(text);
  });

  it("in HTML, the end of a block element is a paragraph boundary too", () => {
    const text = "<h2>Title</h2>\n<p>First paragraph of the page.</p><p>Second paragraph of the page.</p>";
    const split = splitLongText(text, "html", within(40))!;
    expect(split.pieces).toEqual(["<h2>Title</h2>", "<p>First paragraph of the page.</p>", "<p>Second paragraph of the page.</p>"]);
    expect(split.separators).toEqual(["\n", ""]);
    expect(joinPieces(split.pieces, split.separators)).toBe(text);
  });

  it("answers undefined when one sentence alone is too long", () => {
    expect(splitLongText(`${"x".repeat(50)}. Short.`, "plain", within(20))).toBeUndefined();
  });
});

describe("runPipeline with over-long texts", () => {
  it("sends the pieces as texts of their own and joins their translations with the original separators", async () => {
    const long = ["Alpha one. Alpha two.", "Beta paragraph.", "Gamma paragraph."].join("\n\n  \n");
    const sent: string[][] = [];
    const out = await runPipeline(engineRequest({ segments: segments(["short", long]) }), {
      engine: "Test",
      mode: "text",
      limits: { maxSegments: 10, maxCharacters: 22 },
      measure: (t) => [...t].length,
      send: async (batch) => {
        sent.push(batch.map((b) => b.text));
        return batch.map((b) => b.text.toUpperCase());
      },
    });
    expect(sent.flat()).toEqual(["short", "Alpha one. Alpha two.", "Beta paragraph.", "Gamma paragraph."]);
    expect(out).toEqual(["SHORT", ["ALPHA ONE. ALPHA TWO.", "BETA PARAGRAPH.", "GAMMA PARAGRAPH."].join("\n\n  \n")]);
  });

  it("refuses a text that cannot be split small enough (rejected), before sending anything", async () => {
    let calls = 0;
    const error = await engineError(
      runPipeline(engineRequest({ segments: segments(["y".repeat(40)]) }), {
        engine: "Test",
        mode: "text",
        limits: { maxSegments: 10, maxCharacters: 30 },
        measure: (t) => t.length,
        send: async (batch) => {
          calls++;
          return batch.map((b) => b.text);
        },
      }),
    );
    expect(error.kind).toBe("rejected");
    expect(error.message).toMatch(/cannot take segment 1 in one request/);
    expect(calls).toBe(0);
  });
});

describe("Workers AI: texts bounded by the model's context", () => {
  it("a 3,000-character text goes to the model in pieces within its context, and comes back joined byte-exact", async () => {
    const paragraph = (n: number) => Array.from({ length: 12 }, (_, i) => `Sentence ${i + 1} of paragraph ${n} tells a little more.`).join(" ");
    const text = [1, 2, 3, 4, 5].map(paragraph).join("\n\n");
    expect(text.length).toBeGreaterThan(2_500);
    const inputs: string[] = [];
    const ai = {
      async run(_model: string, input: { text: string }) {
        // As the model does: input beyond its context is refused.
        if ([...input.text].length > WORKERS_AI_LIMITS.maxCharacters) throw new Error("3006: Request is too large");
        inputs.push(input.text);
        return { translated_text: `«${input.text}»` };
      },
    } as unknown as Ai;
    const [out] = await createWorkersAiEngine({ AI: ai }).translate(engineRequest({ texts: [text], source: "en", target: "de" }));
    expect(inputs.length).toBeGreaterThan(2);
    expect(inputs.every((t) => t.length <= 1_000)).toBe(true);
    expect(out).toBe(inputs.map((t) => `«${t}»`).join("\n\n"));
    expect(inputs.join("\n\n")).toBe(text);
  });
});
