// A job's slice gives the OpenAI-compatible engine each text's unit context (label, path, the
// neighbouring live segments, read once per unit for the job's languages), recorded by an
// HTTP-level fake of chat completions; RunnerDeps.engineContext = false sends none (bench i
// part 2).
import { runInDurableObject } from "cloudflare:test";
import { HttpResponse, http } from "msw";
import { describe, expect, it } from "vitest";
import { createOpenAiEngine } from "../../src/engines/openai";
import { cut, NEIGHBOUR_CHARACTERS, neighbourText, UnitContexts } from "../../src/site/jobs/neighbours";
import { runJobs } from "../../src/site/jobs/runner";
import type { SiteObject } from "../../src/site/object";
import { client, createSite, unit } from "../helpers/api";
import { fakeEngine } from "../helpers/fake-engine";
import { mockFetch, type RecordedRequest } from "../helpers/http";
import { runnerDeps, stubOf } from "../helpers/site";

const KEY = "sk-proj-Abc123Def456Ghi789Jkl012Mno345";
const URL_ = "https://llm.example.test/v1/chat/completions";
const openAiEnv = { OPENAI_API_KEY: KEY, OPENAI_BASE_URL: "https://llm.example.test/v1", OPENAI_MODEL: "test-model" };

interface Item {
  id: string;
  text: string;
  context?: { label?: string; path?: string; before?: string[]; after?: string[]; examples?: { source: string; translation: string }[] };
}

const chat = http.post(URL_, async ({ request }) => {
  const body = (await request.json()) as { messages: { content: string }[] };
  const items = (JSON.parse(body.messages[1].content).items as Item[]).map((item) => ({ id: item.id, translation: `DE ${item.text}` }));
  return HttpResponse.json({ choices: [{ index: 0, message: { role: "assistant", content: JSON.stringify({ items }) }, finish_reason: "stop" }] });
});

/** The items the model was sent, by text. */
const sentItems = (requests: RecordedRequest[]) =>
  new Map(
    requests
      .filter((r) => r.url.href === URL_)
      .flatMap((r) => JSON.parse(r.json<{ messages: { content: string }[] }>().messages[1].content).items as Item[])
      .map((item) => [item.text, item] as const),
  );

/** Creates a job over the whole site and runs it in the object with the real OpenAI-compatible engine. */
async function runWithOpenAi(siteId: number, key: string, engineContext?: boolean) {
  const c = client(key);
  const created = await c.post("/v1/jobs", { confirm: true });
  expect(created.status).toBe(202);
  await runInDurableObject(stubOf(siteId), async (o: SiteObject) => {
    const engine = createOpenAiEngine(openAiEnv);
    await runJobs(runnerDeps(o, { engineFor: () => engine, engineContext }), 60_000);
  });
  expect((await c.get(`/v1/jobs/${created.body.id}`)).body.status).toBe("succeeded");
}

