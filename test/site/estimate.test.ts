// The estimate of a job's scope (spec: estimated_segments, estimated_characters "billable,
// excludes translation-memory hits and repeated texts within the job", estimated_tm_segments)
// is counted segment by segment, with repeats taken back in a second pass (src/site/jobs/jobs.ts).
// These tests hold it to the pairs the job fixes (scopeQuery, what fixScopeChunk inserts),
// counted pair by pair as the estimate once was: on hand-made sites with known figures, and on
// generated sites with repeats across units and languages, every translation state, memory
// hits by source language, writable_languages, removed segments and deleted units.
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { SiteSettings } from "../../src/control/sites.control";
import { estimateScope, type JobScope, scopeQuery } from "../../src/site/jobs/scope";
import type { SiteObject } from "../../src/site/object";
import type { Store } from "../../src/site/store";
import { createSite } from "../helpers/api";
import { stubOf } from "../helpers/site";

const LANGUAGES = ["de", "fr", "es"];

interface SiteRows {
  /** external_key, source_language, writable_languages (JSON), deleted */
  units: [string, string | null, string | null, number][];
  /** unit index, text, removed */
  segments: [number, string, number][];
  /** segment index, language, status, current (false: its source fingerprint is an older text's) */
  translations: [number, string, string, boolean][];
  /** text, source language, target language */
  memory: [string, string, string][];
}

/**
 * Fingerprints here need only be equal for equal texts, except that trailing `!` are ignored:
 * texts of different lengths under one fingerprint (as `\r\n` and `\n` are in production).
 */
const fp = (text: string) => `fp:${text.replace(/!+$/, "")}`;

/**
 * The change sequence's stamps of the generated rows (src/site/change-seq.ts), from their index so
 * the generator's draws stay as they were: a job's watermark of 2 leaves out some of each kind.
 */
const unitSeq = (u: number) => u % 4;
const segmentSeq = (s: number) => s % 5;
const translationSeq = (t: number) => t % 4;

function seed(store: Store, rows: SiteRows) {
  const now = new Date().toISOString();
  const unitIds = rows.units.map(
    ([key, source, writable, deleted], u) =>
      store.one<{ id: number }>(
        "INSERT INTO units (external_key, adapter, source_language, writable_languages, deleted, seq) VALUES (?, 'wordpress', ?, ?, ?, ?) RETURNING id",
        key,
        source,
        writable,
        deleted,
        unitSeq(u),
      )!.id,
  );
  const segmentIds = rows.segments.map(
    ([unit, text, removed], i) =>
      store.one<{ id: number }>(
        "INSERT INTO segments (unit_id, key, text, fingerprint, characters, format, position, removed, seq) VALUES (?, ?, ?, ?, ?, 'plain', ?, ?, ?) RETURNING id",
        unitIds[unit],
        `k${i}`,
        text,
        fp(text),
        [...text].length,
        i,
        removed,
        segmentSeq(i),
      )!.id,
  );
  for (const [t, [segment, language, status, current]] of rows.translations.entries())
    store.run(
      "INSERT INTO translations (segment_id, language, text, source_fingerprint, status, updated_at, seq) VALUES (?, ?, 'x', ?, ?, ?, ?)",
      segmentIds[segment],
      language,
      current ? fp(rows.segments[segment]![1]) : "fp:older text",
      status,
      now,
      translationSeq(t),
    );
  for (const [text, source, target] of rows.memory)
    store.run(
      "INSERT OR IGNORE INTO memory (source_fingerprint, source_language, target_language, text, origin, updated_at) VALUES (?, ?, ?, 'x', 'human', ?)",
      fp(text),
      source,
      target,
      now,
    );
}

/** The estimate counted pair by pair over scopeQuery's pairs (the pairs a job fixes), with the repeat rule applied by grouping. */
function oracle(store: Store, settings: SiteSettings, scope: JobScope, languages: string[]) {
  // ?2 is the site's source language: a repeat is the same text in the same source language.
  const q = scopeQuery(
    settings,
    scope,
    languages,
    "lower(coalesce(u.source_language, ?2)) AS src, s.fingerprint AS fp, l.value AS lang, s.characters AS len, m.text IS NOT NULL AS tm",
  );
  const row = store.one<{ n: number; tm: number; chars: number }>(
    `WITH scope AS MATERIALIZED (${q.sql})
     SELECT (SELECT count(*) FROM scope) AS n, (SELECT count(*) FROM scope WHERE tm) AS tm,
       (SELECT coalesce(sum(len), 0) FROM (SELECT max(len) AS len FROM scope WHERE NOT tm GROUP BY src, fp, lang)) AS chars`,
    ...q.args,
  )!;
  return { languages, estimated_segments: row.n, estimated_characters: row.chars, estimated_tm_segments: row.tm };
}

