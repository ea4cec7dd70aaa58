/**
 * Model-based tests: random sequences of pushes (adds, edits, reverts, removals,
 * reappearances, structure-only changes, imports, batches), deletes, jobs (delta, translate,
 * prefix, language subsets, force, a push between request and start, once its items are fixed or
 * at its first commit, an import during its first engine call, cancellation), acks and
 * reviews, run against the Worker and against the reference model in ./model.ts. After every
 * step the push counts, every segment's state in every language, GET /v1/results, GET
 * /v1/status and GET /v1/units must agree with the model; after every job, its billing: the
 * reservation held its estimate while it was queued, it billed at most its estimate, the ledger
 * holds what it billed, its reservation is gone, and the month's usage is what the jobs billed.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { UnitSnapshotIn } from "../../src/api/schemas";
import type { SiteSettings } from "../../src/control/sites.control";
import { pseudoLocalize } from "../../src/engines/pseudo";
import { createEngine } from "../../src/engines/registry";
import type { Engine } from "../../src/engines/types";
import { fingerprint } from "../../src/site/fingerprint";
import type { TurnPoint } from "../../src/site/jobs/invocation";
import { type RunOptions, runJobs } from "../../src/site/jobs/runner";
import type { SiteObject } from "../../src/site/object";
import { resultId } from "../../src/site/result-id";
import { admin, client, createSite, unit as unitBody } from "../helpers/api";
import { runJob } from "../helpers/jobs";
import { runnerDeps, stubOf } from "../helpers/site";
import { characters, type JobMark, LANGS, type Lang, Model, norm, type SegmentSpec, type Triple } from "./model";

type Client = ReturnType<typeof client>;

/** Sequences per run of the model: small in `npm test`, MODEL_RUNS=1000 for the long run. */
const knobs = env as unknown as { MODEL_RUNS?: string; MODEL_SEED?: string; MODEL_TINY_RUNS?: string };
const RUNS = Number(knobs.MODEL_RUNS || 25);
/** Sequences run with tiny slices (MODEL_TINY_RUNS): a job of a few items spans several slices and overlapping commits. */
const TINY_RUNS = Number(knobs.MODEL_TINY_RUNS || 5);
/** Sequences of jobs whose work changes between their request and their start (busyArb): half as many as MODEL_RUNS. */
const BUSY_RUNS = Math.ceil(RUNS / 2);
/** Items per slice in the tiny mode: a seam the runner takes (RunOptions.sliceItems), not a patched constant. */
const TINY_SLICE = 2;

/** How the model runs its jobs: through the object's alarms, or by the runner with these options (the tiny mode). */
type JobRunning = { options?: RunOptions };

const UNITS = ["post:1", "post:2", "page:1"];
const KEYS = ["a", "b", "c", "d"];
// Small alphabet so repeats and reverts happen; NFC/NFD and CRLF/LF pairs share a fingerprint.
const TEXTS = ["Hello", "World", "Hello world", "Bye.", "Café", "Cafe\u0301", "Two\r\nlines", "Two\nlines"];
const WRITABLE: (string[] | null)[] = [null, null, null, ["de"], ["FR"], [], ["es", "fr"]];
const IMPORTS = ["Hallo", "Bonjour", "Salut"];

// ---------------------------------------------------------------- commands

type Mutation = { op: "same" | "edit" | "remove" | "restore" | "structure" | "revert" | "import" | "writable"; key: string; text: string; lang: string; n: number };
type PushSpec = { kind: "fresh"; unit: number; segments: SegmentSpec[]; writable: number } | ({ kind: "mutate"; unit: number } & Mutation);
type Push = { unit: string; segments: SegmentSpec[]; writable: string[] | null };

type Command =
  | { type: "push"; push: PushSpec }
  | { type: "batch"; items: (PushSpec | { kind: "invalid"; unit: number })[] }
  | { type: "delete"; unit: number }
  | {
      type: "job";
      job: "delta" | "translate";
      prefix?: string;
      units: string[];
      languages?: string[];
      force: boolean;
      between?: PushSpec;
      /** An import pushed while the job's first engine call is out (docs/decisions.md "Jobs": the import wins). */
      during?: { unit: number; key: string; lang: string; n: number };
      /** More changes between the request and the start, after `between`: pushes and reviews. */
      more?: (PushSpec | ReviewCommand)[];
      /** A push once the job has started and its items are fixed, before any is loaded (each is checked again when loaded). */
      fixed?: PushSpec;
      /** A push just before the job's first commit is written (its items fixed, some of them loaded and translated). */
      midway?: PushSpec;
      cancel: boolean;
    }
  | { type: "settings"; change: number }
  | { type: "ack"; picks: number[]; stale: number | null; unknown: boolean }
  | ReviewCommand;
type ReviewCommand = { type: "review"; items: { pick: number; from: "waiting" | "any"; outcome: "approved" | "rejected"; text?: string }[] };

const segmentArb: fc.Arbitrary<SegmentSpec> = fc.record(
  {
    key: fc.constantFrom(...KEYS),
    text: fc.constantFrom(...TEXTS),
    kind: fc.constantFrom("title", "body"),
    parent_key: fc.constant("a"),
    position: fc.nat(5),
    translations: fc.dictionary(fc.constantFrom("de", "fr", "DE", "es"), fc.constantFrom(...IMPORTS), { minKeys: 1, maxKeys: 2 }),
  },
  { requiredKeys: ["key", "text"] },
);

const mutationArb: fc.Arbitrary<Mutation> = fc.record({
  op: fc.constantFrom("same", "edit", "edit", "remove", "restore", "structure", "revert", "revert", "import", "writable"),
  key: fc.constantFrom(...KEYS),
  text: fc.constantFrom(...TEXTS),
  lang: fc.constantFrom("de", "fr", "DE", "es"),
  n: fc.nat(9),
});

