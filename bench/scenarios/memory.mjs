/**
 * i. Memory and context (issue 25).
 *
 * Part 1 (fuzzy matches): the fuzzy look-up of one slice (250 texts) against a memory of
 * 100,000 entries (en → de) of site-like text (bench/data.mjs memoryText: a Zipf vocabulary of
 * 20,000 words), through the bench object's `fuzzySlice` RPC, which runs the real
 * `fuzzyMatches` (src/site/memory/fuzzy.ts) over the real trigram index. Of the 250 texts, two in three
 * are a memory entry with one word changed (they should find it), one in three are new texts
 * of the same vocabulary (they should find nothing). Goal: ≤ 50 ms per slice (moonshot ≤ 20 ms).
 * The time includes one RPC round trip from Node (the "RPC floor" line: the same call with no
 * texts).
 *
 * Part 2 (context on/off job) comes with the context for engines: add it as another function
 * below and return its report from `memoryScenario` too.
 */
import { createSite } from "../client.mjs";
import { memoryText, segmentText } from "../data.mjs";
import { interleaved, Report, time } from "../measure.mjs";

const MEMORY_ENTRIES = Number(process.env.BENCH_I_ENTRIES ?? 100_000);
const SLICE = 250;
const GOAL_MS = 50;
const MOONSHOT_MS = 20;
/** Pages per merge step (src/site/memory/entries.ts MERGE_PAGES), for the report. */
const MERGE_PAGES = 200;

/**
 * The slice's texts: entry k with its third word replaced (two in three), or a new text (one in
 * three). `common`: the texts of the other scenarios (150 common words: every trigram occurs in
 * most texts, the index's worst case) instead of site-like text (memoryText).
 */
function sliceTexts(common) {
  const text = (u, salt) => (common ? segmentText(u, 0, salt) : memoryText(u, salt));
  const texts = [];
  for (let i = 0; i < SLICE; i++) {
    if (i % 3 === 2) texts.push(text(i, 9));
    else {
      const words = text((i * 397) % MEMORY_ENTRIES, 0).split(" ");
      words[3] = words[3] === "water" ? "fire" : "water";
      texts.push(words.join(" "));
    }
  }
  return texts;
}

const percentile = (samples, p) => {
  const s = [...samples].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
};

async function fuzzyPart(rt, { runs, common }) {
  const site = await createSite(rt.mf, { languages: ["de"] });
  const stub = rt.site(site.id);
  const seeded = await time(() => stub.seedMemory(MEMORY_ENTRIES, common));
  // As production after a bulk write: the index merged in steps by the alarm need memory_merge (src/site/memory/entries.ts).
  const merged = await time(() => stub.mergeMemory());
  const texts = sliceTexts(common);
  const expected = texts.filter((_, i) => i % 3 !== 2).length;
  let lastFound = 0;
  const s = await interleaved(
    {
      slice: {
        run: () => stub.fuzzySlice(texts),
        check: (found) => {
          lastFound = found;
          // The candidate search is approximate (rare trigrams, src/site/memory/fuzzy.ts): recall is printed; under 90% is a failure.
          if (found < expected * 0.9) throw new Error(`fuzzy slice: ${found} texts with a match, expected about ${expected}`);
        },
      },
      floor: { run: () => stub.fuzzySlice([]) },
    },
    { runs: runs * 4, warmup: 2 },
  );
  const report = new Report(
    `i. Fuzzy look-up of one slice (${SLICE} texts) against a memory of ${MEMORY_ENTRIES.toLocaleString("en")} entries${common ? " (worst case: 150 common words)" : ""}`,
    `memory seeded (INSERTs, index kept by the triggers) in ${(seeded.ms / 1000).toFixed(1)} s; ${seeded.value.toLocaleString("en")} rows indexed\n` +
      `index merged as production does (memory_merge, ${merged.value} steps of ≤ ${MERGE_PAGES} pages) in ${(merged.ms / 1000).toFixed(1)} s\n` +
      `texts: ${expected} with one word changed from an entry (each found), ${SLICE - expected} new; p50/p99 over ${s.slice.length} runs`,
  );
  const p50 = report.timing("fuzzyMatches, one slice (RPC from Node)", s.slice);
  report.timing("RPC floor (no texts)", s.floor);
  report.figure("recall", `${lastFound} texts of ${SLICE} with a match; ${expected} have one word changed from an entry (each must find it)`);
  const p99 = percentile(s.slice, 99);
  report.figure("p50 / p99 per slice", `${p50.toFixed(1)} ms / ${p99.toFixed(1)} ms (goal ${GOAL_MS} ms, moonshot ${MOONSHOT_MS} ms)`);
  report.ratio(`p50 / goal ${GOAL_MS} ms`, p50, GOAL_MS, common ? undefined : 1);
  report.ratio(`p99 / goal ${GOAL_MS} ms`, p99, GOAL_MS, undefined);
  report.ratio(`p50 / moonshot ${MOONSHOT_MS} ms`, p50, MOONSHOT_MS, undefined);
  return report;
}

/** BENCH_I_COMMON=1 adds the worst case (slow: seconds per slice; its ratio is printed for information). */
export async function memoryScenario(rt, { runs }) {
  const reports = [await fuzzyPart(rt, { runs, common: false })];
  if (process.env.BENCH_I_COMMON === "1") reports.push(await fuzzyPart(rt, { runs: 1, common: true }));
  return reports;
}
