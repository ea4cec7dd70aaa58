import { describe, expect, it } from "vitest";
import { createEngine, ENGINES, engineConfiguration } from "../../src/engines/registry";
import { engineError, engineRequest } from "../helpers/engines";
import { mockFetch } from "../helpers/http";

describe("createEngine", () => {
  it("builds every engine under its name, with origin llm only for openai", () => {
    for (const name of ENGINES) {
      const engine = createEngine(name, {});
      expect(engine.name).toBe(name);
      expect(engine.origin).toBe(name === "openai" ? "llm" : "mt");
      expect(engine.limits.maxSegments).toBeGreaterThan(0);
      expect(engine.limits.maxCharacters).toBeGreaterThan(0);
    }
  });

  it("constructs engines without credentials; translate() then fails with not_configured and no request", async () => {
    const mock = mockFetch([]);
    for (const name of ENGINES.filter((n) => n !== "pseudo")) {
      const engine = createEngine(name, {});
      expect(engine.supports("de")).toBe(true);
      const error = await engineError(engine.translate(engineRequest({ texts: ["Hello"] })));
      expect(error.kind).toBe("not_configured");
      const configuration = engineConfiguration(name, {});
      expect(configuration).toEqual({ configured: false, message: error.message });
    }
    expect((await engineError(createEngine("deepl", {}).translate(engineRequest({})))).message).toBe("DeepL is not configured: set the DEEPL_API_KEY secret.");
    expect(mock.requests).toHaveLength(0);
  });

  it("reports configured engines", () => {
    expect(engineConfiguration("pseudo", {})).toEqual({ configured: true });
    expect(engineConfiguration("deepl", { DEEPL_API_KEY: "k:fx" })).toEqual({ configured: true });
    expect(engineConfiguration("google", { GOOGLE_PROJECT_ID: "p", GOOGLE_ACCESS_TOKEN: "t" })).toEqual({ configured: true });
    expect(engineConfiguration("azure", { AZURE_TRANSLATOR_KEY: "k" })).toEqual({ configured: true });
    expect(engineConfiguration("workers_ai", { AI: { run: async () => ({}) } as unknown as Ai })).toEqual({ configured: true });
    expect(engineConfiguration("openai", { OPENAI_API_KEY: "k" })).toEqual({ configured: true });
    expect(engineConfiguration("deepl", { DEEPL_API_KEY: "  " })).toMatchObject({ configured: false });
  });

  it("answers supports() from each engine's own list", () => {
    const env = {};
    expect(createEngine("deepl", env).supports("sw")).toBe(false);
    expect(createEngine("google", env).supports("sw")).toBe(true);
    expect(createEngine("azure", env).supports("tlh-Latn")).toBe(true);
    expect(createEngine("workers_ai", env).supports("zh-Hant")).toBe(false);
    expect(createEngine("openai", env).supports("sw")).toBe(true);
  });
});