const pushArb: fc.Arbitrary<PushSpec> = fc.oneof(
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant("fresh" as const),
      unit: fc.nat(2),
      segments: fc.uniqueArray(segmentArb, { selector: (s) => s.key, maxLength: 4 }),
      writable: fc.nat(WRITABLE.length - 1),
    }),
  },
  { weight: 5, arbitrary: fc.tuple(fc.nat(2), mutationArb).map(([unit, m]) => ({ kind: "mutate" as const, unit, ...m })) },
);

/** A review of up to two results, rejected: a translation that turns into work. */
const rejectionArb: fc.Arbitrary<ReviewCommand> = fc
  .array(fc.record({ pick: fc.nat(20), from: fc.constant("waiting" as const), outcome: fc.constant("rejected" as const) }), { minLength: 1, maxLength: 2 })
  .map((items) => ({ type: "review" as const, items }));

/** A push that changes what a unit holds: edits, reverts, removals, restores, writable languages (no "same"). */
const changeArb: fc.Arbitrary<PushSpec> = fc.tuple(fc.nat(2), mutationArb).map(([unit, m]) => ({
  kind: "mutate" as const,
  unit,
  ...m,
  op: m.op === "same" || m.op === "structure" ? ("edit" as const) : m.op,
}));

/**
 * Sequences where work arises between a job's creation and its start, often: three units with
 * content, then jobs (the first translates, so later changes turn translations into work), each
 * with changes between its request and its start (and possibly while it runs).
 */
const busyArb: fc.Arbitrary<Command[]> = fc
  .tuple(
    fc.uniqueArray(
      fc.record({
        kind: fc.constant("fresh" as const),
        unit: fc.nat(2),
        segments: fc.uniqueArray(segmentArb, { selector: (s) => s.key, minLength: 2, maxLength: 4 }),
        writable: fc.constantFrom(0, 0, 3, 6),
      }),
      { selector: (p) => p.unit, minLength: 2, maxLength: 3 },
    ),
    fc.array(
      fc.tuple(
        fc.record({
          type: fc.constant("job" as const),
          job: fc.constant("delta" as const),
          units: fc.constant([] as string[]),
          force: fc.integer({ min: 0, max: 4 }).map((n) => n === 0),
          between: changeArb,
          more: fc.array(fc.oneof(changeArb, changeArb, rejectionArb), { maxLength: 3 }),
          cancel: fc.constant(false),
        }),
        fc.oneof(fc.constant({}), fc.record({ fixed: changeArb }), fc.record({ midway: changeArb })),
      ),
      { minLength: 2, maxLength: 4 },
    ),
  )
  .map(([pushes, jobs]) => [
    ...pushes.map((push): Command => ({ type: "push", push })),
    // The first job runs untouched: the next ones find translations to turn into work.
    { type: "job", job: "delta", units: [], force: false, cancel: false },
    ...jobs.map(([job, running]): Command => ({ ...job, ...running })),
  ]);

const commandArb: fc.Arbitrary<Command> = fc.oneof(
  { weight: 6, arbitrary: pushArb.map((push) => ({ type: "push" as const, push })) },
  {
    weight: 1,
    arbitrary: fc
      .array(fc.oneof({ weight: 4, arbitrary: pushArb }, { weight: 1, arbitrary: fc.record({ kind: fc.constant("invalid" as const), unit: fc.nat(2) }) }), {
        minLength: 1,
        maxLength: 3,
      })
      .map((items) => ({ type: "batch" as const, items })),
  },
  { weight: 1, arbitrary: fc.nat(2).map((unit) => ({ type: "delete" as const, unit })) },
  {
    weight: 4,
    arbitrary: fc
      .tuple(
        fc.record(
          {
            type: fc.constant("job" as const),
            job: fc.constantFrom("delta", "delta", "translate") as fc.Arbitrary<"delta" | "translate">,
            prefix: fc.constantFrom("post:", "page:", "post:1", "x:"),
            units: fc.subarray([...UNITS, "nope:1"]),
            languages: fc.subarray(["de", "fr", "DE", "es"]),
            force: fc.integer({ min: 0, max: 3 }).map((n) => n === 0),
            between: pushArb,
            cancel: fc.integer({ min: 0, max: 9 }).map((n) => n === 0),
          },
          { requiredKeys: ["type", "job", "units", "force", "cancel"] },
        ),
        // At most one change while the job runs, each as likely as none.
        fc.oneof(
          fc.constant({}),
          fc.record({ during: fc.record({ unit: fc.nat(2), key: fc.constantFrom(...KEYS), lang: fc.constantFrom("de", "fr", "DE", "es"), n: fc.nat(9) }) }),
          fc.record({ fixed: pushArb }),
          fc.record({ midway: pushArb }),
        ),
      )
      .map(([job, running]) => ({ ...job, ...running })),
  },
  { weight: 1, arbitrary: fc.nat(5).map((change) => ({ type: "settings" as const, change })) },
  {
    weight: 2,
    arbitrary: fc.record({
      type: fc.constant("ack" as const),
      picks: fc.array(fc.nat(20), { minLength: 1, maxLength: 4 }),
      stale: fc.option(fc.nat(20), { nil: null }),
      unknown: fc.boolean(),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      type: fc.constant("review" as const),
      items: fc.array(
        fc.record(
          {
            pick: fc.nat(20),
            from: fc.constantFrom("waiting", "waiting", "any") as fc.Arbitrary<"waiting" | "any">,
            outcome: fc.constantFrom("approved", "approved", "rejected") as fc.Arbitrary<"approved" | "rejected">,
            text: fc.constantFrom("Edited", ""),
          },
          { requiredKeys: ["pick", "from", "outcome"] },
        ),
        { minLength: 1, maxLength: 3 },
      ),
    }),
  },
);

