/**
 * Independent validity rules for request bodies, written from docs/interface.md (and the OpenAPI
 * document for the admin API), not from src. Three answers: true (the interface says it is valid, so
 * it must be accepted), false (it must be refused), "either" (the interface leaves it open,
 * for example a bound it does not state).
 */
export type Validity = boolean | "either";

const LANGUAGE = /^[A-Za-z0-9_-]+$/;
const UNIT_KEY = /^[A-Za-z0-9_.:-]+$/;

export const isString = (v: unknown): v is string => typeof v === "string";
export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
export const isLanguageCode = (v: unknown) => isString(v) && v.length >= 2 && v.length <= 15 && LANGUAGE.test(v);
export const isUnitKey = (v: unknown) => isString(v) && v.length >= 1 && v.length <= 255 && UNIT_KEY.test(v);
const isInt = (v: unknown): v is number => typeof v === "number" && Number.isInteger(v);

/** Combines: any false → false; else any "either" → "either"; else true. */
export function all(...vs: Validity[]): Validity {
  if (vs.includes(false)) return false;
  if (vs.includes("either")) return "either";
  return true;
}

/** Characters are Unicode code points (docs/decisions.md "Pushes"), and U+0000 is refused in any text. */
const codePoints = (v: string) => [...v].length;
const hasNul = (v: string) => v.includes("\u0000");
/** A string of at most `max` characters (min `min`); longer than the stated bound is invalid. */
export const str = (v: unknown, max: number, min = 0): Validity => isString(v) && !hasNul(v) && codePoints(v) >= min && codePoints(v) <= max;
/** A bound the interface does not state: within `soft` it is valid, beyond it either. */
const softStr = (v: unknown, soft: number): Validity => (!isString(v) || hasNul(v) ? false : codePoints(v) <= soft ? true : "either");
const optional = (v: unknown, rule: (v: unknown) => Validity): Validity => (v === undefined ? true : rule(v));
const nullable = (v: unknown, rule: (v: unknown) => Validity): Validity => (v === undefined || v === null ? true : rule(v));
const int = (v: unknown, min: number): Validity => (isInt(v) ? (Number.isSafeInteger(v) ? v >= min : "either") : false);
const arrayOf = (v: unknown, max: number | null, item: (v: unknown) => Validity, min = 0): Validity => {
  if (!Array.isArray(v)) return false;
  if (v.length < min) return false;
  const bound: Validity = !!(max === null || v.length <= max);
  return all(bound, ...v.map(item));
};

// ---------------------------------------------------------------- public API

export function segmentValidity(s: unknown): Validity {
  if (!isObject(s)) return false;
  return all(
    str(s.key, 500, 1),
    str(s.text, 100_000),
    optional(s.format, (v) => ["plain", "html", "markdown", "rich_text"].includes(v as string)),
    nullable(s.field, (v) => str(v, 200)),
    nullable(s.kind, (v) => str(v, 50)),
    nullable(s.max_length, (v) => int(v, 1)),
    nullable(s.position, (v) => int(v, 0)),
    nullable(s.parent_key, (v) => str(v, 500)),
    nullable(s.fingerprint, (v) => softStr(v, 64)),
    nullable(s.translations, (v) => (isObject(v) ? all(...Object.entries(v).map(([k, t]) => all(isLanguageCode(k), str(t, 100_000)))) : false)),
  );
}

export function unitValidity(u: unknown): Validity {
  if (!isObject(u)) return false;
  const segments = u.segments;
  let keys: Validity = true;
  if (Array.isArray(segments)) {
    const seen = segments.filter(isObject).map((s) => s.key);
    if (new Set(seen).size !== seen.length) keys = false; // unique within the unit
  }
  return all(
    isUnitKey(u.external_key),
    ["wordpress", "drupal", "wagtail", "strapi"].includes(u.adapter as string),
    nullable(u.label, (v) => str(v, 500)),
    nullable(u.path, (v) => str(v, 2000)),
    nullable(u.source_language, isLanguageCode),
    nullable(u.writable_languages, (v) => arrayOf(v, null, isLanguageCode)),
    // An object; null is not one (the interface does not make it nullable).
    u.metadata === undefined ? true : u.metadata === null ? "either" : isObject(u.metadata),
    arrayOf(segments, 5000, segmentValidity),
    keys,
  );
}

export function handshakeValidity(h: unknown): Validity {
  if (!isObject(h)) return false;
  return all(
    str(h.connector_version, 50),
    isLanguageCode(h.source_language),
    optional(h.adapters, (v) => arrayOf(v, 20, (a) => softStr(a, 100))),
    optional(h.languages, (v) => arrayOf(v, 200, isLanguageCode)),
    optional(h.capabilities, (v) => arrayOf(v, 20, (a) => softStr(a, 100))),
  );
}

/**
 * JobIn; `writable` are the site's writable languages (a job with none of them left is a 422),
 * `known` says which unit keys name a live unit (a translate job naming another is a 422).
 */
