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

/** Billable characters (docs/interface.md): Unicode code points of the text as pushed. */
export const characters = (text: string) => [...text].length;

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

/** What a job request asks for. */
export interface JobSpec {
  type: "delta" | "translate";
  prefix?: string;
  units?: string[];
  force: boolean;
}

/** A job as created: its request, its languages, its scope then, and the model's tick when it was created. */
export interface JobMark {
  job: JobSpec;
  languages: Lang[];
  scope: Triple[];
  tick: number;
}

const tkey = (unit: string, key: string, lang: string) => `${unit}\u0000${key}\u0000${lang}`;

export class Model {
  readonly units = new Map<string, MUnit>();
  readonly translations = new Map<string, MTranslation>();
  readonly results = new Map<string, MResult>();

  /**
   * When work arose (spec, as docs/interface.md words it: a job's scope is the work that existed
   * when it was created; work that arose after is left to the next job). The model's clock ticks
   * at every push, review and job creation; each map holds the last tick something arose at:
   */
  private tick = 0;
  /** by triple: the pair turned into work (current until a text change made it stale, or rejected); */
  private readonly pairArose = new Map<string, number>();
  /** by unit and key: the segment was added, came back from removed or its text got longer; */
  private readonly segmentArose = new Map<string, number>();
  /** by unit: the unit was restored or its writable languages changed. */
  private readonly unitArose = new Map<string, number>();

  /** Missing or stale: what a job not forced translates. */
  private isWork(unit: string, key: string, lang: Lang): boolean {
    const st = this.state(unit, key, lang);
    return st === "missing" || st === "stale";
  }

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
    const tick = ++this.tick;
    const before = this.liveWork(unit);
    const arisen = this.pushed(unit, segments, writable);
    // Pairs that turn into work: were live and not work before, are work now.
    for (const [key] of this.liveSegments(unit))
      for (const lang of LANGS) if (before.get(key)?.get(lang) === false && this.isWork(unit, key, lang)) this.pairArose.set(tkey(unit, key, lang), tick);
    for (const key of arisen.segments) this.segmentArose.set(`${unit}\u0000${key}`, tick);
    if (arisen.unit) this.unitArose.set(unit, tick);
    return arisen.out;
  }

  /** Each live segment's languages: whether the pair is work. */
  private liveWork(unit: string): Map<string, Map<Lang, boolean>> {
    return new Map(this.liveSegments(unit).map(([key]) => [key, new Map(LANGS.map((l) => [l, this.isWork(unit, key, l)]))]));
  }

  /** Applies a push; answers its counts, and the segments (added, back from removed) and unit (restored, writable languages changed) that arose. */
  private pushed(unit: string, segments: SegmentSpec[], writable: string[] | null): { out: SyncCounts; segments: string[]; unit: boolean } {
    let u = this.units.get(unit);
    const unitArose = !!u && (u.deleted || JSON.stringify(u.writable) !== JSON.stringify(writable && [...writable]));
    const segmentsArose: string[] = [];
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
      // New, back from removed, or longer (characters as billed: a job created before would bill more than it estimated).
      if (!old || old.removed || characters(s.text) > characters(old.text)) segmentsArose.push(s.key);
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
    return { out, segments: segmentsArose, unit: unitArose };
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

  /** A job is created now: its scope is the work that exists now. */
  createJob(job: JobSpec, languages: Lang[]): JobMark {
    return { job, languages, scope: this.jobScope(job, languages), tick: ++this.tick };
  }

  /**
   * The created job's work as it stands now: the pairs of its scope at creation that are still
   * live targets of their unit and still need work (every one with force), unless their need
   * arose after the job was created (the segment added, back or its text longer, the unit
   * restored or its writable languages changed, the pair turned into work): those are the next
   * job's. The job may leave more to the next one: it bills at most its estimate (checked where
   * its results are, in sync-model.test.ts).
   */
  jobWork(mark: JobMark): Triple[] {
    const since = (at: number | undefined) => at !== undefined && at > mark.tick;
    return mark.scope.filter(
      (t) =>
        this.isLive(t.unit) &&
        this.units.get(t.unit)!.segments.get(t.key)?.removed === false &&
        this.targets(t.unit).includes(t.lang) &&
        !since(this.unitArose.get(t.unit)) &&
        !since(this.segmentArose.get(`${t.unit}\u0000${t.key}`)) &&
        (mark.job.force || (this.isWork(t.unit, t.key, t.lang) && !since(this.pairArose.get(tkey(t.unit, t.key, t.lang))))),
    );
  }

  /** What a job translates: missing and stale segments of live units in scope (everything with force). */
  jobScope(job: JobSpec, languages: Lang[]): Triple[] {
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

  /**
   * A job produced `id` for the triple: a new result in review; the earlier ones are superseded.
   * `source`: the text it was made from (a text changed while the job worked on it leaves it stale), else the current one.
   */
  translated(t: Triple, id: string, source = this.units.get(t.unit)!.segments.get(t.key)!.text) {
    for (const r of this.results.values()) if (r.unit === t.unit && r.key === t.key && r.lang === t.lang) r.superseded = true;
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
    const tick = ++this.tick;
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
      // A rejection turns the pair into work (it was in review).
      if (rv.outcome === "rejected") this.pairArose.set(tkey(r.unit, r.key, r.lang), tick);
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