// ---------------------------------------------------------------- resolving commands against the model

/** The snapshot a push command sends, derived from the model's last snapshot of the unit. */
function resolvePush(model: Model, spec: PushSpec): Push {
  const unit = UNITS[spec.unit];
  if (spec.kind === "fresh") return { unit, segments: spec.segments, writable: WRITABLE[spec.writable] };
  const writable = model.lastWritable(unit);
  const { segments, writable: w = writable } = mutate(model, unit, spec);
  return { unit, segments, writable: w };
}

function mutate(model: Model, unit: string, spec: Mutation): { segments: SegmentSpec[]; writable?: string[] | null } {
  const last = model.lastSnapshot(unit).map((s) => ({ ...s }));
  const at = last.findIndex((s) => s.key === spec.key);
  switch (spec.op) {
    case "same":
      return { segments: last };
    case "edit":
      if (at >= 0) last[at] = { ...last[at], text: spec.text };
      else last.push({ key: spec.key, text: spec.text });
      return { segments: last };
    case "remove":
      return { segments: last.filter((s) => s.key !== spec.key) };
    case "restore": {
      if (at >= 0) return { segments: last };
      // The key comes back with the text it had when it was removed (or a new one).
      return { segments: [...last, { key: spec.key, text: model.storedText(unit, spec.key) ?? spec.text }] };
    }
    case "structure":
      if (at >= 0) last[at] = { ...last[at], kind: last[at].kind === "title" ? "body" : "title", position: spec.n, parent_key: spec.n % 2 ? "a" : undefined };
      else last.reverse();
      return { segments: last };
    case "revert": {
      const history = model.history(unit, spec.key);
      const text = history.length ? history[spec.n % history.length] : spec.text;
      if (at >= 0) last[at] = { ...last[at], text };
      else last.push({ key: spec.key, text });
      return { segments: last };
    }
    case "writable":
      return { segments: last, writable: WRITABLE[spec.n % WRITABLE.length] };
    case "import": {
      const translations = { [spec.lang]: IMPORTS[spec.n % IMPORTS.length] };
      if (at >= 0) last[at] = { ...last[at], translations: { ...last[at].translations, ...translations } };
      else last.push({ key: spec.key, text: spec.text, translations });
      return { segments: last };
    }
  }
}

const body = (p: Push) => unitBody(p.unit, p.segments as { key: string; text: string }[], p.writable ? { writable_languages: p.writable } : {});
const describeCommand = (c: Command) => JSON.stringify(c);

// ---------------------------------------------------------------- checks

async function allPages(c: Client, path: string, field: "results" | "units", limit: number) {
  const out: any[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < 100; page++) {
    const res: any = await c.get(`${path}${path.includes("?") ? "&" : "?"}limit=${limit}${cursor ? `&cursor=${cursor}` : ""}`);
    expect(res.status, `${path}: ${JSON.stringify(res.body)}`).toBe(200);
    expect(res.body[field].length).toBeLessThanOrEqual(limit);
    out.push(...res.body[field]);
    cursor = res.body.next_cursor;
    if (!cursor) return out;
  }
  throw new Error(`${path} never ended`);
}

const resultKey = (r: { id: string; unit: string; key: string; language?: string; lang?: string }) => `${r.id} ${r.unit}/${r.key}/${r.language ?? r.lang}`;

async function checkAll(c: Client, model: Model, step: number, pageSize: number) {
  // Every segment of every unit in every language.
  for (const unit of UNITS) {
    const res = await c.get(`/v1/units/${unit}/status`);
    if (!model.isLive(unit)) {
      expect(res.status, `${unit} should not be found`).toBe(404);
      expect(typeof res.body.detail).toBe("string");
      continue;
    }
    expect(res.status, `${unit}: ${JSON.stringify(res.body)}`).toBe(200);
    const expected = model.unitStatus(unit);
    const actual = {
      segments_total: res.body.segments_total,
      segments_needing_work: res.body.segments_needing_work,
      languages: res.body.languages.map(({ attention_url: _u, ...rest }: any) => rest),
      segments: Object.fromEntries(res.body.segments.map((s: any) => [s.key, { kind: s.kind, parent_key: s.parent_key, position: s.position, states: s.states }])),
    };
    expect(actual, `unit status of ${unit}`).toEqual(expected);
  }

  // GET /v1/results: exactly the current, unacknowledged results in review.
  const listed = await allPages(c, "/v1/results", "results", pageSize);
  expect(new Set(listed.map((r) => r.id)).size, "a result listed twice").toBe(listed.length);
  const expected = model.listed();
  expect(listed.map(resultKey).sort(), "GET /v1/results").toEqual(expected.map(resultKey).sort());
  for (const r of listed) {
    const source = model.storedText(r.unit, r.key)!;
    expect(r.source_fingerprint).toBe(fingerprint(source));
    // Machine output is the pseudo engine's (of this text or of one with the same fingerprint, reused within the job).
    if (r.origin === "mt") expect(TEXTS.filter((t) => norm(t) === norm(source)).map((t) => pseudoLocalize(t, "plain"))).toContain(r.text);
  }
  const filterUnit = UNITS[step % UNITS.length];
  const filtered = await allPages(c, `/v1/results?unit=${filterUnit}`, "results", 500);
  expect(filtered.map(resultKey).sort(), `GET /v1/results?unit=${filterUnit}`).toEqual(
    expected
      .filter((r) => r.unit === filterUnit)
      .map(resultKey)
      .sort(),
  );

  // GET /v1/status, whole site and by prefix.
  for (const prefix of ["", "post:"]) {
    const res = await c.get(`/v1/status${prefix ? `?prefix=${prefix}` : ""}`);
    expect(res.status).toBe(200);
    const { glossary_terms: _g, ...status } = res.body;
    expect(status, `GET /v1/status?prefix=${prefix}`).toEqual(model.siteStatus(prefix));
  }

  // GET /v1/units: the units with work, only languages with work; paginated.
  const work = await allPages(c, "/v1/units", "units", 2);
  const actualWork = Object.fromEntries(work.map((u) => [u.external_key, u.languages.map(({ attention_url: _u, ...rest }: any) => rest)]));
  expect(
    work.map((u) => u.external_key),
    "GET /v1/units order",
  ).toEqual(Object.keys(actualWork).sort());
  expect(actualWork, "GET /v1/units").toEqual(model.unitsWithWork());
  const lang = LANGS[step % LANGS.length];
  const byLang = await allPages(c, `/v1/units?language=${lang}`, "units", 500);
  expect(Object.fromEntries(byLang.map((u) => [u.external_key, u.languages.map(({ attention_url: _u, ...rest }: any) => rest)])), `GET /v1/units?language=${lang}`).toEqual(
    model.unitsWithWork(lang),
  );
}

