/**
 * An in-process fake of the API for the CLI's tests: the endpoints the CLI calls, answering the
 * openapi-fetch client's requests (behind a fetch spy) with bodies typed by the generated
 * schema, so a change of the contract's shapes fails to compile here. State is in memory: units
 * as pushed, and per segment and language a translation the test sets (`translate`), made from
 * the segment's text of that moment.
 *
 * Not all the service's rules (the Worker's own tests cover those): only what the CLI depends on
 * (docs/interface.md, docs/decisions.md "Results, reviews and the review queue") — a push that
 * changes a segment's text makes its translations stale (its state `stale`, its results no
 * longer listed, the status still showing the earlier translation, as the service does);
 * results listed until acknowledged, in pages of at most `pageSize` that follow `next_cursor`;
 * with `whole_unit` declared, a unit's results in a language listed only when none of its
 * segments there is missing or stale, a page ending before a group that does not fit and a group
 * larger than a page coming whole; a unit's status with its texts and results; reviews counted;
 * unknown units 404.
 */
import { vi } from "vitest";
import type { operations, Schemas } from "../../client/src/client.js";

type SiteAnswer = operations["getSite"]["responses"][200]["content"]["application/json"];
type HandshakeAnswer = operations["sendHandshake"]["responses"][200]["content"]["application/json"];

interface Translation {
  id: string;
  text: string;
  status: Schemas["SegmentResultOut"]["status"];
  acknowledged: boolean;
  /** The segment's source text it translates: another text now makes it stale. */
  source: string;
}

export interface FakeApi {
  units: Map<string, Schemas["UnitSnapshotIn"]>;
  /** By `unit\0segment\0language`. */
  translations: Map<string, Translation>;
  requests: { method: string; path: string; body: unknown; query: Record<string, string> }[];
  /** The capabilities of the last handshake. */
  capabilities: string[];
  /** A translation of a segment's current text (a new result, listed in GET /v1/results until acknowledged). */
  translate(unit: string, segment: string, language: string, text: string): string;
  /** Whether the translation of a segment in a language translates another text than the segment's now. */
  isStale(unit: string, segment: string, language: string): boolean;
  restore(): void;
}

const LANGUAGES = ["de", "fr"];
const tkey = (unit: string, segment: string, language: string) => `${unit}\u0000${segment}\u0000${language}`;
const json = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
const problem = (status: number, detail: string) => json({ detail } satisfies Schemas["ErrorOut"], status);

const sourceOf = (units: Map<string, Schemas["UnitSnapshotIn"]>, unit: string, segment: string) => units.get(unit)?.segments.find((s) => s.key === segment)?.text;

