/**
 * The CLI's commands inside `npm test` (vitest project `cli`, Node: the CLI reads and writes
 * files): `push`, `pull`, `approve` and `reject` against the in-process fake API of
 * ./fake-api.ts. The whole-file rule (a translation is written only when every block of the file
 * has one), where files go (`out`), what is acknowledged, and which translations a review names.
 * test/e2e/cli.test.mjs runs the built CLI against the real Worker.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Failed, pull, push, review } from "../../client/src/cli/commands.js";
import { type Config, loadConfig, UsageError } from "../../client/src/cli/config.js";
import { Output } from "../../client/src/cli/output.js";
import { type FakeApi, fakeApi } from "./fake-api";

const GUIDE = `---
title: Install guide
---

First paragraph.

Second paragraph.
`;
const KEY = "content:guide.md";

let dir: string;
let api: FakeApi;
let out: Output;
const config = (flags: Record<string, string> = {}): Config => loadConfig(flags, { TRANSYNC_URL: "https://fake.transync.test", TRANSYNC_KEY: "tsk_fake" }, dir);
const segmentKeys = () => api.units.get(KEY)!.segments.map((s) => s.key);
/** Translates every segment of the guide into `lang` except those in `except`. */
const translateAll = (lang: string, except: string[] = []) => {
  for (const s of api.units.get(KEY)!.segments) if (!except.includes(s.key)) api.translate(KEY, s.key, lang, `[${lang}] ${s.text}`);
};
const pending = () => [...api.translations.values()].filter((t) => !t.acknowledged).map((t) => t.id);

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), "transync-cli-"));
  mkdirSync(join(dir, "content"));
  writeFileSync(join(dir, "content/guide.md"), GUIDE);
  api = fakeApi();
  out = new Output(true, false);
  await push(config(), out);
  expect(segmentKeys().length).toBe(3); // the title and two paragraphs
});
afterEach(() => {
  api.restore();
  rmSync(dir, { recursive: true, force: true });
});