// ---------------------------------------------------------------- running commands

async function push(c: Client, model: Model, spec: PushSpec) {
  const p = resolvePush(model, spec);
  const expected = model.push(p.unit, p.segments, p.writable);
  const res = await c.put("/v1/units", body(p));
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body, `push ${JSON.stringify(body(p))}`).toEqual({ ...expected, fingerprint_mismatches: [] });
}

async function batch(c: Client, model: Model, items: Extract<Command, { type: "batch" }>["items"]) {
  const bodies: unknown[] = [];
  const expected: unknown[] = [];
  for (const item of items) {
    if (item.kind === "invalid") {
      // An adapter that is not one of the four: refused in its place, the others go on.
      bodies.push({ ...body({ unit: UNITS[item.unit], segments: [{ key: "a", text: "Never stored" }], writable: null }), adapter: "joomla" });
      expected.push({ external_key: UNITS[item.unit], ok: false, result: null, error: expect.any(String) });
      continue;
    }
    const p = resolvePush(model, item);
    bodies.push(body(p));
    expected.push({ external_key: p.unit, ok: true, result: { ...model.push(p.unit, p.segments, p.writable), fingerprint_mismatches: [] }, error: null });
  }
  const res = await c.put("/v1/units/batch", { units: bodies });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.results, `batch ${JSON.stringify(bodies)}`).toEqual(expected);
}

/** Runs the site's jobs to the end: by alarms, or (tiny mode) by the runner with the given options, as alarms would. */
async function runJobWith(c: Client, siteId: number, jobId: number, running: JobRunning) {
  if (!running.options) return runJob(c, siteId, jobId);
  const commits = await runInDurableObject(stubOf(siteId), async (o: SiteObject) => {
    const deps = runnerDeps(o);
    while (await runJobs(deps, { budgetMs: 60_000, ...running.options }));
    return o.store.one<{ slices: number }>("SELECT slices FROM jobs WHERE id = ?", jobId)!.slices;
  });
  const job = (await c.get(`/v1/jobs/${jobId}`)).body;
  // More items than one slice takes: several slices, so several commits (the first lands while the next slices work).
  if (running.options.sliceItems && job.estimated_segments > running.options.sliceItems) expect(commits, "commits of a job over several slices").toBeGreaterThan(1);
  return job;
}

/** What a sequence's jobs billed so far: the month's usage of the site (GET /v1/usage). */
interface Billing {
  billed: number;
}

/** The job's rows in D1: its ledger's characters and its reservation (null when it has none). */
async function d1Billing(siteId: number, jobId: number) {
  const ledger = await env.DB.prepare("SELECT coalesce(sum(characters), 0) AS n FROM usage_ledger WHERE site_id = ? AND job_id = ?").bind(siteId, jobId).first<{ n: number }>();
  const reservation = await env.DB.prepare("SELECT characters FROM reservations WHERE site_id = ? AND job_id = ?").bind(siteId, jobId).first<{ characters: number }>();
  return { ledger: Number(ledger?.n ?? 0), reservation: reservation?.characters ?? null };
}

/**
 * A finished job's billing agrees with what is stored: it billed at most its estimate (which
 * never grew from the one it was created with), the ledger holds exactly what it billed, its
 * reservation is released, and the month's usage is what the sequence's jobs billed.
 */
async function checkBilling(c: Client, siteId: number, created: any, done: any, billing: Billing) {
  expect(done.estimated_characters, "a job's estimate never grows").toBeLessThanOrEqual(created.estimated_characters);
  expect(done.characters, "a job bills at most its estimate").toBeLessThanOrEqual(done.estimated_characters);
  expect(await d1Billing(siteId, done.id), "the ledger holds what the job billed; its reservation is gone").toEqual({ ledger: done.characters, reservation: null });
  billing.billed += done.characters;
  const usage = await c.get("/v1/usage");
  expect(usage.body.used_characters, "the month's usage is what the jobs billed").toBe(billing.billed);
}

const tripleKey = (t: { unit: string; key: string; lang: string }) => `${t.unit}/${t.key}/${t.lang}`;

