// The CLI writes only where it should (issue 37, finding 6): a result's language must be one of
// the site's and match the pattern, every output path stays under the output root with no
// symbolic link on the way, and what the service says is printed with control characters escaped.
// node:fs here is workerd's (a real, writable /tmp with symbolic links); the service is mocked.
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { HttpResponse, http } from "msw";
import { describe, expect, it, vi } from "vitest";
import { pull } from "../../client/src/cli/commands.js";
import { loadConfig } from "../../client/src/cli/config.js";
import { splitFile } from "../../client/src/cli/files.js";
import { Output, printable } from "../../client/src/cli/output.js";
import { languageProblem, outputRoot, UnsafePath, under, writeUnder } from "../../client/src/cli/paths.js";
import { mockFetch } from "../helpers/http";

const SITE = ["de", "fr", "pt-BR"];
const SOURCE = "Hello\n";

describe("result languages", () => {
  it.each(["../../x", "../..", "..", "/etc", "de/../../x", "de\\..\\x", "C:", "d", "de\u001b[2J", "de fr", "x".repeat(16)])("%j is refused", (lang) => {
    expect(languageProblem(lang, SITE)).not.toBeNull();
  });
  it("must be one of the site's languages", () => {
    expect(languageProblem("de", SITE)).toBeNull();
    expect(languageProblem("pt-BR", SITE)).toBeNull();
    expect(languageProblem("es", SITE)).toBe("is not one of the site's languages");
  });
});

describe("output paths", () => {
  it("stay under the template's root once resolved", () => {
    expect(outputRoot("/p", "content/{lang}/{path}")).toBe("/p/content");
    expect(outputRoot("/p", "{lang}/{path}")).toBe("/p");
    expect(outputRoot("/p", "out/docs-{lang}/{path}")).toBe("/p/out");
    expect(under("/p/content", "/p/content/de/a.md")).toBe("/p/content/de/a.md");
    for (const bad of ["/p/content", "/p/x.md", "/etc/passwd", "/p/content/../x", "/p/contentx/a.md"]) expect(() => under("/p/content", bad)).toThrow(UnsafePath);
  });

  it("never go through a symbolic link: a linked folder on the way, or a linked file, is refused and nothing is written", () => {
    const root = mkdtempSync("/tmp/cli-root-");
    const elsewhere = mkdtempSync("/tmp/cli-elsewhere-");
    symlinkSync(elsewhere, join(root, "de"));
    expect(() => writeUnder(root, join(root, "de", "guide", "a.md"), "x")).toThrow(/de is a symbolic link/);
    expect(existsSync(join(elsewhere, "guide"))).toBe(false);
    mkdirSync(join(root, "fr"));
    symlinkSync(join(elsewhere, "target.md"), join(root, "fr", "a.md"));
    expect(() => writeUnder(root, join(root, "fr", "a.md"), "x")).toThrow(/symbolic link/);
    expect(existsSync(join(elsewhere, "target.md"))).toBe(false);
    // A plain path is written, its folders made one by one.
    writeUnder(root, join(root, "fr", "deep", "b.md"), "ok");
    expect(readFileSync(join(root, "fr", "deep", "b.md"), "utf8")).toBe("ok");
    expect(lstatSync(join(root, "fr", "deep")).isDirectory()).toBe(true);
  });
});