describe("pull", () => {
  it("writes a language's file only when every block has its translation; the others wait, unacknowledged", async () => {
    translateAll("fr");
    translateAll("de", [segmentKeys()[2]]);
    const deIds = pending().filter((id) => [...api.translations.entries()].some(([k, t]) => t.id === id && k.endsWith("\u0000de")));

    const first = await pull(config(), out);
    expect(first.written).toEqual([{ path: "content/fr/guide.md", language: "fr" }]);
    // The CLI declares whole_unit: German's results are held back by the service until the unit is whole there.
    expect(api.capabilities).toContain("whole_unit");
    expect(first.skipped).toEqual([]);
    expect(existsSync(join(dir, "content/de/guide.md"))).toBe(false);
    const fr = readFileSync(join(dir, "content/fr/guide.md"), "utf8");
    for (const text of ["[fr] Install guide", "[fr] First paragraph.", "[fr] Second paragraph."]) expect(fr).toContain(text);
    expect(fr).not.toMatch(/^First paragraph\.$/m);
    // Only the written file's results are acknowledged: German's stay listed for the next pull.
    expect(first.acknowledged).toBe(3);
    expect(pending().sort()).toEqual(deIds.sort());

    // The last block arrives: the file is written whole, with the blocks delivered before.
    translateAll("de", segmentKeys().slice(0, 2));
    const second = await pull(config(), out);
    expect(second.written).toEqual([{ path: "content/de/guide.md", language: "de" }]);
    const de = readFileSync(join(dir, "content/de/guide.md"), "utf8");
    for (const text of ["[de] Install guide", "[de] First paragraph.", "[de] Second paragraph."]) expect(de).toContain(text);
    expect(pending()).toEqual([]);
  });

  it("writes where `out` says, and never pushes the output folders as sources", async () => {
    translateAll("fr");
    const pulled = await pull(config({ out: "content/{lang}/{path}" }), out);
    expect(pulled.written.map((w) => w.path)).toEqual(["content/fr/guide.md"]);
    // A second push sees only the source file (content/fr/ is an output folder).
    api.requests.length = 0;
    await push(config(), out);
    const batch = api.requests.find((r) => r.path === "/v1/units/batch")!.body as { units: { external_key: string }[] };
    expect(batch.units.map((u) => u.external_key)).toEqual([KEY]);

    translateAll("de");
    const elsewhere = await pull(config({ out: "i18n/{lang}/docs/{path}" }), out);
    expect(elsewhere.written.map((w) => w.path)).toEqual(["i18n/de/docs/guide.md"]);
    expect(existsSync(join(dir, "i18n/de/docs/guide.md"))).toBe(true);
  });

  it("a push that finds a file of a kind the kit does not split is a usage error naming the kinds it splits, before any unit is sent", async () => {
    writeFileSync(join(dir, "content/site.yaml"), "title: Hello\n");
    api.requests.length = 0;
    const pushing = push(config({ include: "**/*" }), out);
    await expect(pushing).rejects.toThrow(UsageError);
    await expect(pushing).rejects.toThrow('content/site.yaml: no splitter for .yaml files: the kit splits .md, .markdown, .html, .htm, .json; narrow "include" to these');
    expect(api.requests.filter((r) => r.path.startsWith("/v1/units"))).toEqual([]);
  });

  it("writes nothing for a file that changed since the push (its blocks no longer line up)", async () => {
    translateAll("fr");
    writeFileSync(join(dir, "content/guide.md"), `${GUIDE}\nA third paragraph.\n`);
    const pulled = await pull(config(), out);
    expect(pulled.written).toEqual([]);
    expect(pulled.skipped).toEqual([{ path: "content/fr/guide.md", language: "fr", reason: expect.stringContaining("1 segment(s) not translated yet") }]);
    expect(existsSync(join(dir, "content/fr/guide.md"))).toBe(false);
    expect(pulled.acknowledged).toBe(0);
  });

  it("an edited block's translations go stale: the file is not written again with them, and waits for the block's new translation", async () => {
    translateAll("de");
    expect((await pull(config(), out)).written).toEqual([{ path: "content/de/guide.md", language: "de" }]);
    const [title, , second] = segmentKeys();

    writeFileSync(join(dir, "content/guide.md"), GUIDE.replace("Second paragraph.", "Second paragraph, edited."));
    const pushed = await push(config(), out);
    // The edited block keeps its key; its translation (German's) is stale.
    expect(segmentKeys()[2]).toBe(second);
    expect(pushed.result).toMatchObject({ changed: 1, unchanged: 2, stale_translations: 1 });
    expect(api.isStale(KEY, second, "de")).toBe(true);

    // A new translation of the title arrives while the edited block's is still the stale one: the file waits.
    api.translate(KEY, title, "de", "[de] Install guide, again");
    const waiting = await pull(config(), out);
    expect(waiting).toMatchObject({ written: [], acknowledged: 0 });
    expect(readFileSync(join(dir, "content/de/guide.md"), "utf8")).not.toContain("again");

    // The edited block's translation arrives: the file is written whole, with neither earlier text.
    api.translate(KEY, second, "de", "[de] Second paragraph, edited.");
    const done = await pull(config(), out);
    expect(done).toMatchObject({ written: [{ path: "content/de/guide.md", language: "de" }], acknowledged: 2 });
    const de = readFileSync(join(dir, "content/de/guide.md"), "utf8");
    for (const text of ["[de] Install guide, again", "[de] First paragraph.", "[de] Second paragraph, edited."]) expect(de).toContain(text);
    expect(de).not.toMatch(/^\[de\] Second paragraph\.$/m);
    expect(pending()).toEqual([]);
  });

  it("follows the result pages to the end: every file of every language is written and acknowledged", async () => {
    // A service answering at most two results a page: each unit's group of three comes whole, one a page.
    api.restore();
    api = fakeApi(undefined, { pageSize: 2 });
    for (const name of ["a", "b", "c"]) writeFileSync(join(dir, `content/${name}.md`), GUIDE.replace("Install guide", `Guide ${name}`));
    await push(config(), out);
    expect(api.units.size).toBe(4);
    for (const [unit, snapshot] of api.units) for (const s of snapshot.segments) for (const lang of ["de", "fr"]) api.translate(unit, s.key, lang, `[${lang}] ${s.text}`);

    const pulled = await pull(config(), out);
    expect(pulled.written).toHaveLength(8);
    expect(new Set(pulled.written.map((w) => w.path))).toEqual(new Set(["a", "b", "c", "guide"].flatMap((f) => [`content/de/${f}.md`, `content/fr/${f}.md`])));
    expect(pulled.acknowledged).toBe(24);
    expect(pending()).toEqual([]);
    // Eight pages, each asked with the previous page's cursor.
    const pages = api.requests.filter((r) => r.path === "/v1/results");
    expect(pages).toHaveLength(8);
    expect(pages.map((r) => r.query.cursor)).toEqual([undefined, "1", "2", "3", "4", "5", "6", "7"]);
  });
});