/**
 * The pairs a job translated (`done`) against its work: each is one of `allowed` (its work), and
 * each pair of `required` (its work as it stood when the job reached it) it left out did not fit in
 * what was left of its estimate (budget.ts: the job bills at most its estimate, and a text that
 * would take it past it is the next job's): that text's characters (at most those of the texts
 * in `texts`) exceed what the job had not billed of its estimate.
 */
function checkDone(job: any, done: Triple[], allowed: Triple[], required: Triple[], texts: (t: Triple) => string[], what: string) {
  const inWork = new Set(allowed.map(tripleKey));
  for (const t of done) expect(inWork.has(tripleKey(t)), `${what}: ${tripleKey(t)} is not the job's work`).toBe(true);
  expect(new Set(done.map(tripleKey)).size, `${what}: one result per pair`).toBe(done.length);
  expect(job.done_segments, `${what}: done_segments`).toBe(done.length);
  const made = new Set(done.map(tripleKey));
  const left = job.estimated_characters - job.characters;
  for (const t of required)
    if (!made.has(tripleKey(t)))
      expect(Math.max(...texts(t).map(characters)), `${what}: ${tripleKey(t)} left out though it fit in what was left of the job's estimate (${left})`).toBeGreaterThan(left);
}

/** The job command's changes between its request and its start: `between`, then `more`. */
async function changesBetween(c: Client, model: Model, cmd: Extract<Command, { type: "job" }>) {
  if (cmd.between) await push(c, model, cmd.between);
  for (const change of cmd.more ?? []) {
    if ("type" in change) await review(c, model, change);
    else await push(c, model, change);
  }
}

async function runJobCommand(c: Client, siteId: number, model: Model, cmd: Extract<Command, { type: "job" }>, running: JobRunning, billing: Billing) {
  const request: Record<string, unknown> = { type: cmd.job, force: cmd.force };
  if (cmd.job === "delta" && cmd.prefix) request.prefix = cmd.prefix;
  if (cmd.job === "translate") request.units = cmd.units;
  if (cmd.languages) request.languages = cmd.languages;
  const languages = model.jobLanguages(cmd.languages);
  // A translate job naming a unit that is not live (never pushed, deleted) is refused whole (issue 40).
  const refused = languages.length === 0 || (cmd.job === "translate" && (cmd.units.length === 0 || cmd.units.some((u) => !model.isLive(u))));
  const scopeArgs = { type: cmd.job, prefix: cmd.job === "delta" ? cmd.prefix : undefined, units: cmd.units, force: cmd.force };

  const created = await c.post("/v1/jobs", request);
  if (refused) {
    expect(created.status, JSON.stringify(created.body)).toBe(422);
    expect(typeof created.body.detail).toBe("string");
    await changesBetween(c, model, cmd);
    return;
  }
  expect(created.status, JSON.stringify(created.body)).toBe(202);
  // The job's scope is the work that exists now; work that arises later is the next job's (model.jobWork).
  const mark = model.createJob(scopeArgs, languages);
  expect(created.body).toMatchObject({ status: "queued", languages, force: cmd.force, estimated_segments: mark.scope.length });
  expect(await d1Billing(siteId, created.body.id), "a queued job's reservation holds its estimate").toEqual({ ledger: 0, reservation: created.body.estimated_characters });

  // Changes between the request and the start: what they added or turned into work is the next job's.
  await changesBetween(c, model, cmd);
  if (cmd.cancel) {
    const cancelled = await c.post(`/v1/jobs/${created.body.id}/cancel`);
    expect(cancelled.body).toMatchObject({ status: "cancelled" });
    const done = await runJob(c, siteId, created.body.id);
    expect(done).toMatchObject({ status: "cancelled", done_segments: 0, characters: 0 });
    await checkBilling(c, siteId, created.body, done, billing);
    return;
  }
  let scope = model.jobWork(mark);
  const before = new Set(model.results.keys());
  let done: any;
  if (cmd.during) {
    // The import lands while the engine works on the job's first batch: what it imported is not delivered.
    const key = (t: Triple) => `${t.unit}/${t.key}/${t.lang}`;
    const importedBefore = new Set(model.importedTriples().map(key));
    const imported = await importDuringJob(c, siteId, model, cmd.during, running);
    if (imported.during) {
      const fresh = new Set(
        model
          .importedTriples()
          .map(key)
          .filter((k) => !importedBefore.has(k)),
      );
      const estimated = scope.length;
      scope = scope.filter((t) => !fresh.has(key(t)));
      done = (await c.get(`/v1/jobs/${created.body.id}`)).body;
      expect(done, `job ${JSON.stringify(request)} with an import during it`).toMatchObject({
        status: "succeeded",
        failed_segments: 0,
        estimated_segments: estimated,
      });
    } else {
      done = (await c.get(`/v1/jobs/${created.body.id}`)).body;
      expect(done, `job ${JSON.stringify(request)} (the import came after it)`).toMatchObject({
        status: "succeeded",
        failed_segments: 0,
        estimated_segments: scope.length,
      });
    }
    learnResults(model, scope, before, await allPages(c, "/v1/results", "results", 500), done);
    await checkBilling(c, siteId, created.body, done, billing);
    if (!imported.during) await imported.after();
    return;
  }
  if (cmd.fixed) {
    // Once the items are fixed (the estimate was taken again at the start, before the push): each is checked again when loaded.
    const estimated = scope.length;
    const { pushed } = await pushDuringJob(siteId, model, cmd.fixed, "scope", running);
    expect(pushed, "the job's items were fixed").toBe(true);
    scope = model.jobWork(mark);
    done = (await c.get(`/v1/jobs/${created.body.id}`)).body;
    expect(done, `job ${JSON.stringify(request)} with a push once its items were fixed`).toMatchObject({
      status: "succeeded",
      failed_segments: 0,
      estimated_segments: estimated,
    });
    learnResults(model, scope, before, await allPages(c, "/v1/results", "results", 500), done);
    await checkBilling(c, siteId, created.body, done, billing);
    return;
  }
  if (cmd.midway) {
    await runMidway(c, siteId, model, mark, cmd.midway, running, created.body);
    done = (await c.get(`/v1/jobs/${created.body.id}`)).body;
    await checkBilling(c, siteId, created.body, done, billing);
    return;
  }
  done = await runJobWith(c, siteId, created.body.id, running);
  expect(done, `job ${JSON.stringify(request)}`).toMatchObject({ status: "succeeded", failed_segments: 0, estimated_segments: scope.length });
  // Nothing changed since it was created: it did all of its work, within its estimate.
  if (!cmd.between) expect(done.done_segments, `job ${JSON.stringify(request)}: nothing left out`).toBe(scope.length);

  learnResults(model, scope, before, await allPages(c, "/v1/results", "results", 500), done);
  await checkBilling(c, siteId, created.body, done, billing);
}

