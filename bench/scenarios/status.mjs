/**
 * c. Status reads on a large site against a small one: GET /v1/status and a 100-unit page of
 *    GET /v1/units (also with `state`), 50,000 segments × 5 languages against 5,000 × 5. Both sites are seeded in
 *    bulk (bench RPC) with every unit needing work: per segment and language ok, review,
 *    stale or missing in turn.
 */
import { call, createSite, cursor } from "../client.mjs";
import { unitKey } from "../data.mjs";
import { interleaved, Report, time } from "../measure.mjs";

const LANGUAGES = ["de", "fr", "es", "it", "nl"];
const SEGMENTS_PER_UNIT = 50;

async function seededSite(rt, units) {
  const site = await createSite(rt.mf, { languages: LANGUAGES });
  const { ms, value } = await time(() => rt.site(site.id).seed({ prefix: "post:", units, segmentsPerUnit: SEGMENTS_PER_UNIT, translations: "mixed" }));
  return { ...site, units, seedMs: ms, sizes: value };
}

const expectUnits = (n, more) => (body) => {
  if (body.units.length !== n || (body.next_cursor !== null) !== more) throw new Error(`units page: ${body.units.length} units, next_cursor ${body.next_cursor}`);
};
const expectSegments = (n) => (body) => {
  if (body.segments_total !== n) throw new Error(`status: ${body.segments_total} segments, expected ${n}`);
};

export async function statusScenario(rt, { runs }) {
  const small = await seededSite(rt, 100);
  const large = await seededSite(rt, 1_000);
  const get = (site, path) => () => call(rt.mf, "GET", path, { key: site.key });
  const deep = cursor(unitKey("post:", 899));
  const ops = {};
  for (const [name, site] of [
    ["small", small],
    ["large", large],
  ]) {
    const segments = site.units * SEGMENTS_PER_UNIT;
    ops[`status ${name}`] = { run: get(site, "/v1/status"), check: expectSegments(segments) };
    ops[`units ${name}`] = { run: get(site, "/v1/units?limit=100"), check: expectUnits(100, site === large) };
    ops[`units language ${name}`] = { run: get(site, "/v1/units?limit=100&language=fr"), check: expectUnits(100, site === large) };
    ops[`status prefix ${name}`] = { run: get(site, "/v1/status?prefix=post:"), check: expectSegments(segments) };
    // `state`: dense (every unit has missing work: the page fills as fast as without it) and
    // empty (no unit has attention work: the walk reads every unit with work to find none).
    ops[`units missing ${name}`] = { run: get(site, "/v1/units?limit=100&state=missing"), check: expectUnits(100, site === large) };
    ops[`units attention ${name}`] = { run: get(site, "/v1/units?limit=100&state=attention"), check: expectUnits(0, false) };
  }
  ops["units deep large"] = { run: get(large, `/v1/units?limit=100&cursor=${deep}`), check: expectUnits(100, false) };
  const s = await interleaved(ops, { runs, warmup: 3 });

  const size = (site) => `${(site.units * SEGMENTS_PER_UNIT).toLocaleString("en")} segments × ${LANGUAGES.length}`;
  const report = new Report(
    `c. Status reads: large site (${size(large)}, ${large.units} units) against small (${size(small)}, ${small.units} units)`,
    `seeded in bulk: small ${(small.seedMs / 1000).toFixed(1)} s (${small.sizes.translations.toLocaleString("en")} translations), large ${(large.seedMs / 1000).toFixed(1)} s (${large.sizes.translations.toLocaleString("en")} translations); every unit needs work`,
  );
  const statusSmall = report.timing("GET /v1/status, small", s["status small"]);
  const statusLarge = report.timing("GET /v1/status, large", s["status large"]);
  const unitsSmall = report.timing("GET /v1/units?limit=100, small (first page)", s["units small"]);
  const unitsLarge = report.timing("GET /v1/units?limit=100, large (first page)", s["units large"]);
  const deepLarge = report.timing("GET /v1/units?limit=100&cursor=…, large (units 900–999)", s["units deep large"]);
  const langSmall = report.timing("GET /v1/units?limit=100&language=fr, small", s["units language small"]);
  const langLarge = report.timing("GET /v1/units?limit=100&language=fr, large", s["units language large"]);
  const prefixSmall = report.timing("GET /v1/status?prefix=post: (whole site), small", s["status prefix small"]);
  const prefixLarge = report.timing("GET /v1/status?prefix=post: (whole site), large", s["status prefix large"]);
  const missingSmall = report.timing("GET /v1/units?limit=100&state=missing, small", s["units missing small"]);
  const missingLarge = report.timing("GET /v1/units?limit=100&state=missing, large", s["units missing large"]);
  const attentionSmall = report.timing("GET /v1/units?limit=100&state=attention (none), small", s["units attention small"]);
  const attentionLarge = report.timing("GET /v1/units?limit=100&state=attention (none), large", s["units attention large"]);
  report.ratio("GET /v1/status: large / small", statusLarge, statusSmall, 2);
  report.ratio("GET /v1/units page: large / small", unitsLarge, unitsSmall, 2);
  report.ratio("GET /v1/units deep page, large / small first page", deepLarge, unitsSmall);
  report.ratio("GET /v1/units?language=fr: large / small", langLarge, langSmall);
  report.ratio("GET /v1/status?prefix=post: (key-type sums): large / small", prefixLarge, prefixSmall, 1.2);
  report.ratio("GET /v1/units?state=missing page: large / small", missingLarge, missingSmall, 2);
  report.ratio("GET /v1/units?state=missing / without state, large", missingLarge, unitsLarge);
  // No goal: a state no unit has walks every unit with work (docs/decisions.md, "The OpenAPI document, the client and the connector kit").
  report.ratio("GET /v1/units?state=attention (none): large / small", attentionLarge, attentionSmall);
  return [report];
}
