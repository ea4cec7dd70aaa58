/**
 * a. First push of a 100 × 50 batch against the floor (the same 5,000 rows inserted in one
 *    transaction by a FloorObject). b. The same batch pushed again, unchanged.
 *
 * Two figures per push and two floors, so the transport's share is visible:
 *   HTTP:         PUT /v1/units/batch through the Worker (the real path a connector takes)
 *   object side:  the real SiteObject.pushBatch on a batch already staged in the object
 *   insert floor: the rows already staged in a FloorObject, inserted (the floor as such)
 *   HTTP floor:   the same body to a bench route that parses it and has a FloorObject hash
 *                 and insert the rows (same transport, minimal work)
 * plus two breakdown figures (INSERT … RETURNING, hashing) that explain part of the gap.
 */
import { call, createSite } from "../client.mjs";
import { batchBody } from "../data.mjs";
import { Report, time } from "../measure.mjs";

const UNITS = 100;
const SEGMENTS = 50;
const LANGUAGES = ["de", "fr", "es"];

function checkBatch(expect) {
  return (value) => {
    const items = value.results ?? value;
    const wrong = items.filter((i) => !i.ok || Object.entries(expect).some(([k, v]) => i.result[k] !== v));
    if (wrong.length) throw new Error(`unexpected push result: ${JSON.stringify(wrong[0])}`);
  };
}

function checkSummary(expect) {
  return (value) => {
    const wrong = Object.entries(expect).filter(([k, v]) => value[k] !== v);
    if (wrong.length) throw new Error(`unexpected push summary: ${JSON.stringify(value)}`);
  };
}

export async function pushScenarios(rt, { runs }) {
  const spec = { prefix: "post:", units: UNITS, segmentsPerUnit: SEGMENTS };
  const body = JSON.stringify(batchBody(spec.prefix, spec.units, spec.segmentsPerUnit));
  const units = JSON.parse(body).units;
  const segments = UNITS * SEGMENTS;
  const chars = Math.round(units.flatMap((u) => u.segments).reduce((n, s) => n + s.text.length, 0) / segments);
  const put = (site) => call(rt.mf, "PUT", "/v1/units/batch", { key: site.key, body });

  // Round after round (one warm-up round), every operation once, so that load from elsewhere
  // on the machine falls on the measured paths and the floors alike. Everything but the
  // timed call (fresh sites, fresh floor objects, staging, stubs) is prepared untimed:
  // making a stub through Miniflare's proxy alone costs milliseconds.
  const t = { httpFirst: [], httpAgain: [], rpcFirst: [], rpcAgain: [], httpFloor: [], insertFloor: [], insertReturning: [], hash: [] };
  for (let i = -1; i < runs; i++) {
    const keep = async (name, run, check) => {
      const { ms, value } = await time(run);
      check(value);
      if (i >= 0) t[name].push(ms);
    };
    const httpSite = await createSite(rt.mf, { languages: LANGUAGES });
    const rpcSite = rt.site((await createSite(rt.mf, { languages: LANGUAGES })).id);
    await rpcSite.stageBatch(spec);
    const httpFloor = `push-floor-${i}-http`;
    await rt.floor(httpFloor).ping();
    const [insertFloor, returningFloor] = [rt.floor(`push-floor-${i}-insert`), rt.floor(`push-floor-${i}-returning`)];
    for (const floor of [insertFloor, returningFloor]) await floor.stageBatch(spec);
    const rows = (v) => {
      if ((v.rows ?? v) !== segments) throw new Error(`floor wrote ${JSON.stringify(v)} rows`);
    };

    await keep("httpFirst", () => put(httpSite), checkBatch({ added: SEGMENTS, unit_created: true }));
    await keep("httpFloor", () => call(rt.mf, "POST", `/__bench/floor/batch?object=${httpFloor}`, { body }), rows);
    await keep("rpcFirst", () => rpcSite.pushStaged(), checkSummary({ ok: UNITS, added: segments }));
    await keep("insertFloor", () => insertFloor.insertStaged(), rows);
    await keep("insertReturning", () => returningFloor.insertStaged(true), rows);
    await keep(
      "hash",
      () => insertFloor.hashStaged(),
      () => {},
    );
    await keep("httpAgain", () => put(httpSite), checkBatch({ unchanged: SEGMENTS, added: 0 }));
    await keep("rpcAgain", () => rpcSite.pushStaged(), checkSummary({ ok: UNITS, unchanged: segments }));
  }

  const title = `${UNITS} units × ${SEGMENTS} segments (${segments.toLocaleString("en")} segments, ${chars} characters on average, ${(body.length / 1024).toFixed(0)} KiB body), ${LANGUAGES.length} target languages`;
  const a = new Report(
    `a. First push: ${title}; a fresh site per run`,
    "insert floor = the same 5,000 rows, already in a FloorObject, inserted in one transactionSync (RPC from Node);\n" +
      "HTTP floor = the same body → bench route → one RPC → FloorObject hashes the texts and inserts the rows (same transport)",
  );
  const first = a.timing("PUT /v1/units/batch (HTTP, real)", t.httpFirst);
  const firstRpc = a.timing("SiteObject.pushBatch on a batch staged in the object (RPC)", t.rpcFirst);
  const fi = a.timing("insert floor: 5,000 INSERTs, one transactionSync", t.insertFloor);
  const fh = a.timing("HTTP floor: same body → FloorObject (hash + 5,000 INSERTs)", t.httpFloor);
  a.timing("breakdown: 5,000 INSERT … RETURNING id, read back (info)", t.insertReturning);
  a.timing("breakdown: fingerprint() of 5,000 texts in an object (info)", t.hash);
  a.ratio("PUT /v1/units/batch / insert floor", first, fi, 2);
  a.ratio("PUT /v1/units/batch / HTTP floor (same transport)", first, fh, 2);
  a.ratio("SiteObject.pushBatch / insert floor (object side)", firstRpc, fi, 2);

  const b = new Report(`b. Second push, unchanged: ${title}; the sites of a`, "floors: as in a (the first push's floors)");
  const again = b.timing("PUT /v1/units/batch again (HTTP, real)", t.httpAgain);
  const againRpc = b.timing("SiteObject.pushBatch again on the staged batch (RPC)", t.rpcAgain);
  b.timing("insert floor (from a)", t.insertFloor);
  b.timing("HTTP floor (from a)", t.httpFloor);
  b.ratio("PUT /v1/units/batch again / insert floor", again, fi, 0.6);
  b.ratio("PUT /v1/units/batch again / HTTP floor (same transport)", again, fh, 0.6);
  b.ratio("SiteObject.pushBatch again / insert floor (object side)", againRpc, fi, 0.6);
  b.ratio("second push / first push (HTTP)", again, first);
  return [a, b];
}