/**
 * Runs the site's queued job with the real runner; `spec` is pushed at the first turn the runner
 * takes at `at` (with a turn at every step: RunOptions.stepWork 1). Answers whether it was pushed;
 * when it was not, it is pushed after the job.
 */
async function pushDuringJob(siteId: number, model: Model, spec: PushSpec, at: TurnPoint, running: JobRunning, before: (o: SiteObject) => void = () => {}) {
  let pushed = false;
  await runInDurableObject(stubOf(siteId), async (o: SiteObject) => {
    const settings = o.store.getMeta<SiteSettings>("settings")!;
    const deps = runnerDeps(o, {
      settings,
      nextTurn: async (point) => {
        if (pushed || point !== at) return;
        pushed = true;
        // What the job stored so far, for the model to know before the push.
        before(o);
        const p = resolvePush(model, spec);
        const expected = model.push(p.unit, p.segments, p.writable);
        const res = await o.pushUnit(settings, UnitSnapshotIn.parse(body(p)));
        expect(res, `push during the job at ${at} ${JSON.stringify(body(p))}`).toEqual({ ...expected, fingerprint_mismatches: [] });
      },
    });
    while (await runJobs(deps, { budgetMs: 60_000, stepWork: 1, ...running.options }));
  });
  if (!pushed) {
    await runInDurableObject(stubOf(siteId), async (o: SiteObject) => {
      before(o);
      const p = resolvePush(model, spec);
      const expected = model.push(p.unit, p.segments, p.writable);
      const res = await o.pushUnit(o.store.getMeta<SiteSettings>("settings")!, UnitSnapshotIn.parse(body(p)));
      expect(res, `push after the job ${JSON.stringify(body(p))}`).toEqual({ ...expected, fingerprint_mismatches: [] });
    });
  }
  return { pushed };
}

/** The results a job has stored, with the segment and the source fingerprint each was made from. */
const storedResults = (o: SiteObject, jobId: number) =>
  o.store.all<{ id: number; unit: string; key: string; lang: Lang; fingerprint: string }>(
    `SELECT r.id, u.external_key AS unit, s.key, r.language AS lang, r.source_fingerprint AS fingerprint
     FROM results r JOIN segments s ON s.id = r.segment_id JOIN units u ON u.id = r.unit_id WHERE r.job_id = ? ORDER BY r.id`,
    jobId,
  );

/**
 * A push at the job's first turn before a commit is written (a commit may have landed before it
 * without a turn: the model learns what the job stored before it pushes): some items were loaded
 * and translated before it, the others are loaded after it. Every result is of a pair of the job's
 * work as it stood before the push; every pair still the job's work after the push has one (a pair
 * the job loaded before the push is translated from the text it read, and may be stale now). The results
 * are learnt with the text each was made from.
 */
async function runMidway(c: Client, siteId: number, model: Model, mark: JobMark, spec: PushSpec, running: JobRunning, created: any) {
  const work = model.jobWork(mark);
  const learnt = new Set<number>();
  const learn = (results: ReturnType<typeof storedResults>) => {
    for (const r of results) {
      if (learnt.has(r.id)) continue;
      learnt.add(r.id);
      const source = model.history(r.unit, r.key).find((t) => fingerprint(t) === r.fingerprint);
      expect(source, `${tripleKey(r)}: the text its result was made from`).toBeDefined();
      model.translated({ unit: r.unit, key: r.key, lang: r.lang }, resultId(r.id), source);
    }
  };
  const { pushed } = await pushDuringJob(siteId, model, spec, "commit", running, (o) => learn(storedResults(o, created.id)));
  // The job's work as it stood when it reached each pair: after the push, for a push during it (the pairs it translated
  // before are learnt, no longer work); before it, for a job that ended first.
  const required = pushed ? model.jobWork(mark) : work;
  const produced = await runInDurableObject(stubOf(siteId), (o: SiteObject) => storedResults(o, created.id));
  const done = (await c.get(`/v1/jobs/${created.id}`)).body;
  expect(done, `job with a push at its first commit ${JSON.stringify(spec)}`).toMatchObject({
    status: "succeeded",
    failed_segments: 0,
    estimated_segments: work.length,
  });
  // A pair loaded before the push was read with a text it may no longer have: any of the key's texts.
  checkDone(done, produced, work, required, (t) => model.history(t.unit, t.key), "job with a push at its first commit");
  learn(produced);
}

/**
 * Learns the job's new result ids: each is listed, of a triple of its work `scope`, one per
 * triple; a triple of its work without one is a text that did not fit in its estimate (checkDone).
 */