describe("approve and reject", () => {
  it("approve names every translation of the file in review in that language; with --text-from, the edited blocks' texts", async () => {
    translateAll("fr");
    translateAll("de");
    await pull(config(), out);
    const edited = readFileSync(join(dir, "content/fr/guide.md"), "utf8").replace("[fr] First paragraph.", "Premier paragraphe.");
    writeFileSync(join(dir, "edited.md"), edited);
    api.requests.length = 0;
    const approved = await review(config(), out, "content/guide.md", { lang: "fr", outcome: "approved", textFrom: join(dir, "edited.md") });
    expect(approved).toMatchObject({ path: "content/guide.md", unit: KEY, language: "fr", outcome: "approved", updated: 3, ignored: [], edited: 1 });
    const sent = api.requests.find((r) => r.path === "/v1/reviews")!.body as { reviews: { id: string; outcome: string; text?: string }[] };
    expect(sent.reviews).toHaveLength(3);
    expect(sent.reviews.filter((r) => r.text)).toEqual([expect.objectContaining({ outcome: "approved", text: "Premier paragraphe." })]);
    // German is untouched; approving French again names nothing (no longer in review).
    expect([...api.translations.entries()].filter(([k, t]) => k.endsWith("\u0000de") && t.status === "approved")).toEqual([]);
    expect((await review(config(), out, "content/guide.md", { lang: "fr", outcome: "approved" })).updated).toBe(0);
  });

  it("reject sends every translation in review in that language, and --text-from must line up block for block", async () => {
    translateAll("de");
    await pull(config(), out);
    writeFileSync(join(dir, "short.md"), "---\ntitle: x\n---\n\nOnly one.\n");
    await expect(review(config(), out, "content/guide.md", { lang: "de", outcome: "approved", textFrom: join(dir, "short.md") })).rejects.toThrow(/does not line up/);
    const rejected = await review(config(), out, "content/guide.md", { lang: "de", outcome: "rejected" });
    expect(rejected).toMatchObject({ outcome: "rejected", updated: 3 });
    expect([...api.translations.keys()].filter((k) => k.endsWith("\u0000de"))).toEqual([]);
  });

  it("a file the service does not know is an error naming it; --lang is required", async () => {
    writeFileSync(join(dir, "content/new.md"), "New.\n");
    await expect(review(config(), out, "content/new.md", { lang: "de", outcome: "approved" })).rejects.toThrow(Failed);
    await expect(review(config(), out, "content/new.md", { lang: "de", outcome: "approved" })).rejects.toThrow(/content\/new\.md is not known.*push it first/);
    await expect(review(config(), out, "content/guide.md", { outcome: "approved" })).rejects.toThrow(/--lang is required/);
  });
});