export function jobValidity(j: unknown, writable: string[], known: (key: string) => boolean = () => true): Validity {
  if (!isObject(j)) return false;
  const type = j.type === undefined ? "delta" : j.type;
  const bool = (v: unknown): Validity => optional(v, (b) => typeof b === "boolean");
  return all(
    type === "delta" || type === "translate",
    nullable(j.units, (v) => arrayOf(v, 1000, isUnitKey)),
    nullable(j.prefix, (v) => isString(v) && !hasNul(v) && codePoints(v) <= 255 && /^[a-z0-9_]+:\S*$/.test(v)),
    nullable(j.languages, (v) => {
      const shape = arrayOf(v, null, isLanguageCode);
      if (shape === false) return false;
      const left = (v as string[]).filter((l) => writable.includes(l.toLowerCase()));
      return left.length ? ((v as string[]).length > 200 ? "either" : true) : false;
    }),
    bool(j.force),
    bool(j.confirm),
    bool(j.estimate_only),
    // translate: the given units (at least one); prefix is for delta only.
    type === "translate" ? Array.isArray(j.units) && j.units.length > 0 : true,
    // Issue 40: every unit a translate job names must exist.
    type === "translate" && Array.isArray(j.units) ? j.units.every((k) => typeof k !== "string" || known(k)) : true,
    !(type === "translate" && j.prefix !== undefined && j.prefix !== null),
    // docs/decisions.md "Jobs": `units` narrows translate jobs only; on a delta job it is a 422, never a silent whole-site job.
    !(
      // docs/decisions.md "Jobs": `units` narrows translate jobs only; on a delta job it is a 422, never a silent whole-site job.
      type === "delta" && j.units !== undefined && j.units !== null
    ),
  );
}

/** Result ids are opaque strings; an unknown one does nothing (no stated length). */
const resultId = (v: unknown): Validity => (!isString(v) ? false : v.length >= 1 && v.length <= 64 ? true : "either");

export const ackValidity = (a: unknown): Validity => (isObject(a) ? arrayOf(a.ids, 1000, resultId) : false);

export function reviewsValidity(r: unknown): Validity {
  if (!isObject(r)) return false;
  return arrayOf(r.reviews, 500, (item) =>
    isObject(item)
      ? all(
          resultId(item.id),
          item.outcome === "approved" || item.outcome === "rejected",
          optional(item.text, (v) => str(v, 100_000)),
          optional(item.reviewer, (v) => softStr(v, 200)),
        )
      : false,
  );
}

// ---------------------------------------------------------------- admin API (its OpenAPI document)

export const organizationValidity = (o: unknown): Validity => (isObject(o) ? displayName(o.name) : false);

/** An organization's or a site's name (`displayName`): no control characters (C0, DEL, C1, U+2028, U+2029) besides the text rules. */
const displayName = (v: unknown): Validity => (isString(v) && /[\u0001-\u001f\u007f-\u009f\u2028\u2029]/u.test(v) ? false : softStrMin(v, 200));

function softStrMin(v: unknown, soft: number): Validity {
  if (!isString(v) || hasNul(v)) return false;
  if (v.length === 0) return "either";
  return v.length <= soft ? true : "either";
}

export function subscriptionValidity(s: unknown, knownSites: number[]): Validity {
  if (!isObject(s)) return false;
  return all(
    ["pro", "agency", "growth", "scale"].includes(s.plan as string),
    ["active", "paused", "canceled"].includes(s.status as string),
    arrayOf(s.site_ids, null, (id) => (isInt(id) ? !!knownSites.includes(id) : false)),
    nullable(s.included_characters, (v) => int(v, 0)),
  );
}

export function glossaryValidity(g: unknown): Validity {
  if (!isObject(g)) return false;
  return arrayOf(g.terms, null, (t) =>
    isObject(t)
      ? all(
          softStrMin(t.source, 500),
          isLanguageCode(t.language),
          softStrMin(t.target, 500),
          optional(t.case_sensitive, (v) => typeof v === "boolean"),
        )
      : false,
  );
}

const ENGINES = ["pseudo", "deepl", "google", "azure", "workers_ai", "openai"];
const targetLanguage = (t: unknown): Validity =>
  isObject(t)
    ? all(
        isLanguageCode(t.code),
        optional(t.formality, (v) => ["default", "formal", "informal"].includes(v as string)),
        ENGINES.includes(t.engine as string),
        optional(t.writable, (v) => typeof v === "boolean"),
      )
    : false;

export function siteFieldsValidity(s: Record<string, unknown>): Validity {
  const targets = s.target_languages;
  let unique: Validity = true;
  if (Array.isArray(targets)) {
    const codes = targets.filter(isObject).map((t) => String(t.code).toLowerCase());
    if (new Set(codes).size !== codes.length) unique = false;
  }
  return all(
    optional(s.name, displayName),
    optional(s.source_language, isLanguageCode),
    optional(targets, (v) => arrayOf(v, null, targetLanguage)),
    unique,
    optional(s.enabled_adapters, (v) => arrayOf(v, null, (a) => ["wordpress", "drupal", "wagtail", "strapi"].includes(a as string))),
    optional(s.enabled_engines, (v) => arrayOf(v, null, (e) => ENGINES.includes(e as string))),
    optional(s.qa_mode, (v) => v === "editors" || v === "separate"),
    optional(s.review_mode, (v) => v === "draft" || v === "suggestion"),
  );
}

export function siteCreateValidity(s: unknown, knownOrgs: number[]): Validity {
  if (!isObject(s)) return false;
  return all(
    isInt(s.organization_id) && knownOrgs.includes(s.organization_id),
    s.name !== undefined,
    s.source_language !== undefined,
    s.target_languages !== undefined,
    siteFieldsValidity(s),
  );
}

export const sitePatchValidity = (s: unknown): Validity => (isObject(s) ? siteFieldsValidity(s) : false);
export const keyCreateValidity = (k: unknown): Validity => (isObject(k) ? softStrMin(k.name, 200) : false);
