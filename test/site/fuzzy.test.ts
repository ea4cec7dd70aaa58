/**
 * Fuzzy matches (src/site/memory/fuzzy.ts): the similarity and its 0.75 threshold, candidates found
 * across edits through the trigram index, the best 3 in order, markup protected before scoring,
 * and in a job: context for the engine only (never a result, never billed differently).
 */
import { runInDurableObject } from "cloudflare:test";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { protect } from "../../src/markup/protect";
import { fingerprint } from "../../src/site/fingerprint";
import { runJobs } from "../../src/site/jobs/runner";
import { rememberTranslation } from "../../src/site/memory/entries";
import { fuzzyMatches } from "../../src/site/memory/fuzzy";
import { RARE_TRIGRAMS, rareTrigrams, trigrams } from "../../src/site/memory/fuzzy-index";
import { searchMemory } from "../../src/site/memory/search";
import { boundedDistance, shownText, similarity } from "../../src/site/memory/similarity";
import type { SiteObject } from "../../src/site/object";
import { client, createSite, unit } from "../helpers/api";
import { fakeEngine } from "../helpers/fake-engine";
import { allResults } from "../helpers/jobs";
import { runnerDeps, stubOf } from "../helpers/site";

/** Plain Levenshtein over code points, the reference the banded one is checked against. */
function levenshtein(a: string, b: string): number {
  const x = [...a];
  const y = [...b];
  let prev = Array.from({ length: y.length + 1 }, (_, j) => j);
  for (let i = 1; i <= x.length; i++) {
    const cur = [i];
    for (let j = 1; j <= y.length; j++) cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (x[i - 1] === y[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[y.length];
}
const points = (s: string) => Int32Array.from([...s].map((c) => c.codePointAt(0)!));

/** Runs `fn` in a fresh site's object whose memory (en → de) holds `entries` (source → target). */
async function withMemory<T>(entries: [string, string][], fn: (o: SiteObject) => T): Promise<T> {
  const site = await createSite({ target_languages: [{ code: "de" }] });
  return runInDurableObject(stubOf(site.siteId), (o: SiteObject) => {
    for (const [source, target] of entries) rememberTranslation(o.store, fingerprint(source), source, "en", "de", target, "approved");
    return fn(o);
  });
}

/** A 100-code-point text and the same with its last `n` code points replaced: similarity 1 − n/100. */
const BASE = "Our shop ships every order within two working days, and returns are free for thirty days after. okay";
const changedTail = (n: number) => BASE.slice(0, 100 - n) + "#".repeat(n);

describe("similarity", () => {
  it("is 1 − Levenshtein distance in code points ÷ the longer text's length", () => {
    expect(BASE).toHaveLength(100);
    expect(similarity("kitten", "sitting")).toBeCloseTo(1 - 3 / 7, 10);
    expect(similarity(BASE, BASE)).toBe(1);
    expect(similarity(BASE, changedTail(25))).toBeCloseTo(0.75, 10);
    expect(similarity(BASE, changedTail(26))).toBeCloseTo(0.74, 10);
    // Code points, not UTF-16 units: an emoji is one.
    expect(similarity("Nice 😀 day", "Nice 😎 day")).toBeCloseTo(1 - 1 / 10, 10);
  });

  it("the banded distance equals the plain one within its bound, and says 'more' beyond it", () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 30, unit: fc.constantFrom("a", "b", "c", "😀") }),
        fc.string({ maxLength: 30, unit: fc.constantFrom("a", "b", "c", "😀") }),
        fc.nat(12),
        (a, b, max) => {
          const d = levenshtein(a, b);
          expect(boundedDistance(points(a), points(b), max)).toBe(d <= max ? d : max + 1);
        },
      ),
      { numRuns: 500 },
    );
  });

  it("the bit-parallel distance holds past 32 code points (several blocks), texts of any length either side", () => {
    const unit = fc.constantFrom("a", "b", "c", "d", "😀");
    fc.assert(
      fc.property(fc.string({ maxLength: 140, unit }), fc.string({ maxLength: 140, unit }), fc.nat(150), (a, b, max) => {
        const d = levenshtein(a, b);
        expect(boundedDistance(points(a), points(b), max)).toBe(d <= max ? d : max + 1);
      }),
      { numRuns: 300 },
    );
    // Near texts of 33, 64, 65 and 100 code points (block edges), one and several edits apart.
    for (const n of [32, 33, 63, 64, 65, 96, 100]) {
      const a = "abcdefghij".repeat(11).slice(0, n);
      const b = `${a.slice(0, 5)}X${a.slice(6, n - 3)}YZ`;
      expect(boundedDistance(points(a), points(b), n)).toBe(levenshtein(a, b));
    }
  });

  it("shows plain text as protection does, its short cut for text without markup included", () => {
    const unit = fc.constantFrom("a", "B", " ", "\n", "😀", "{x}", "%s", "%1$d", ":name", "http://a.example/x", "mailto:a@b.c", "⟦", "⟧", "⟦1⟧", "{{y}}");
    fc.assert(
      fc.property(fc.string({ maxLength: 12, unit }), (text) => {
        expect(shownText(text, "plain")).toBe(protect(text, "plain", "text").text);
      }),
      { numRuns: 500 },
    );
  });

  it("compares texts after markup protection: a tag or placeholder counts as one, whatever its attributes", () => {
    const a = 'Read <a href="/legal/terms-and-conditions-2024">our terms</a> today';
    const b = 'Read <a href="/t">our terms</a> now';
    // As characters the long href makes them far apart; protected, only "today" → "now" differs.
    expect(similarity(a, b, "plain")).toBeLessThan(0.75);
    expect(similarity(a, b, "html")).toBeCloseTo(1 - levenshtein("Read ⌂our terms⌂ today", "Read ⌂our terms⌂ now") / 22, 10);
    expect(similarity("Hello {name}, welcome", "Hello {user_name}, welcome")).toBe(1);
  });
});