describe("context for engines in a job", () => {
  it("sends each text with its unit's label, path and nearest live neighbours (markup stripped, removed segments skipped)", async () => {
    const site = await createSite({ target_languages: [{ code: "de" }] });
    const c = client(site.key);
    const page = [
      { key: "h", text: "Checkout", field: "title" },
      { key: "a", text: "<p>Your <b>basket</b> holds 3 items.</p>", format: "html" },
      { key: "gone", text: "This paragraph is removed." },
      { key: "b", text: "Order" },
      { key: "c", text: "Shipping is free from 50 €." },
      { key: "d", text: "Pay now" },
    ];
    expect((await c.put("/v1/units", unit("page:checkout", page, { label: "Checkout page", path: "/shop/checkout" }))).status).toBe(200);
    expect(
      (
        await c.put(
          "/v1/units",
          unit(
            "page:checkout",
            page.filter((s) => s.key !== "gone"),
            { label: "Checkout page", path: "/shop/checkout" },
          ),
        )
      ).status,
    ).toBe(200);
    expect((await c.put("/v1/units", unit("post:1", [{ key: "t", text: "Post" }], { label: "Hello world", path: "/blog/hello" }))).status).toBe(200);

    const mock = mockFetch([chat]);
    await runWithOpenAi(site.siteId, site.key);
    const items = sentItems(mock.requests);
    expect(items.get("Order")?.context).toEqual({
      label: "Checkout page",
      path: "/shop/checkout",
      before: ["Checkout", "Your basket holds 3 items."],
      after: ["Shipping is free from 50 €.", "Pay now"],
    });
    expect(items.get("Checkout")?.context).toEqual({
      label: "Checkout page",
      path: "/shop/checkout",
      after: ["Your basket holds 3 items.", "Order"],
    });
    // A unit of one segment: label and path, no neighbours.
    expect(items.get("Post")?.context).toEqual({ label: "Hello world", path: "/blog/hello" });
    expect([...items.keys()]).not.toContain("This paragraph is removed.");
    const results = (await c.get("/v1/results?limit=100")).body.results;
    expect(results.find((r: any) => r.key === "b").text).toBe("DE Order");
  });

  it("sends no context when the runner is told to (engineContext: false)", async () => {
    const site = await createSite({ target_languages: [{ code: "de" }] });
    const c = client(site.key);
    await c.put(
      "/v1/units",
      unit("page:1", [
        { key: "a", text: "Home" },
        { key: "b", text: "About us" },
      ]),
    );
    const mock = mockFetch([chat]);
    await runWithOpenAi(site.siteId, site.key, false);
    const items = sentItems(mock.requests);
    expect(items.size).toBe(2);
    for (const item of items.values()) expect(item).not.toHaveProperty("context");
  });

  // The slice fills context.examples from the memory's fuzzy matches (mem-fuzzy, issue 25 part 1).
  it("gives a new text the approved translation of a near-identical earlier text as an example", async () => {
    const site = await createSite({ target_languages: [{ code: "de" }] });
    const c = client(site.key);
    // An import enters the memory (reviewed text).
    await c.put("/v1/units", unit("page:old", [{ key: "a", text: "Free shipping on all orders over 50 euros.", translations: { de: "Kostenloser Versand ab 50 Euro." } }]));
    await c.put("/v1/units", unit("page:new", [{ key: "a", text: "Free shipping on all orders over 60 euros." }]));
    const mock = mockFetch([chat]);
    await runWithOpenAi(site.siteId, site.key);
    const item = sentItems(mock.requests).get("Free shipping on all orders over 60 euros.");
    expect(item?.context?.label).toBe("page:new");
    expect(item?.context?.examples).toEqual([{ source: "Free shipping on all orders over 50 euros.", translation: "Kostenloser Versand ab 50 Euro." }]);
  });
});

describe("a neighbour's text", () => {
  it("loses its tags and runs of whitespace, and is cut: the same text as the plain rule gives, whatever the shortcuts", () => {
    const rule = (text: string) =>
      cut(
        text
          .replace(/<[^<>]{0,500}>/g, " ")
          .replace(/\s+/g, " ")
          .trim(),
        NEIGHBOUR_CHARACTERS,
      );
    const texts = [
      "Plain words only",
      "Two  spaces",
      " leading",
      "trailing ",
      "tab\there",
      "line\nbreak",
      "no\u00a0break space",
      "<p>Tagged <b>text</b></p>",
      "a < b and c > d",
      "",
      "   ",
      "x".repeat(300),
      `${"é".repeat(199)}😀 tail`,
    ];
    for (const text of texts) expect(neighbourText(text), JSON.stringify(text)).toBe(rule(text));
  });
});

