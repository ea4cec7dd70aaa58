/**
 * e. A 500-result page of GET /v1/results with 10,000 and with 100,000 results pending
 *    (2,000 and 20,000 segments × 5 languages, each with a pending result and a translation
 *    in review, seeded in bulk). The first page is the goal; a page near the end and the
 *    whole_unit listing (after a handshake declaring it) are printed for information.
 */
import { call, createSite, cursor, handshake } from "../client.mjs";
import { interleaved, Report, time } from "../measure.mjs";

const LANGUAGES = ["de", "fr", "es", "it", "nl"];
const SEGMENTS_PER_UNIT = 50;
const PAGE = 500;

async function seededSite(rt, units) {
  const site = await createSite(rt.mf, { languages: LANGUAGES });
  const { ms, value } = await time(() => rt.site(site.id).seed({ prefix: "post:", units, segmentsPerUnit: SEGMENTS_PER_UNIT, translations: "results" }));
  return { ...site, seedMs: ms, pending: value.results, lastId: value.pendingIds.max };
}

const expectPage = (body) => {
  if (body.results.length !== PAGE || !body.next_cursor) throw new Error(`results page: ${body.results.length} results, next_cursor ${body.next_cursor}`);
};

export async function resultsScenario(rt, { runs }) {
  const small = await seededSite(rt, 40);
  const large = await seededSite(rt, 400);
  const get =
    (site, query = "") =>
    () =>
      call(rt.mf, "GET", `/v1/results?limit=${PAGE}${query}`, { key: site.key });
  // A page that starts 1,000 results before the end.
  const deep = (site) => `&cursor=${cursor(site.lastId - 1_000)}`;
  const plain = await interleaved(
    {
      small: { run: get(small), check: expectPage },
      large: { run: get(large), check: expectPage },
      "small deep": { run: get(small, deep(small)), check: expectPage },
      "large deep": { run: get(large, deep(large)), check: expectPage },
    },
    { runs, warmup: 3 },
  );
  for (const site of [small, large]) await handshake(rt.mf, site.key, LANGUAGES, ["whole_unit"]);
  const whole = await interleaved(
    {
      small: { run: get(small), check: expectPage },
      large: { run: get(large), check: expectPage },
    },
    { runs, warmup: 3 },
  );
  for (const site of [small, large]) await handshake(rt.mf, site.key, LANGUAGES, []);

  const report = new Report(
    `e. Delivery: GET /v1/results?limit=${PAGE} with ${small.pending.toLocaleString("en")} against ${large.pending.toLocaleString("en")} results pending (${LANGUAGES.length} languages)`,
    `seeded in bulk: ${(small.seedMs / 1000).toFixed(1)} s and ${(large.seedMs / 1000).toFixed(1)} s`,
  );
  const s = report.timing(`first page, ${small.pending.toLocaleString("en")} pending`, plain.small);
  const l = report.timing(`first page, ${large.pending.toLocaleString("en")} pending`, plain.large);
  const sd = report.timing(`page 1,000 results before the end, ${small.pending.toLocaleString("en")} pending`, plain["small deep"]);
  const ld = report.timing(`page 1,000 results before the end, ${large.pending.toLocaleString("en")} pending`, plain["large deep"]);
  const ws = report.timing(`whole_unit first page, ${small.pending.toLocaleString("en")} pending`, whole.small);
  const wl = report.timing(`whole_unit first page, ${large.pending.toLocaleString("en")} pending`, whole.large);
  report.ratio("first page: 100,000 / 10,000 pending", l, s, 1.5);
  report.ratio("page near the end: 100,000 / 10,000 pending", ld, sd);
  report.ratio("whole_unit first page: 100,000 / 10,000 pending", wl, ws);
  return [report];
}