function learnResults(model: Model, scope: Triple[], before: Set<string>, listed: any[], job: any) {
  const fresh = listed.filter((r) => !before.has(r.id));
  const triples = fresh.map((r) => ({ unit: r.unit, key: r.key, lang: r.language as Lang }));
  checkDone(job, triples, scope, scope, (t) => [model.storedText(t.unit, t.key)!], "new results of the job");
  for (const r of fresh) {
    expect(r.job_id).toBe(job.id);
    model.translated({ unit: r.unit, key: r.key, lang: r.language as Lang }, r.id);
  }
}

/**
 * Runs the site's queued job with the real runner and the pseudo engine; the first engine call
 * first pushes an import (an "import" mutation of a unit). Answers whether the import landed
 * during the job; when the job made no engine call (all from memory), `after` pushes it instead.
 */
async function importDuringJob(c: Client, siteId: number, model: Model, d: NonNullable<Extract<Command, { type: "job" }>["during"]>, running: JobRunning) {
  const spec: PushSpec = { kind: "mutate", unit: d.unit, op: "import", key: d.key, text: TEXTS[d.n % TEXTS.length], lang: d.lang, n: d.n };
  let during = false;
  await runInDurableObject(stubOf(siteId), async (o: SiteObject) => {
    const settings = o.store.getMeta<SiteSettings>("settings")!;
    const deps = runnerDeps(o, { settings });
    const pseudo = createEngine("pseudo", deps.env);
    const engine: Engine = {
      ...pseudo,
      supports: (l) => pseudo.supports(l),
      translate: async (request) => {
        if (!during) {
          during = true;
          const p = resolvePush(model, spec);
          const expected = model.push(p.unit, p.segments, p.writable);
          const res = await o.pushUnit(settings, UnitSnapshotIn.parse(body(p)));
          expect(res, `import during the job ${JSON.stringify(body(p))}`).toEqual({ ...expected, fingerprint_mismatches: [] });
        }
        return pseudo.translate(request);
      },
    };
    while (await runJobs({ ...deps, engineFor: () => engine }, { budgetMs: 60_000, ...running.options }));
  });
  return { during, after: () => push(c, model, spec) };
}

/**
 * A settings change through the admin API; then a call carrying the settings from before it
 * (an isolate's older cached copy) must run with the newer ones and leave them in place.
 */
async function changeSettings(c: Client, siteId: number, model: Model, change: number) {
  const stub = stubOf(siteId);
  const older = await runInDurableObject(stub, (o: SiteObject) => o.store.getMeta<SiteSettings>("settings")!);
  const patches = [
    { name: `Renamed ${change}` },
    { review_mode: change % 2 ? "suggestion" : "draft" },
    {
      target_languages: [
        { code: "de", engine: "pseudo", formality: change % 2 ? "formal" : "default" },
        { code: "fr", engine: "pseudo" },
      ],
    },
  ];
  const res = await admin("PATCH", `/admin/v1/sites/${siteId}`, patches[change % patches.length]);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const newer = await runInDurableObject(stub, (o: SiteObject) => o.store.getMeta<SiteSettings>("settings")!);
  expect(newer.version).toBe(older.version + 1);
  expect(newer).toMatchObject({ name: res.body.name, reviewMode: res.body.review_mode, targetLanguages: res.body.target_languages });
  // The older copy's calls answer from the newer settings and change nothing.
  const site = await stub.site(older);
  expect(site.name).toBe(res.body.name);
  const { glossary_terms: _g, ...status } = (await stub.status(older, "")) as any;
  expect(status).toEqual(model.siteStatus(""));
  expect(await runInDurableObject(stub, (o: SiteObject) => o.store.getMeta<SiteSettings>("settings")!)).toEqual(newer);
  void c;
}

async function ack(c: Client, model: Model, cmd: Extract<Command, { type: "ack" }>) {
  const listed = model
    .listed()
    .map((r) => r.id)
    .sort();
  const ids = listed.length ? cmd.picks.map((p) => listed[p % listed.length]) : [];
  if (cmd.stale !== null) {
    const others = [...model.results.keys()].filter((id) => !listed.includes(id)).sort();
    if (others.length) ids.push(others[cmd.stale % others.length]);
  }
  if (cmd.unknown) ids.push("r_1", "not-an-id");
  const expected = model.ack(ids);
  const res = await c.post("/v1/results/ack", { ids });
  expect(res.status).toBe(200);
  expect(res.body, `ack ${JSON.stringify(ids)}`).toEqual({ acknowledged: expected });
}

async function review(c: Client, model: Model, cmd: Extract<Command, { type: "review" }>) {
  const waiting: string[] = [];
  for (const unit of UNITS)
    for (const [key] of model.liveSegments(unit))
      for (const lang of LANGS) {
        const t = model.translation(unit, key, lang);
        if (t?.resultId && model.state(unit, key, lang) === "review") waiting.push(t.resultId);
      }
  waiting.sort();
  const any = [...model.results.keys()].sort();
  const reviews = cmd.items.flatMap((item) => {
    const from = item.from === "waiting" && waiting.length ? waiting : any;
    if (!from.length) return [];
    return [
      { id: from[item.pick % from.length], outcome: item.outcome, ...(item.text !== undefined && item.outcome === "approved" ? { text: item.text } : {}), reviewer: "model" },
    ];
  });
  const expected = model.review(reviews);
  const res = await c.post("/v1/reviews", { reviews });
  expect(res.status).toBe(200);
  expect(res.body, `reviews ${JSON.stringify(reviews)}`).toEqual(expected);
}

