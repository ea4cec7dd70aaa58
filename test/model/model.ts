/**
 * A small reference model of the interface's state machine (spec "States and transitions"),
 * written from the spec, not from src: units with segments (removed keys keep their text and
 * translations), one translation per segment × language, and the results the jobs produced.
 *
 * Scope of the model: a site whose every target language is writable, `qa_mode` `editors`
 * and a connector that declared `qa_errors` — so nothing is ever held back (no `attention`).
 */

export const LANGS = ["de", "fr"] as const;

/**
 * GET /v1/results lists a result only in a language the unit targets (its `writable_languages`
 * restrict its target languages): a translation into a language the unit does not take is not
 * "ready to be written".
 */
export const LIST_ONLY_UNIT_TARGETS = true;

/** Stale compares fingerprints, and the fingerprint normalizes (docs/interface.md): NFC, and \r\n as \n. */
export const norm = (text: string) => text.replace(/\r\n/g, "\n").normalize("NFC");
export type Lang = (typeof LANGS)[number];
export type State = "ok" | "stale" | "review" | "missing" | "attention";

export interface SegmentSpec {
  key: string;
  text: string;
  kind?: string;
  parent_key?: string;
  position?: number;
  translations?: Record<string, string>;
}

interface MSegment {
  text: string;
  removed: boolean;
  kind: string | null;
  parent_key: string | null;
  position: number;
}

interface MUnit {
  deleted: boolean;
  /** `writable_languages` of the last push (null: all target languages of the site). */
  writable: string[] | null;
  segments: Map<string, MSegment>;
  /** The last snapshot sent, so commands can derive the next one from it. */
  last: SegmentSpec[];
  /** Every text each key ever had, for reverts. */
  history: Map<string, string[]>;
}

interface MTranslation {
  status: "review" | "ok" | "missing";
  /** The source text the translation was made from (stale is computed against it). */
  source: string;
  resultId: string | null;
}

export interface MResult {
  id: string;
  unit: string;
  key: string;
  lang: Lang;
  source: string;
  superseded: boolean;
  acked: boolean;
}

export interface SyncCounts {
  external_key: string;
  unit_created: boolean;
  added: number;
  changed: number;
  removed: number;
  unchanged: number;
  stale_translations: number;
  imported_translations: number;
}

export interface Triple {
  unit: string;
  key: string;
  lang: Lang;
}

const tkey = (unit: string, key: string, lang: string) => `${unit}\u0000${key}\u0000${lang}`;

export class Model {
  readonly units = new Map<string, MUnit>();
  readonly translations = new Map<string, MTranslation>();
  readonly results = new Map<string, MResult>();

  isLive(unit: string): boolean {
    const u = this.units.get(unit);
    return !!u && !u.deleted;
  }

  lastSnapshot(unit: string): SegmentSpec[] {
    return this.units.get(unit)?.last ?? [];
  }

  lastWritable(unit: string): string[] | null {
    return this.units.get(unit)?.writable ?? null;
  }

  /** The unit's target languages: the site's, narrowed by its writable_languages. */
  targets(unit: string): Lang[] {
    const w = this.units.get(unit)?.writable;
    if (!w) return [...LANGS];
    const allowed = new Set(w.map((l) => l.toLowerCase()));
    return LANGS.filter((l) => allowed.has(l));
  }

  history(unit: string, key: string): string[] {
    return this.units.get(unit)?.history.get(key) ?? [];
  }

  storedText(unit: string, key: string): string | undefined {
    return this.units.get(unit)?.segments.get(key)?.text;
  }

  /** Live segments of a live unit, in no particular order. */
  liveSegments(unit: string): [string, MSegment][] {
    const u = this.units.get(unit);
    if (!u || u.deleted) return [];
    return [...u.segments].filter(([, s]) => !s.removed);
  }

  translation(unit: string, key: string, lang: string): MTranslation | undefined {
    return this.translations.get(tkey(unit, key, lang));
  }

  /** Precedence: missing, stale, attention, review, ok. */
  state(unit: string, key: string, lang: Lang): State {
    const seg = this.units.get(unit)!.segments.get(key)!;
    const t = this.translation(unit, key, lang);
    if (!t || t.status === "missing") return "missing";
    if (norm(t.source) !== norm(seg.text)) return "stale";
    return t.status;
  }

  // ------------------------------------------------------------------ push