describe("rareTrigrams", () => {
  it("picks the rarest trigram of each stretch of the text, so an edit anywhere leaves most picks", () => {
    const grams = trigrams(["the cat sat on the mat with a zebra"]);
    // Only "zeb" is rare: it is picked first, the other stretches still give one pick each.
    const docs = new Map(grams.map((t) => [t, t === "zeb" ? 1 : 10]));
    const picked = rareTrigrams(grams, docs);
    expect(picked).toHaveLength(RARE_TRIGRAMS);
    expect(picked[0]).toBe("zeb");
    expect(picked).toContain("the");
    // Picks stop where their lists would add up to more than the rows read: the rarest is always kept.
    expect(rareTrigrams(grams, new Map(grams.map((t) => [t, t === "zeb" ? 1 : 1000])))).toEqual(["zeb"]);
    expect(rareTrigrams(trigrams(["ab", "abcd"]), new Map())).toEqual(["abc", "bcd"]);
    // Trigrams are of code points: an emoji is one.
    expect(trigrams(["a😀bc", "xyz"])).toEqual(["a😀b", "😀bc", "xyz"]);
  });
});

describe("fuzzyMatches", () => {
  it("keeps 0.75 ≤ similarity < 1: 0.74 out, 0.75 in, the same text out", async () => {
    const found = await withMemory(
      [
        [changedTail(26), "0.74"],
        [changedTail(25), "0.75"],
        [BASE, "exact"],
      ],
      (o) => fuzzyMatches(o.store, "en", "de", [BASE]),
    );
    expect(found).toEqual([[{ source: changedTail(25), target: "0.75", similarity: 0.75 }]]);
  });

  it("finds candidates across edits: a word changed, a word inserted, punctuation", async () => {
    const memory: [string, string][] = [
      ["Free shipping on all orders over 50 euros", "Kostenloser Versand ab 50 Euro"],
      ["Sign up for our newsletter to get the latest news", "Newsletter abonnieren"],
      ["Your cart is empty. Continue shopping?", "Ihr Warenkorb ist leer. Weiter einkaufen?"],
      ["Something else entirely different here", "Etwas anderes"],
    ];
    const found = await withMemory(memory, (o) =>
      fuzzyMatches(o.store, "EN", "DE", [
        "Free shipping on all orders over 80 euros", // a word changed
        "Sign up for our weekly newsletter to get the latest news", // a word inserted
        "Your cart is empty! Continue shopping.", // punctuation
        "Nothing like any of them at all", // no match
        "Hi", // under 3 code points: none
      ]),
    );
    expect(found.map((list) => list.map((m) => m.target))).toEqual([[memory[0][1]], [memory[1][1]], [memory[2][1]], [], []]);
    expect(found[0][0].similarity).toBeCloseTo(similarity(memory[0][0], "Free shipping on all orders over 80 euros"), 3);
  });

  it("answers the best 3, best first, only from the language pair asked", async () => {
    const q = "The quick brown fox jumps over the lazy dog near the river bank";
    const variants = [
      "The quick brown fox jumps over the lazy dog near the river band", // 1 edit
      "The quick brown fox jumps over the lazy cat near the river bank", // 3
      "The quick brown fox leaps over the lazy dog near the river bank", // 4
      "The quick brown fox leaps over the lazy cat near the river bank", // 7
      "The slow brown fox leaps over the lazy cat near the river bank", // 12
    ];
    const found = await withMemory(
      variants.map((v, i) => [v, `t${i}`]),
      (o) => {
        rememberTranslation(o.store, fingerprint(q), q, "en", "fr", "le même", "approved");
        rememberTranslation(o.store, fingerprint(variants[0]), variants[0], "fr", "de", "other source language", "approved");
        return { de: fuzzyMatches(o.store, "en", "de", [q]), fr: fuzzyMatches(o.store, "en", "fr", [q]) };
      },
    );
    expect(found.de[0].map((m) => m.target)).toEqual(["t0", "t1", "t2"]);
    const sims = found.de[0].map((m) => m.similarity);
    expect(sims).toEqual([...sims].sort((a, b) => b - a));
    expect(found.fr).toEqual([[]]);
  });

  it("finds the pair's matches among as close entries of other target languages (more rows ranked when the pair is a small share)", async () => {
    const q = "The quick brown fox jumps over the lazy dog near the river bank";
    const variants = [
      "The quick brown fox jumps over the lazy dog near the river band",
      "The quick brown fox jumps over the lazy cat near the river bank",
      "The quick brown fox leaps over the lazy dog near the river bank",
      "The quick brown fox leaps over the lazy cat near the river bank",
    ];
    const found = await withMemory(
      variants.map((v, i) => [v, `de${i}`]),
      (o) => {
        // The same sources in five more languages, written after the German ones (newer rows come first among equals).
        for (const lang of ["fr", "it", "es", "nl", "pl"])
          for (const [i, v] of variants.entries()) rememberTranslation(o.store, fingerprint(v), v, "en", lang, `${lang}${i}`, "approved");
        return fuzzyMatches(o.store, "en", "de", [q]);
      },
    );
    expect(found[0].map((m) => m.target)).toEqual(["de0", "de1", "de2"]);
  });

  it("scores markup-protected texts: a link's changed address does not count against the match", async () => {
    const stored = 'Read <a href="/legal/terms-and-conditions-2024">our terms and conditions</a> before ordering';
    const asked = 'Read <a href="/t">our terms and conditions</a> before you order';
    const found = await withMemory([[stored, "Lesen Sie unsere AGB"]], (o) => ({
      html: fuzzyMatches(o.store, "en", "de", [asked], ["html"]),
      plain: fuzzyMatches(o.store, "en", "de", [asked], ["plain"]),
    }));
    expect(found.html[0]).toHaveLength(1);
    expect(found.html[0][0].similarity).toBeCloseTo(similarity(stored, asked, "html"), 3);
    expect(found.plain[0]).toEqual([]);
  });

  it("follows the memory: an edited entry's new text, a deleted entry gone", async () => {
    const a = "Free shipping on all orders over 50 euros";
    const q = "Free shipping on all orders over 80 euros";
    const found = await withMemory([[a, "alt"]], (o) => {
      const before = fuzzyMatches(o.store, "en", "de", [q]);
      rememberTranslation(o.store, fingerprint(a), a, "en", "de", "neu", "human");
      const edited = fuzzyMatches(o.store, "en", "de", [q]);
      o.store.run("DELETE FROM memory");
      return { before, edited, deleted: fuzzyMatches(o.store, "en", "de", [q]) };
    });
    expect(found.before[0].map((m) => m.target)).toEqual(["alt"]);
    expect(found.edited[0].map((m) => m.target)).toEqual(["neu"]);
    expect(found.deleted).toEqual([[]]);
  });
  it("stops at its budget: the texts left once it is spent get no match (context only)", async () => {
    const a = "Free shipping on all orders over 50 euros";
    const q = "Free shipping on all orders over 80 euros";
    const r = "Free shipping on all orders over 90 euros";
    // A clock that moves 10 ms each time it is read: read at the start, then before each distinct text.
    const ticking = () => {
      let t = 0;
      return () => (t += 10);
    };
    const found = await withMemory([[a, "alt"]], (o) => ({
      tight: fuzzyMatches(o.store, "en", "de", [q, q, r], undefined, { ms: 15, now: ticking() }),
      roomy: fuzzyMatches(o.store, "en", "de", [q, r], undefined, { ms: 1000, now: ticking() }),
    }));
    // The first text is looked up (10 ms spent), its repeat is answered from it, the next distinct one is past the budget.
    expect(found.tight.map((list) => list.map((m) => m.target))).toEqual([["alt"], ["alt"], []]);
    expect(found.roomy.map((list) => list.map((m) => m.target))).toEqual([["alt"], ["alt"]]);
  });
});