describe("the units' contexts over a job's languages", () => {
  /** Counts the rows of units' segments read for contexts (UnitContexts) until `done()`. */
  function countContextReads(o: SiteObject) {
    const all = o.store.all.bind(o.store);
    let rows = 0;
    o.store.all = ((sql: string, ...args: unknown[]) => {
      const out = all(sql, ...args);
      if (/FROM segments\s+WHERE unit_id IN/.test(sql)) rows += out.length;
      return out;
    }) as typeof o.store.all;
    return {
      done: () => {
        o.store.all = all;
        return rows;
      },
    };
  }

  const texts = (suffix: string) => ["One", "Two", "Three"].map((t, i) => ({ key: `k${i}`, text: `${t}${suffix}` }));

  it("reads each unit once for all of a job's languages, each language's texts sent with the same context", async () => {
    const site = await createSite({ target_languages: [{ code: "de" }, { code: "fr" }, { code: "es" }] });
    const c = client(site.key);
    for (let u = 0; u < 4; u++) await c.put("/v1/units", unit(`page:${u}`, texts(` of page ${u}`), { label: `Page ${u}` }));
    expect((await c.post("/v1/jobs", { confirm: true })).status).toBe(202);
    const engine = fakeEngine();
    const rows = await runInDurableObject(stubOf(site.siteId), async (o: SiteObject) => {
      const reads = countContextReads(o);
      await runJobs(runnerDeps(o, { engineFor: () => engine }), { budgetMs: 60_000, sliceItems: 3 }).finally(reads.done);
      return reads.done();
    });
    // 12 live segments, read once (not once per language: 36).
    expect(rows).toBe(12);
    const sent = engine.requests.flatMap((r) => r.segments.map((s) => ({ language: r.targetLanguage, text: s.text, context: JSON.stringify(s.context) })));
    expect(sent).toHaveLength(36);
    const de = new Map(sent.filter((s) => s.language === "de").map((s) => [s.text, s.context]));
    for (const s of sent) expect(s.context, `${s.language} ${s.text}`).toBe(de.get(s.text));
    expect(de.get("Two of page 2")).toBe(JSON.stringify({ label: "Page 2", path: "/page:2", before: ["One of page 2"], after: ["Three of page 2"] }));
  });

  it("keeps what it read across the runner's own commits, and reads again once a push changed a unit", async () => {
    const site = await createSite({ target_languages: [{ code: "de" }] });
    const c = client(site.key);
    await c.put("/v1/units", unit("page:a", texts(""), { label: "Before" }));
    const stub = stubOf(site.siteId);
    let contexts: UnitContexts | undefined;
    const read = () =>
      runInDurableObject(stub, (o: SiteObject) => {
        contexts ??= new UnitContexts(o.store);
        const items = o.store.all<{ segment_id: number; unit_id: number }>("SELECT id AS segment_id, unit_id FROM segments ORDER BY id");
        const reads = countContextReads(o);
        const context = contexts.of(items).get(items[1].segment_id);
        return { context, rows: reads.done() };
      });

    expect(await read()).toEqual({ context: { label: "Before", path: "/page:a", before: ["One"], after: ["Three"] }, rows: 3 });
    // The runner's own commits (Store.asRunner) leave what it read.
    await runInDurableObject(stub, (o: SiteObject) => o.store.asRunner(() => o.store.run("UPDATE units SET needs_work = 1 - needs_work")));
    expect(await read()).toEqual({ context: { label: "Before", path: "/page:a", before: ["One"], after: ["Three"] }, rows: 0 });
    // A push that changes a neighbour's text and the label: read again.
    await c.put("/v1/units", unit("page:a", [{ key: "k0", text: "One, changed" }, ...texts("").slice(1)], { label: "After" }));
    expect(await read()).toEqual({ context: { label: "After", path: "/page:a", before: ["One, changed"], after: ["Three"] }, rows: 3 });
  });

  it("keeps at most its bound of texts, the units read first going first", async () => {
    const site = await createSite({ target_languages: [{ code: "de" }] });
    const c = client(site.key);
    for (const u of ["a", "b", "c"]) await c.put("/v1/units", unit(`page:${u}`, texts(` ${u}`)));
    const rowsRead = await runInDurableObject(stubOf(site.siteId), (o: SiteObject) => {
      const contexts = new UnitContexts(o.store, 6);
      const itemsOf = (key: string) =>
        o.store.all<{ segment_id: number; unit_id: number }>("SELECT s.id AS segment_id, s.unit_id FROM segments s JOIN units u ON u.id = s.unit_id WHERE u.external_key = ?", key);
      return ["page:a", "page:b", "page:c", "page:b", "page:a"].map((key) => {
        const items = itemsOf(key);
        const reads = countContextReads(o);
        contexts.of(items);
        return reads.done();
      });
    });
    // a and b read; c pushes a out (9 texts over 6) but not b; a is read again.
    expect(rowsRead).toEqual([3, 3, 3, 0, 3]);
  });
});