  push(unit: string, segments: SegmentSpec[], writable: string[] | null = null): SyncCounts {
    let u = this.units.get(unit);
    const out: SyncCounts = {
      external_key: unit,
      unit_created: !u || u.deleted,
      added: 0,
      changed: 0,
      removed: 0,
      unchanged: 0,
      stale_translations: 0,
      imported_translations: 0,
    };
    if (!u) {
      u = { deleted: false, writable: null, segments: new Map(), last: [], history: new Map() };
      this.units.set(unit, u);
    }
    u.deleted = false;
    u.writable = writable && [...writable];
    u.last = segments.map((s) => ({ ...s, translations: s.translations && { ...s.translations } }));
    const seen = new Set<string>();
    segments.forEach((s, i) => {
      seen.add(s.key);
      const old = u!.segments.get(s.key);
      if (!old) out.added++;
      else if (old.removed) out.added++;
      else if (norm(old.text) !== norm(s.text)) out.changed++;
      else out.unchanged++;
      if (old && norm(old.text) !== norm(s.text)) {
        // Translations (in any language) that were current for the old text and are not for the new one.
        for (const lang of LANGS) {
          const t = this.translation(unit, s.key, lang);
          if (t && t.status !== "missing" && norm(t.source) === norm(old.text)) out.stale_translations++;
        }
      }
      u!.segments.set(s.key, {
        text: s.text,
        removed: false,
        kind: s.kind ?? null,
        parent_key: s.parent_key ?? null,
        position: s.position ?? i,
      });
      const h = u!.history.get(s.key) ?? [];
      if (!h.includes(s.text)) h.push(s.text);
      u!.history.set(s.key, h);
    });
    for (const [key, seg] of u.segments) {
      if (!seg.removed && !seen.has(key)) {
        seg.removed = true;
        out.removed++;
      }
    }
    // Imports fill only languages still empty (no translation, or missing).
    for (const s of segments) {
      for (const [language, text] of Object.entries(s.translations ?? {})) {
        const lang = LANGS.find((l) => l === language.toLowerCase());
        if (!lang || text.trim() === "") continue;
        const t = this.translation(unit, s.key, lang);
        if (t && t.status !== "missing") continue;
        this.translations.set(tkey(unit, s.key, lang), { status: "ok", source: s.text, resultId: null });
        out.imported_translations++;
      }
    }
    return out;
  }

  /** Triples whose translation is an import (ok, no result). */
  importedTriples(): Triple[] {
    const out: Triple[] = [];
    for (const [k, t] of this.translations) {
      if (t.status !== "ok" || t.resultId !== null) continue;
      const [unit, key, lang] = k.split("\u0000");
      out.push({ unit, key, lang: lang as Lang });
    }
    return out;
  }

  delete(unit: string) {
    const u = this.units.get(unit);
    if (u) u.deleted = true;
  }

  // ------------------------------------------------------------------ jobs

  /** Writable languages named by the request (null: all); empty means the job is refused. */
  jobLanguages(requested: string[] | undefined): Lang[] {
    if (!requested) return [...LANGS];
    const wanted = new Set(requested.map((l) => l.toLowerCase()));
    return LANGS.filter((l) => wanted.has(l));
  }

  /** What a job translates: missing and stale segments of live units in scope (everything with force). */
  jobScope(job: { type: "delta" | "translate"; prefix?: string; units?: string[]; force: boolean }, languages: Lang[]): Triple[] {
    const out: Triple[] = [];
    for (const [unit, u] of this.units) {
      if (u.deleted) continue;
      if (job.type === "translate" && !(job.units ?? []).includes(unit)) continue;
      if (job.type === "delta" && job.prefix && !unit.startsWith(job.prefix)) continue;
      for (const [key] of this.liveSegments(unit))
        for (const lang of languages.filter((l) => this.targets(unit).includes(l))) {
          const st = this.state(unit, key, lang);
          if (job.force || st === "missing" || st === "stale") out.push({ unit, key, lang });
        }
    }
    return out;
  }

  /** A job produced `id` for the triple: a new result in review; the earlier ones are superseded. */
  translated(t: Triple, id: string) {
    for (const r of this.results.values()) if (r.unit === t.unit && r.key === t.key && r.lang === t.lang) r.superseded = true;
    const source = this.units.get(t.unit)!.segments.get(t.key)!.text;
    this.results.set(id, { id, ...t, source, superseded: false, acked: false });
    this.translations.set(tkey(t.unit, t.key, t.lang), { status: "review", source, resultId: id });
  }