describe("searchMemory", () => {
  it("lists by filter, finds words in the source (index) or the translation, pages with a total", async () => {
    const out = await withMemory(
      [
        ["Free shipping on all orders", "Kostenloser Versand"],
        ["Contact us", "Kontakt"],
      ],
      (o) => ({
        all: searchMemory(o.store, { query: "", limit: 10, offset: 0 }),
        source: searchMemory(o.store, { query: "SHIPPING", limit: 10, offset: 0 }),
        target: searchMemory(o.store, { query: "Kontakt", limit: 10, offset: 0 }),
        short: searchMemory(o.store, { query: "us", targetLanguage: "DE", limit: 10, offset: 0 }),
        page: searchMemory(o.store, { query: "", origin: "approved", limit: 1, offset: 1 }),
        none: searchMemory(o.store, { query: "", targetLanguage: "fr", limit: 10, offset: 0 }),
      }),
    );
    expect(out.all.total).toBe(2);
    expect(out.source.entries.map((e) => e.text)).toEqual(["Kostenloser Versand"]);
    expect(out.target.entries.map((e) => e.source_text)).toEqual(["Contact us"]);
    expect(out.short.entries.map((e) => e.text)).toEqual(["Kontakt"]);
    expect(out.page).toMatchObject({ total: 2 });
    expect(out.page.entries).toHaveLength(1);
    expect(out.none).toEqual({ entries: [], total: 0 });
  });
});