/** `pageSize`: the most results a page of GET /v1/results holds, whatever `limit` asks (the service's own bound is larger). */
export function fakeApi(origin = "https://fake.transync.test", options: { pageSize?: number } = {}): FakeApi {
  let seq = 0;
  const fake: FakeApi = {
    units: new Map(),
    translations: new Map(),
    requests: [],
    capabilities: [],
    translate(unit, segment, language, text) {
      const source = sourceOf(fake.units, unit, segment);
      if (source === undefined) throw new Error(`the fake API has no segment ${unit} ${segment}`);
      const id = `r_${++seq}`;
      fake.translations.set(tkey(unit, segment, language), { id, text, status: "machine_translated", acknowledged: false, source });
      return id;
    },
    isStale(unit, segment, language) {
      const t = fake.translations.get(tkey(unit, segment, language));
      return !!t && t.source !== sourceOf(fake.units, unit, segment);
    },
    restore: () => spy.mockRestore(),
  };
  /** The state of a segment in a language, as the service counts it (no QA here: never `attention`). */
  const stateOf = (unit: string, segment: string, lang: string): Schemas["SegmentStatusOut"]["states"][string] => {
    const t = fake.translations.get(tkey(unit, segment, lang));
    if (!t) return "missing";
    if (fake.isStale(unit, segment, lang)) return "stale";
    return t.status === "approved" ? "ok" : "review";
  };
  const site: SiteAnswer = {
    id: 1,
    name: "fake.example",
    organization: "Fake",
    source_language: "en",
    target_languages: LANGUAGES.map((code) => ({ code, formality: "default" as const, engine: "pseudo" as const, writable: true })),
    enabled_adapters: ["wordpress"],
    enabled_engines: ["pseudo"],
  };

  function status(key: string): Schemas["UnitStatusOut"] | null {
    const unit = fake.units.get(key);
    if (!unit) return null;
    const segments = unit.segments.map((s, position): Schemas["SegmentStatusOut"] => {
      const results: Record<string, Schemas["SegmentResultOut"]> = {};
      const states: Record<string, Schemas["SegmentStatusOut"]["states"][string]> = {};
      for (const lang of LANGUAGES) {
        // The current translation, stale or not (the service's result look-up shows it beside the state).
        const t = fake.translations.get(tkey(key, s.key, lang));
        if (t) results[lang] = { id: t.id, text: t.text, origin: "mt", status: t.status };
        states[lang] = stateOf(key, s.key, lang);
      }
      return { key: s.key, field: s.field ?? "", kind: s.kind ?? "", parent_key: s.parent_key ?? "", position, states, text: s.text, results };
    });
    const languages = LANGUAGES.map((code) => {
      const counts = { code, ok: 0, stale: 0, review: 0, missing: 0, attention: 0 };
      for (const s of segments) counts[s.states[code]]++;
      return counts;
    });
    return {
      external_key: key,
      label: unit.label ?? "",
      path: unit.path ?? "",
      adapter: unit.adapter,
      last_synced_at: null,
      segments_total: segments.length,
      segments_needing_work: segments.filter((s) => Object.values(s.states).some((state) => state !== "ok")).length,
      languages,
      segments,
      dashboard_url: "",
    };
  }

  async function answer(request: Request): Promise<Response> {
    const url = new URL(request.url);
    if (url.origin !== origin) throw new Error(`unexpected request to ${request.url}`);
    const body = request.method === "GET" ? undefined : await request.json().catch(() => undefined);
    const path = url.pathname;
    fake.requests.push({ method: request.method, path, body, query: Object.fromEntries(url.searchParams) });
    if (request.headers.get("authorization") !== "Bearer tsk_fake") return problem(401, "The API key is not valid.");
    const route = `${request.method} ${path}`;
    if (route === "GET /v1/site") return json(site);
    if (route === "POST /v1/handshake") {
      const hs = body as Schemas["HandshakeIn"];
      fake.capabilities = hs.capabilities ?? [];
      const answer: HandshakeAnswer = {
        ...site,
        review_mode: "draft",
        qa_mode: "editors",
        capabilities: hs.capabilities?.includes("whole_unit") ? ["whole_unit"] : [],
        warnings: [],
      };
      return json(answer);
    }
    if (route === "PUT /v1/units/batch") {
      const { units } = body as Schemas["BatchIn"];
      const results = units.map((u): Schemas["BatchItemOut"] => {
        const before = new Map((fake.units.get(u.external_key)?.segments ?? []).map((s) => [s.key, s.text]));
        const staleBefore = LANGUAGES.flatMap((lang) => [...before.keys()].filter((k) => fake.isStale(u.external_key, k, lang))).length;
        fake.units.set(u.external_key, u);
        const kept = u.segments.filter((s) => before.has(s.key));
        const changed = kept.filter((s) => before.get(s.key) !== s.text).length;
        const staleAfter = LANGUAGES.flatMap((lang) => u.segments.filter((s) => fake.isStale(u.external_key, s.key, lang))).length;
        return {
          external_key: u.external_key,
          ok: true,
          error: null,
          result: {
            external_key: u.external_key,
            unit_created: before.size === 0,
            added: u.segments.length - kept.length,
            changed,
            removed: [...before.keys()].filter((k) => !u.segments.some((s) => s.key === k)).length,
            unchanged: kept.length - changed,
            stale_translations: Math.max(0, staleAfter - staleBefore),
            imported_translations: 0,
            fingerprint_mismatches: [],
          },
        };
      });
      return json({ results } satisfies Schemas["BatchOut"]);
    }
    if (route === "POST /v1/units/texts") {
      const { keys } = body as Schemas["UnitTextsIn"];
      const known = keys.filter((k) => fake.units.has(k));
      const units = known.map((k) => ({ external_key: k, segments: fake.units.get(k)!.segments.map((g) => ({ key: g.key, text: g.text })) }));
      return json({ units, unknown: keys.filter((k) => !fake.units.has(k)), more: [] } satisfies Schemas["UnitTextsOut"]);
    }
    if (route === "GET /v1/results") return json(resultsPage(Number(url.searchParams.get("limit") ?? 100), url.searchParams.get("cursor")));
    if (route === "POST /v1/results/ack") {
      const { ids } = body as Schemas["AckIn"];
      let acknowledged = 0;
      for (const t of fake.translations.values())
        if (ids.includes(t.id) && !t.acknowledged) {
          t.acknowledged = true;
          t.status = "pending_review";
          acknowledged++;
        }
      return json({ acknowledged } satisfies Schemas["AckOut"]);
    }
    if (route === "POST /v1/reviews") {
      const { reviews } = body as Schemas["ReviewsIn"];
      const ignored: string[] = [];
      for (const r of reviews) {
        const entry = [...fake.translations.entries()].find(([, t]) => t.id === r.id);
        if (!entry || entry[1].status === "approved") ignored.push(r.id);
        else if (r.outcome === "approved") Object.assign(entry[1], { status: "approved", text: r.text ?? entry[1].text });
        else fake.translations.delete(entry[0]);
      }
      return json({ updated: reviews.length - ignored.length, ignored } satisfies Schemas["ReviewsOut"]);
    }
    const unitStatus = /^\/v1\/units\/([^/]+)\/status$/.exec(path);
    if (request.method === "GET" && unitStatus) {
      const found = status(decodeURIComponent(unitStatus[1]));
      return found ? json(found) : problem(404, "There is no such unit.");
    }
    throw new Error(`the fake API has no ${route}`);
  }

  /**
   * Results ready to be written: unacknowledged, in review, for the segment's current text. In
   * groups of a unit and a language (one group a result without `whole_unit`); with `whole_unit`, a
   * group only when none of the unit's segments in that language is missing or stale. The cursor
   * is the number of groups already answered.
   */
  function resultsPage(limit: number, cursor: string | null): Schemas["ResultsOut"] {
    const whole = fake.capabilities.includes("whole_unit");
    const groups = new Map<string, Schemas["ResultOut"][]>();
    for (const [k, t] of fake.translations) {
      const [unit, key, language] = k.split("\u0000");
      if (t.acknowledged || t.status !== "machine_translated" || fake.isStale(unit, key, language)) continue;
      const group = whole ? `${unit}\u0000${language}` : t.id;
      groups.set(group, [
        ...(groups.get(group) ?? []),
        { id: t.id, unit, key, language, text: t.text, format: "text", source_fingerprint: "", origin: "mt", engine: "pseudo", job_id: null, qa: [] },
      ]);
    }
    const listed = [...groups.entries()].filter(([group]) => {
      if (!whole) return true;
      const [unit, language] = group.split("\u0000");
      return fake.units.get(unit)!.segments.every((s) => !["missing", "stale"].includes(stateOf(unit, s.key, language)));
    });
    const size = Math.min(limit, options.pageSize ?? Number.POSITIVE_INFINITY);
    const start = Number(cursor ?? 0);
    const results: Schemas["ResultOut"][] = [];
    let next = start;
    // A page ends before a group that does not fit; a group larger than a page comes whole.
    while (next < listed.length && (results.length === 0 || results.length + listed[next][1].length <= size)) results.push(...listed[next++][1]);
    return { results, next_cursor: next < listed.length ? String(next) : null };
  }

  const spy = vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => answer(new Request(input as RequestInfo, init)));
  return fake;
}