  // ------------------------------------------------------------------ delivery

  /** GET /v1/results: current, in review, not acknowledged, source current, live. */
  listed(): MResult[] {
    const out: MResult[] = [];
    for (const [unit] of this.units)
      for (const [key] of this.liveSegments(unit))
        for (const lang of LIST_ONLY_UNIT_TARGETS ? this.targets(unit) : LANGS) {
          const t = this.translation(unit, key, lang);
          if (!t?.resultId || this.state(unit, key, lang) !== "review") continue;
          const r = this.results.get(t.resultId)!;
          if (!r.acked) out.push(r);
        }
    return out;
  }

  /** Unknown or superseded ids do nothing; the rest are acknowledged (also again). */
  ack(ids: string[]): number {
    let n = 0;
    for (const id of new Set(ids)) {
      const r = this.results.get(id);
      if (!r || r.superseded) continue;
      r.acked = true;
      n++;
    }
    return n;
  }

  /**
   * Waiting for review: the translation's current result, in state review (acknowledged or not),
   * in a language the unit still targets (docs/decisions.md: reviews of results in a language
   * that is no longer a target are ignored, as such results are no longer listed).
   */
  review(reviews: { id: string; outcome: "approved" | "rejected" }[]): { updated: number; ignored: string[] } {
    const ignored: string[] = [];
    for (const rv of reviews) {
      const r = this.results.get(rv.id);
      const t = r && this.translation(r.unit, r.key, r.lang);
      const live = r && this.isLive(r.unit) && !this.units.get(r.unit)!.segments.get(r.key)!.removed;
      const targeted = r && (!LIST_ONLY_UNIT_TARGETS || this.targets(r.unit).includes(r.lang));
      if (!r || r.superseded || !t || t.resultId !== rv.id || !live || !targeted || this.state(r.unit, r.key, r.lang) !== "review") {
        ignored.push(rv.id);
        continue;
      }
      t.status = rv.outcome === "approved" ? "ok" : "missing";
      r.acked = true; // no longer listed in any case
    }
    return { updated: reviews.length - ignored.length, ignored };
  }

  // ------------------------------------------------------------------ reads

  counts(unit: string, lang: Lang) {
    const c = { code: lang, ok: 0, stale: 0, review: 0, missing: 0, attention: 0 };
    for (const [key] of this.liveSegments(unit)) c[this.state(unit, key, lang)]++;
    return c;
  }

  siteStatus(prefix = "") {
    const units = [...this.units.keys()].filter((k) => this.isLive(k) && k.startsWith(prefix));
    const languages = LANGS.map((lang) => {
      const sum = { code: lang, ok: 0, stale: 0, review: 0, missing: 0, attention: 0, attention_url: "" };
      for (const u of units.filter((u) => this.targets(u).includes(lang))) {
        const c = this.counts(u, lang);
        sum.ok += c.ok;
        sum.stale += c.stale;
        sum.review += c.review;
        sum.missing += c.missing;
      }
      return sum;
    });
    return {
      units_total: units.length,
      segments_total: units.reduce((n, u) => n + this.liveSegments(u).length, 0),
      languages,
    };
  }

  unitStatus(unit: string) {
    const segments = Object.fromEntries(
      this.liveSegments(unit).map(([key, s]) => [
        key,
        {
          kind: s.kind ?? "",
          parent_key: s.parent_key ?? "",
          position: s.position,
          states: Object.fromEntries(this.targets(unit).map((l) => [l, this.state(unit, key, l)])),
        },
      ]),
    );
    const needing = Object.values(segments).filter((s) => Object.values(s.states).some((st) => st !== "ok")).length;
    return {
      segments_total: Object.keys(segments).length,
      segments_needing_work: needing,
      languages: this.targets(unit).map((l) => this.counts(unit, l)),
      segments,
    };
  }

  /** GET /v1/units: live units with something not ok, listing only languages with work. */
  unitsWithWork(language?: Lang) {
    const out: Record<string, { code: string; missing: number; stale: number; review: number; attention: number }[]> = {};
    for (const unit of [...this.units.keys()].sort()) {
      if (!this.isLive(unit)) continue;
      const langs = this.targets(unit)
        .filter((l) => !language || l === language)
        .map((l) => this.counts(unit, l))
        .filter((c) => c.missing + c.stale + c.review + c.attention > 0)
        .map(({ ok: _ok, ...rest }) => rest);
      if (langs.length) out[unit] = langs;
    }
    return out;
  }
}
