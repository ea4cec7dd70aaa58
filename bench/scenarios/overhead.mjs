/** 0. What the harness itself costs: an empty RPC and HTTP round trips (context for the tables below). */
import { call, createSite } from "../client.mjs";
import { Report, sample } from "../measure.mjs";

export async function overheadScenario(rt, { runs }) {
  const floor = rt.floor("overhead");
  const site = await createSite(rt.mf, { languages: ["de", "fr", "es"] });
  const report = new Report("0. Harness overheads (no goal: context for the figures below)");
  report.timing("RPC round trip Node → FloorObject.ping()", await sample(() => floor.ping(), { runs, warmup: 3 }));
  report.timing("GET /v1/health (HTTP, no key, no object)", await sample(() => call(rt.mf, "GET", "/v1/health"), { runs, warmup: 3 }));
  report.timing("GET /v1/site (HTTP, key lookup in D1, one object RPC)", await sample(() => call(rt.mf, "GET", "/v1/site", { key: site.key }), { runs, warmup: 3 }));
  return [report];
}