async function withSite<T>(rows: SiteRows, fn: (store: Store, settings: SiteSettings) => T): Promise<T> {
  const site = await createSite({ target_languages: LANGUAGES.map((code) => ({ code })) });
  return runInDurableObject(stubOf(site.siteId), (o: SiteObject) => {
    seed(o.store, rows);
    return fn(o.store, o.store.getMeta<SiteSettings>("settings")!);
  });
}

const delta = (extra: Partial<JobScope> = {}): JobScope => ({ type: "delta", units: null, prefix: null, force: false, ...extra });
const translate = (units: string[], force = false): JobScope => ({ type: "translate", units, prefix: null, force });

describe("estimateScope", () => {
  // post:1 (site source, every language): Hello twice (a repeat in the unit), World! done in de,
  // stale in fr, in review in es, and a removed segment. post:2 writable in DE only (any case):
  // Hello again (a repeat across units) and Extra. page:1: Memo, in the memory (en → de, fr).
  // page:2, source FR: Memo again, whose memory entry (fr → es) only it can use. post:3 deleted.
  const site: SiteRows = {
    units: [
      ["post:1", null, null, 0],
      ["post:2", null, JSON.stringify(["DE"]), 0],
      ["page:1", null, null, 0],
      ["page:2", "FR", null, 0],
      ["post:3", null, null, 1],
    ],
    segments: [
      [0, "Hello", 0],
      [0, "Hello", 0],
      [0, "World!", 0],
      [0, "Gone", 1],
      [1, "Hello", 0],
      [1, "Extra", 0],
      [2, "Memo", 0],
      [3, "Memo", 0],
      [4, "Deleted text", 0],
    ],
    translations: [
      [2, "de", "ok", true],
      [2, "fr", "ok", false],
      [2, "es", "review", true],
      [3, "de", "missing", true],
    ],
    memory: [
      ["Memo", "en", "de"],
      ["Memo", "en", "fr"],
      ["Memo", "fr", "es"],
      ["Extra", "en", "fr"],
    ],
  };

  it("counts pairs, memory hits and billable characters by the scope's rules, each repeat billed once per language", async () => {
    const figures = await withSite(site, (store, settings) => {
      const estimate = (scope: JobScope, languages = LANGUAGES) => {
        const { estimated_segments, estimated_characters, estimated_tm_segments } = estimateScope(store, settings, scope, languages);
        const expected = oracle(store, settings, scope, languages);
        expect(estimated_segments).toBe(expected.estimated_segments);
        expect(estimated_characters).toBe(expected.estimated_characters);
        expect(estimated_tm_segments).toBe(expected.estimated_tm_segments);
        return [estimated_segments, estimated_characters, estimated_tm_segments];
      };
      return {
        // Pairs: Hello 3 + 3, World! fr (stale), post:2 de × 2, Memo 3 (de, fr from the memory), page:2 Memo 3 (es from the memory).
        // Characters: Hello 5 × 3 languages once, World! fr 6, Extra de 5, Memo es 4 (page:1), Memo de and fr 4 + 4 (page:2).
        all: estimate(delta()),
        // Every live pair, no memory: Hello, World! 3 languages each once, Memo 3 languages once per source language (en, FR), Extra de.
        forced: estimate(delta({ force: true })),
        posts: estimate(delta({ prefix: "post:" })),
        pages: estimate(translate(["page:1", "page:2", "post:9"])),
        page1: estimate(translate(["page:1"])),
        french: estimate(delta(), ["fr"]),
        frenchForced: estimate(translate(["post:1", "post:2", "page:1"], true), ["fr"]),
        deleted: estimate(translate(["post:3"])),
      };
    });
    expect(figures).toEqual({
      all: [15, 5 * 3 + 6 + 5 + 4 + 4 + 4, 3],
      forced: [17, (5 + 6 + 4 + 4) * 3 + 5, 0],
      posts: [9, 5 * 3 + 6 + 5, 0],
      pages: [6, 4 * 3, 3],
      page1: [3, 4, 2],
      french: [5, 5 + 6 + 4, 1],
      frenchForced: [4, 5 + 6 + 4, 0],
      deleted: [0, 0, 0],
    });
  });

  it("equals the pair-by-pair count on generated sites, for whole-site and narrow scopes alike", async () => {
    // A deterministic generator (mulberry32), so a failure reproduces.
    let state = 0x2545f491;
    const random = () => {
      state = (state + 0x6d2b79f5) >>> 0;
      let t = state;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
    const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)]!;
    // Few texts of varied lengths (code points beyond the BMP too): many repeats across units and languages.
    const texts = Array.from({ length: 40 }, (_, i) => `${"w".repeat(1 + (i % 7))} ${i} ${i % 5 === 0 ? "😀é" : ""}`);
    texts.push(...texts.slice(0, 10).map((text, i) => text + "!".repeat(1 + (i % 3))));
    const rows: SiteRows = { units: [], segments: [], translations: [], memory: [] };
    for (let u = 0; u < 80; u++) {
      const writable = pick([null, null, null, JSON.stringify(["FR", "es"]), JSON.stringify(["de"]), JSON.stringify([])]);
      rows.units.push([`${pick(["post", "page"])}:${String(u).padStart(3, "0")}`, pick([null, null, "en", "FR"]), writable, random() < 0.1 ? 1 : 0]);
      for (let s = 0; s < 1 + Math.floor(random() * 8); s++) {
        const segment = rows.segments.length;
        rows.segments.push([u, pick(texts), random() < 0.1 ? 1 : 0]);
        for (const language of LANGUAGES) {
          if (random() < 0.5) continue;
          rows.translations.push([segment, language, pick(["ok", "review", "attention", "missing"]), random() < 0.7]);
        }
      }
    }
    for (const text of texts) for (const source of ["en", "fr"]) for (const target of LANGUAGES) if (random() < 0.3) rows.memory.push([text, source, target]);

    const scopes: [JobScope, string[]][] = [];
    for (const force of [false, true]) {
      scopes.push([delta({ force }), LANGUAGES], [delta({ force }), ["es", "de"]], [delta({ force }), ["fr"]]);
      for (const prefix of ["post:", "page:", "post:00", "page:07", "post:999"]) scopes.push([delta({ force, prefix }), LANGUAGES]);
      scopes.push([
        translate(
          rows.units.filter((_, i) => i % 3 === 0).map(([key]) => key),
          force,
        ),
        LANGUAGES,
      ]);
      scopes.push([translate([rows.units[5]![0], rows.units[6]![0], "none:1"], force), ["de", "fr"]]);
      // A created job's scope: the work that existed at its watermark (rows stamped later are left out).
      scopes.push([delta({ force, watermark: 2 }), LANGUAGES], [delta({ force, prefix: "post:", watermark: 2 }), ["es", "de"]]);
    }
    const compared = await withSite(rows, (store, settings) =>
      scopes.map(([scope, languages]) => ({ scope, languages, estimate: estimateScope(store, settings, scope, languages), expected: oracle(store, settings, scope, languages) })),
    );
    for (const { scope, languages, estimate, expected } of compared) {
      const { watermark, ...figures } = estimate;
      expect(figures, JSON.stringify({ scope, languages })).toEqual(expected);
      // A request's estimate takes a watermark; a created job's keeps its own.
      if (scope.watermark === undefined) expect(watermark).toEqual(expect.any(Number));
      else expect(watermark).toBe(scope.watermark);
    }
    // The watermark leaves work out: fewer pairs than the same scope without it.
    const at = (force: boolean, watermark?: number) =>
      compared.find((c) => c.scope.force === force && c.scope.type === "delta" && !c.scope.prefix && c.languages === LANGUAGES && c.scope.watermark === watermark)!.expected;
    for (const force of [false, true]) expect(at(force, 2).estimated_segments).toBeLessThan(at(force).estimated_segments);
    // The generated site exercises every part of the rule.
    const whole = compared[0]!.expected;
    expect(whole.estimated_tm_segments).toBeGreaterThan(0);
    expect(whole.estimated_characters).toBeGreaterThan(0);
    expect(compared.some((c) => c.expected.estimated_segments === 0)).toBe(true);
  });
});
