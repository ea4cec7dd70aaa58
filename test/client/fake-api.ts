/**
 * An in-process fake of the API for the CLI's tests: the endpoints the CLI calls, answering the
 * openapi-fetch client's requests (behind a fetch spy) with bodies typed by the generated
 * schema, so a change of the contract's shapes fails to compile here. State is in memory: units
 * as pushed, and per segment and language a translation the test sets (`translate`).
 *
 * Not the service's rules (the Worker's own tests cover those): only what the CLI depends on —
 * results listed until acknowledged, a unit's status with its texts and results, reviews
 * counted, unknown units 404.
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
}

export interface FakeApi {
  units: Map<string, Schemas["UnitSnapshotIn"]>;
  /** By `unit\0segment\0language`. */
  translations: Map<string, Translation>;
  requests: { method: string; path: string; body: unknown }[];
  /** A translation of a segment (a new result, listed in GET /v1/results until acknowledged). */
  translate(unit: string, segment: string, language: string, text: string): string;
  restore(): void;
}

const LANGUAGES = ["de", "fr"];
const tkey = (unit: string, segment: string, language: string) => `${unit}\u0000${segment}\u0000${language}`;
const json = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
const problem = (status: number, detail: string) => json({ detail } satisfies Schemas["ErrorOut"], status);

export function fakeApi(origin = "https://fake.transync.test"): FakeApi {
  let seq = 0;
  const fake: FakeApi = {
    units: new Map(),
    translations: new Map(),
    requests: [],
    translate(unit, segment, language, text) {
      const id = `r_${++seq}`;
      fake.translations.set(tkey(unit, segment, language), { id, text, status: "machine_translated", acknowledged: false });
      return id;
    },
    restore: () => spy.mockRestore(),
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
        const t = fake.translations.get(tkey(key, s.key, lang));
        if (t) results[lang] = { id: t.id, text: t.text, origin: "mt", status: t.status };
        states[lang] = !t ? "missing" : t.status === "approved" ? "ok" : "review";
      }
      return { key: s.key, field: s.field ?? "", kind: s.kind ?? "", parent_key: s.parent_key ?? "", position, states, text: s.text, results };
    });
    const languages = LANGUAGES.map((code) => ({ code, ok: 0, stale: 0, review: 0, missing: 0, attention: 0 }));
    return {
      external_key: key,
      label: unit.label ?? "",
      path: unit.path ?? "",
      adapter: unit.adapter,
      last_synced_at: null,
      segments_total: segments.length,
      segments_needing_work: 0,
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
    fake.requests.push({ method: request.method, path, body });
    if (request.headers.get("authorization") !== "Bearer tsk_fake") return problem(401, "The API key is not valid.");
    const route = `${request.method} ${path}`;
    if (route === "GET /v1/site") return json(site);
    if (route === "POST /v1/handshake") {
      const hs = body as Schemas["HandshakeIn"];
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
        const created = !fake.units.has(u.external_key);
        fake.units.set(u.external_key, u);
        return {
          external_key: u.external_key,
          ok: true,
          error: null,
          result: {
            external_key: u.external_key,
            unit_created: created,
            added: created ? u.segments.length : 0,
            changed: 0,
            removed: 0,
            unchanged: created ? 0 : u.segments.length,
            stale_translations: 0,
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
    if (route === "GET /v1/results") {
      const results: Schemas["ResultOut"][] = [];
      for (const [k, t] of fake.translations) {
        if (t.acknowledged || t.status === "approved") continue;
        const [unit, key, language] = k.split("\u0000");
        results.push({ id: t.id, unit, key, language, text: t.text, format: "text", source_fingerprint: "", origin: "mt", engine: "pseudo", job_id: null, qa: [] });
      }
      return json({ results, next_cursor: null } satisfies Schemas["ResultsOut"]);
    }
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

  const spy = vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => answer(new Request(input as RequestInfo, init)));
  return fake;
}