describe("in a job", () => {
  it("a text with only a fuzzy match goes to the engine with the match as an example, is billed in full and delivers the engine's text", async () => {
    const site = await createSite({ target_languages: [{ code: "de" }] });
    const c = client(site.key);
    const old = "Free shipping on all orders over 50 euros";
    const now = "Free shipping on all orders over 80 euros";
    expect((await c.put("/v1/units", unit("page:1", [{ key: "a", text: old, translations: { de: "Kostenloser Versand ab 50 Euro" } }]))).status).toBe(200);
    expect((await c.put("/v1/units", unit("page:2", [{ key: "a", text: now }]))).status).toBe(200);
    const jobId = (await c.post("/v1/jobs", { confirm: true })).body.id as number;
    const engine = fakeEngine({ translation: (text) => `[de] ${text}` });
    await runInDurableObject(stubOf(site.siteId), async (o: SiteObject) => {
      await runJobs(runnerDeps(o, { engineFor: () => engine }), { budgetMs: 60_000 });
    });
    expect(engine.requests).toHaveLength(1);
    expect(engine.requests[0].segments).toEqual([
      expect.objectContaining({
        text: now,
        context: expect.objectContaining({ examples: [{ source: old, target: "Kostenloser Versand ab 50 Euro", similarity: Math.round(similarity(old, now) * 1000) / 1000 }] }),
      }),
    ]);
    const job = (await c.get(`/v1/jobs/${jobId}`)).body;
    expect(job).toMatchObject({ status: "succeeded", characters: [...now].length });
    const results = await allResults(c);
    expect(results.map((r: any) => [r.unit, r.text, r.origin])).toContainEqual(["page:2", `[de] ${now}`, "mt"]);
  });
});
