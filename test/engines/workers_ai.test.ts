import { describe, expect, it } from "vitest";
import { createWorkersAiEngine, m2m100Language, WORKERS_AI_CONCURRENCY, WORKERS_AI_MODEL } from "../../src/engines/workers_ai";
import { engineError, engineRequest, numbered, recordSleeps } from "../helpers/engines";

interface Call {
  model: string;
  input: { text: string; source_lang?: string; target_lang: string };
}

/** A stand-in for the AI binding: records calls, answers through `answer`, tracks concurrency. */
function fakeAi(answer: (call: Call, n: number) => Promise<unknown> | unknown = (c) => ({ translated_text: `${c.input.text} (${c.input.target_lang})` })) {
  const calls: Call[] = [];
  let running = 0;
  let peak = 0;
  const ai = {
    async run(model: string, input: Call["input"]) {
      const call = { model, input };
      calls.push(call);
      running++;
      peak = Math.max(peak, running);
      try {
        await new Promise((r) => setTimeout(r, 2));
        return await answer(call, calls.length);
      } finally {
        running--;
      }
    },
  };
  return { ai: ai as unknown as Ai, calls, peak: () => peak };
}

describe("Workers AI engine", () => {
  it("makes one call per text with bounded concurrency, results in order", async () => {
    const { ai, calls, peak } = fakeAi();
    const texts = numbered(10);
    const out = await createWorkersAiEngine({ AI: ai }).translate(engineRequest({ texts, source: "en", target: "fr" }));
    expect(out).toEqual(texts.map((t) => `${t} (fr)`));
    expect(calls).toHaveLength(10);
    expect(calls.every((c) => c.model === WORKERS_AI_MODEL)).toBe(true);
    expect(calls.map((c) => c.input.text).sort()).toEqual([...texts].sort());
    expect(calls[0].input).toMatchObject({ source_lang: "en", target_lang: "fr" });
    expect(peak()).toBe(WORKERS_AI_CONCURRENCY);
  });

  it("maps site language codes to M2M-100 codes", async () => {
    expect(m2m100Language("pt-BR")).toBe("pt");
    expect(m2m100Language("zh-hans")).toBe("zh");
    expect(m2m100Language("zh")).toBe("zh");
    expect(m2m100Language("nb")).toBe("no");
    expect(m2m100Language("en-GB")).toBe("en");
    expect(m2m100Language("zh-hant")).toBeUndefined();
    expect(m2m100Language("zh-TW")).toBeUndefined();

    const { ai, calls } = fakeAi();
    await createWorkersAiEngine({ AI: ai }).translate(engineRequest({ texts: ["Hi"], source: "en-US", target: "zh-Hans-CN" }));
    expect(calls[0].input).toEqual({ text: "Hi", source_lang: "en", target_lang: "zh" });
  });

  it("is not_configured without the AI binding", async () => {
    const engine = createWorkersAiEngine({});
    expect(engine.supports("fr")).toBe(true);
    const error = await engineError(engine.translate(engineRequest({})));
    expect(error.kind).toBe("not_configured");
    expect(error.message).toContain("AI binding");
  });

  it("reports an unsupported language without calling the model", async () => {
    const { ai, calls } = fakeAi();
    const engine = createWorkersAiEngine({ AI: ai });
    expect(engine.supports("zh-Hant")).toBe(false);
    expect(engine.supports("tlh")).toBe(false);
    expect((await engineError(engine.translate(engineRequest({ target: "zh-Hant" })))).kind).toBe("unsupported_language");
    expect(calls).toHaveLength(0);
  });

  it("retries when the model is out of capacity, then succeeds", async () => {
    const { sleep, sleeps } = recordSleeps();
    const { ai, calls } = fakeAi((c, n) => {
      if (n <= 2) throw new Error("3040: Capacity temporarily exceeded, please try again.");
      return { translated_text: `${c.input.text}!` };
    });
    await expect(createWorkersAiEngine({ AI: ai }, { sleep }).translate(engineRequest({ texts: ["Hi"] }))).resolves.toEqual(["Hi!"]);
    expect(calls).toHaveLength(3);
    expect(sleeps).toHaveLength(2);
  });

  it("gives up with unavailable after the retry limit", async () => {
    const { sleep } = recordSleeps();
    const { ai, calls } = fakeAi(() => {
      throw new Error("InferenceUpstreamError: 5xx internal error");
    });
    const error = await engineError(createWorkersAiEngine({ AI: ai }, { sleep }).translate(engineRequest({ texts: ["Hi"] })));
    expect(error.kind).toBe("unavailable");
    expect(error.message).toContain("gave up after 4 attempts");
    expect(calls).toHaveLength(4);
  });

  it("fails with quota at once when the daily allocation is used up", async () => {
    const { sleep, sleeps } = recordSleeps();
    const { ai, calls } = fakeAi(() => {
      throw new Error("3036: You have used up your daily free allocation of 10,000 neurons.");
    });
    const error = await engineError(createWorkersAiEngine({ AI: ai }, { sleep }).translate(engineRequest({ texts: ["Hi"] })));
    expect(error.kind).toBe("quota");
    expect(calls).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });

  it("stops starting calls after a failure", async () => {
    const { ai, calls } = fakeAi(() => {
      throw new Error("3036: daily free allocation");
    });
    await engineError(createWorkersAiEngine({ AI: ai }).translate(engineRequest({ texts: numbered(40) })));
    expect(calls.length).toBeLessThanOrEqual(WORKERS_AI_CONCURRENCY);
  });

  it("reports an answer without translated_text as bad_response", async () => {
    const { ai } = fakeAi(() => ({ response: "?" }));
    const error = await engineError(createWorkersAiEngine({ AI: ai }).translate(engineRequest({ texts: ["Hi"] })));
    expect(error.kind).toBe("bad_response");
  });
});