async function run(c: Client, siteId: number, model: Model, cmd: Command, running: JobRunning, billing: Billing) {
  switch (cmd.type) {
    case "push":
      return push(c, model, cmd.push);
    case "batch":
      return batch(c, model, cmd.items);
    case "delete": {
      model.delete(UNITS[cmd.unit]);
      const res = await c.del(`/v1/units/${UNITS[cmd.unit]}`);
      expect(res.status).toBe(204);
      return;
    }
    case "job":
      return runJobCommand(c, siteId, model, cmd, running, billing);
    case "ack":
      return ack(c, model, cmd);
    case "review":
      return review(c, model, cmd);
    case "settings":
      return changeSettings(c, siteId, model, cmd.change);
  }
}

async function runSequence(commands: Command[], pageSize: number, running: JobRunning = {}) {
  const site = await createSite({ qa_mode: "editors", handshake: { capabilities: ["qa_errors"] } });
  const c = client(site.key);
  const model = new Model();
  const billing: Billing = { billed: 0 };
  const done: string[] = [];
  for (const [step, cmd] of commands.entries()) {
    done.push(describeCommand(cmd));
    try {
      await run(c, site.siteId, model, cmd, running, billing);
      await checkAll(c, model, step, pageSize);
    } catch (err) {
      (err as Error).message = `after step ${step + 1} of:\n  ${done.join("\n  ")}\n${(err as Error).message}`;
      throw err;
    }
  }
}

/**
 * The run's seed: MODEL_SEED to replay one, else a fresh one. It is chosen here (not left to
 * fast-check) so that a failure names it first, with the command that replays it.
 */
const SEED = knobs.MODEL_SEED ? Number(knobs.MODEL_SEED) : (Date.now() ^ (Math.random() * 0x7fffffff)) | 0;

/** fc.assert with the seed, and the seed in the failure's first line. */
async function assertWithSeed(property: fc.IAsyncProperty<[Command[], number]>, numRuns: number) {
  try {
    await fc.assert(property, { numRuns, endOnFailure: true, seed: SEED });
  } catch (err) {
    (err as Error).message = `model failed with seed ${SEED}; replay: MODEL_SEED=${SEED} npx vitest run test/model\n${(err as Error).message}`;
    throw err;
  }
}

describe("the service follows the reference model of the state machine", () => {
  it(
    "random sequences of pushes, imports, deletes, jobs, acks and reviews",
    async () => {
      // MODEL_RUNS=1000 for a long run (docs: the issue's 1,000 sequences); MODEL_SEED to replay one.
      await assertWithSeed(
        fc.asyncProperty(fc.array(commandArb, { minLength: 1, maxLength: 15 }), fc.constantFrom(3, 7, 500), (commands, pageSize) => runSequence(commands, pageSize)),
        RUNS,
      );
    },
    Math.max(180_000, RUNS * 15_000),
  );

  it(
    "jobs whose work changes between their request and their start, and while they run",
    async () => {
      await assertWithSeed(
        fc.asyncProperty(busyArb, fc.constantFrom(3, 500), (commands, pageSize) => runSequence(commands, pageSize)),
        BUSY_RUNS,
      );
    },
    Math.max(180_000, BUSY_RUNS * 15_000),
  );

  it(
    "with tiny slices: each job spans several slices whose commits overlap",
    async () => {
      await assertWithSeed(
        fc.asyncProperty(fc.array(commandArb, { minLength: 1, maxLength: 15 }), fc.constantFrom(3, 500), (commands, pageSize) =>
          runSequence(commands, pageSize, { options: { sliceItems: TINY_SLICE } }),
        ),
        TINY_RUNS,
      );
    },
    Math.max(180_000, TINY_RUNS * 15_000),
  );
});

describe("focused cases found by the model", () => {
  it("GET /v1/results lists only results in languages the unit still targets (writable_languages)", async () => {
    // Shrunk counterexample: push, force job (results in de and fr), push again with writable_languages ["de"].
    const site = await createSite({ qa_mode: "editors", handshake: { capabilities: ["qa_errors"] } });
    const c = client(site.key);
    await c.put("/v1/units", unitBody("post:1", [{ key: "a", text: "Hello" }]));
    const created = await c.post("/v1/jobs", { force: true });
    await runJob(c, site.siteId, created.body.id);
    expect((await allPages(c, "/v1/results", "results", 500)).map((r) => r.language).sort()).toEqual(["de", "fr"]);
    await c.put("/v1/units", unitBody("post:1", [{ key: "a", text: "Hello" }], { writable_languages: ["de"] }));
    const status = await c.get("/v1/units/post:1/status");
    expect(status.body.segments[0].states).toEqual({ de: "review" });
    // fr is no longer a target language of the unit: its translation is not to be written there.
    expect((await allPages(c, "/v1/results", "results", 500)).map((r) => r.language)).toEqual(["de"]);
  });

  it("GET /v1/results lists no results in a language that is no longer a target language of the site", async () => {
    const site = await createSite({ qa_mode: "editors", handshake: { capabilities: ["qa_errors"] } });
    const c = client(site.key);
    await c.put("/v1/units", unitBody("post:1", [{ key: "a", text: "Hello" }]));
    const created = await c.post("/v1/jobs", {});
    await runJob(c, site.siteId, created.body.id);
    await admin("PATCH", `/admin/v1/sites/${site.siteId}`, { target_languages: [{ code: "de", engine: "pseudo" }] });
    expect((await c.get("/v1/status")).body.languages.map((l: any) => l.code)).toEqual(["de"]);
    expect((await allPages(c, "/v1/results", "results", 500)).map((r) => r.language)).toEqual(["de"]);
  });
});
