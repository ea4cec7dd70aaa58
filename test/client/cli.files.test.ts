// The CLI's pure parts: a file's unit key, the include globs, and where settings come from.
import { describe, expect, it } from "vitest";
import { loadConfig, UsageError } from "../../client/src/cli/config.js";
import { globToRegExp, unitKey } from "../../client/src/cli/files.js";

describe("unitKey", () => {
  it("is the path from the working directory, / as :, other characters encoded into the key pattern", () => {
    expect(unitKey("content/guide/install.md")).toBe("content:guide:install.md");
    expect(unitKey("content/guide/getting started.md")).toBe("content:guide:getting_20started.md");
    expect(unitKey("content/a_b:c/ü.md")).toBe("content:a_5fb_3ac:_c3_bc.md");
    for (const k of ["content/x y.md", "content/日本.md", "c/%&?.md"].map(unitKey)) expect(k).toMatch(/^[A-Za-z0-9_.:-]{1,255}$/);
    // Two paths never share a key: `_` and `:` in names are encoded too.
    expect(unitKey("a/b.md")).not.toBe(unitKey("a:b.md"));
    expect(unitKey("a_3ab.md")).not.toBe(unitKey("a:b.md"));
  });

  it("refuses a path whose key would pass 255 characters", () => {
    expect(() => unitKey(`content/${"x".repeat(300)}.md`)).toThrow(/over 255/);
  });
});

describe("globToRegExp", () => {
  it("matches * within a folder, ** across folders and ? one character", () => {
    const md = globToRegExp("**/*.md");
    expect(["a.md", "guide/a.md", "a/b/c.md"].every((p) => md.test(p))).toBe(true);
    expect(md.test("a.mdx")).toBe(false);
    expect(globToRegExp("*.md").test("guide/a.md")).toBe(false);
    expect(globToRegExp("post-?.md").test("post-1.md")).toBe(true);
  });
});

describe("loadConfig", () => {
  const env = { TRANSYNC_URL: "http://env", TRANSYNC_KEY: "tsk_env" };
  it("takes flags first, then the environment, with the documented defaults", () => {
    const c = loadConfig({ url: "http://flag" }, env, "/nonexistent");
    expect([c.url, c.key, c.dir, c.include, c.out, c.fields, c.adapter]).toEqual([
      "http://flag",
      "tsk_env",
      "content",
      "**/*.md",
      "content/{lang}/{path}",
      ["title", "description"],
      null,
    ]);
    expect(loadConfig({ fields: "title,summary" }, env, "/nonexistent").fields).toEqual(["title", "summary"]);
    expect(loadConfig({ dir: "./docs/" }, env, "/nonexistent").dir).toBe("docs");
    expect(loadConfig({ dir: "./" }, env, "/nonexistent").dir).toBe(".");
  });
  it("is a usage error without an address or a key", () => {
    expect(() => loadConfig({}, { TRANSYNC_KEY: "k" }, "/nonexistent")).toThrow(UsageError);
    expect(() => loadConfig({}, { TRANSYNC_URL: "http://x" }, "/nonexistent")).toThrow(UsageError);
  });
});