/** A service whose results for `content/a.md` come in `languages`, with `detail` in the handshake's warnings. */
function service(languages: string[], warning = "") {
  const unit = "content:a.md";
  const [{ key }] = splitFile("a.md", SOURCE, ["title", "description"]).segments;
  const results = languages.map((language, i) => ({ id: `r_${i + 1}`, unit, key, language, text: "Hallo", format: "markdown", source_fingerprint: "f" }));
  return mockFetch([
    http.get("https://svc.test/v1/site", () =>
      HttpResponse.json({ source_language: "en", target_languages: SITE.map((code) => ({ code })), enabled_adapters: ["wordpress"], warnings: [] }),
    ),
    http.post("https://svc.test/v1/handshake", () =>
      HttpResponse.json({ source_language: "en", target_languages: SITE.map((code) => ({ code })), enabled_adapters: ["wordpress"], warnings: warning ? [warning] : [] }),
    ),
    http.get("https://svc.test/v1/results", () => HttpResponse.json({ results, next_cursor: null })),
    // The previous segments the splitter lines keys up with (none: every file is new to the service).
    http.post("https://svc.test/v1/units/texts", async ({ request }) => HttpResponse.json({ units: [], unknown: ((await request.json()) as { keys: string[] }).keys, more: [] })),
    http.get("https://svc.test/v1/units/:key/status", () => HttpResponse.json({ external_key: unit, segments: [{ key, position: 0, states: {}, results: {} }] })),
    http.post("https://svc.test/v1/results/ack", async ({ request }) => HttpResponse.json({ acknowledged: ((await request.json()) as { ids: string[] }).ids.length })),
  ]);
}

function project() {
  const cwd = mkdtempSync("/tmp/cli-project-");
  mkdirSync(join(cwd, "content"));
  writeFileSync(join(cwd, "content", "a.md"), SOURCE);
  return cwd;
}

const quiet = () => {
  const lines: string[] = [];
  const record = (s: unknown) => {
    lines.push(String(s));
    return true;
  };
  vi.spyOn(process.stderr, "write").mockImplementation(record);
  vi.spyOn(process.stdout, "write").mockImplementation(record);
  return lines;
};

describe("pull", () => {
  it("writes nothing outside the project for a language like ../../x or an absolute path, and acknowledges none of them", async () => {
    const cwd = project();
    const fetches = service(["../../escaped", "/tmp/absolute", "de"]);
    quiet();
    const result = await pull(loadConfig({ url: "https://svc.test" }, { TRANSYNC_KEY: "tsk_x" }, cwd), new Output(false, false));
    vi.restoreAllMocks();
    expect(result.written).toEqual([{ path: "content/de/a.md", language: "de" }]);
    expect(result.skipped.map((s) => s.language)).toEqual(["../../escaped", "/tmp/absolute"]);
    expect(existsSync(join(cwd, "..", "escaped"))).toBe(false);
    expect(existsSync(join(cwd, "escaped"))).toBe(false);
    expect(existsSync("/tmp/absolute")).toBe(false);
    const acked = fetches.requests.find((r) => r.url.pathname === "/v1/results/ack")?.json().ids;
    expect(acked).toEqual(["r_3"]);
  });

  it("does not write through a symbolic link planted in the output folder", async () => {
    const cwd = project();
    const elsewhere = mkdtempSync("/tmp/cli-elsewhere-");
    symlinkSync(elsewhere, join(cwd, "content", "de"));
    service(["de"]);
    quiet();
    const result = await pull(loadConfig({ url: "https://svc.test" }, { TRANSYNC_KEY: "tsk_x" }, cwd), new Output(false, false));
    vi.restoreAllMocks();
    expect(result.written).toEqual([]);
    expect(result.skipped[0]).toMatchObject({ path: "content/de/a.md", language: "de", reason: expect.stringContaining("symbolic link") });
    expect(existsSync(join(elsewhere, "a.md"))).toBe(false);
  });

  it("prints the service's strings with control characters escaped", async () => {
    const cwd = project();
    service(["de"], "\u001b]0;pwned\u0007\u001b[2Jcleared\r\nwrote 99 draft(s)\u009b31m");
    const lines = quiet();
    await pull(loadConfig({ url: "https://svc.test" }, { TRANSYNC_KEY: "tsk_x" }, cwd), new Output(false, false));
    vi.restoreAllMocks();
    const printed = lines.join("");
    expect(printed).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
    expect(printed).toContain("warning: \\x1b]0;pwned\\x07\\x1b[2Jcleared\\x0d\\x0awrote 99 draft(s)\\x9b31m\n");
    expect(printable("ok \u2028 line")).toBe("ok \\u2028 line");
  });
});
