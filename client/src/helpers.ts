// The connector's recurring work as small functions over the typed client: pushing units in
// batches, running a job to its end, paging through pending results, acknowledging them and
// reporting reviews. Each throws TransyncError for a refused or failed call.

import type { TransyncClient } from "./client.js";
import { TransyncError } from "./errors.js";
import { type RetryOptions, send } from "./retry.js";
import type { components } from "./schema.js";

type S = components["schemas"];

/** Options every helper takes. */
export interface CallOptions {
  /** How 429 and 5xx answers are retried (see RetryOptions). */
  retry?: RetryOptions;
  /** Stops the helper between calls and during waits; it then throws the signal's reason. */
  signal?: AbortSignal;
}

/** Units per batch (the contract: 1 to 100). */
export const BATCH_UNITS = 100;
/** Batch body bytes, kept under the contract's 10 MB (the service refuses 10 MiB and more). */
export const BATCH_BYTES = 10_000_000;
/** Ids per acknowledge request. */
export const ACK_IDS = 1_000;
/** Reviews per request. */
export const REVIEWS_PER_REQUEST = 500;
/** Units per `POST /v1/units/texts` (an extension of version 1). */
export const TEXTS_UNITS = 100;

const encoder = new TextEncoder();
const bytesOf = (value: unknown) => encoder.encode(JSON.stringify(value)).byteLength;

export interface PushProgress {
  /** Units answered so far (pushed or failed). */
  done: number;
  total: number;
  /** Units that failed so far. */
  failed: number;
  /** Batches sent so far. */
  batches: number;
}

/** A unit the service (or the batch limits) did not take, with the reason. */
export interface PushFailure {
  external_key: string;
  error: string;
}

export interface PushResult {
  /** One item per unit taken by the service, in the order given: its SyncOut. */
  synced: { external_key: string; result: S["SyncOut"] }[];
  /** Units not taken, with the service's message; never thrown. */
  failed: PushFailure[];
  /** Batch requests sent. */
  batches: number;
}

export interface PushOptions extends CallOptions {
  onProgress?: (progress: PushProgress) => void;
  /** Units per batch (at most 100, the default). */
  batchUnits?: number;
  /** Largest batch body in bytes (default BATCH_BYTES, just under 10 MB). */
  batchBytes?: number;
}

/**
 * Splits units into batches of at most `maxUnits` units whose JSON body `{"units":[…]}` stays
 * within `maxBytes` bytes (UTF-8). A unit too large for any batch is answered in `tooLarge`.
 */
export function planBatches(units: readonly S["UnitSnapshotIn"][], maxUnits = BATCH_UNITS, maxBytes = BATCH_BYTES) {
  const batches: S["UnitSnapshotIn"][][] = [];
  const tooLarge: { unit: S["UnitSnapshotIn"]; bytes: number }[] = [];
  const envelope = bytesOf({ units: [] });
  let current: S["UnitSnapshotIn"][] = [];
  let size = envelope;
  for (const unit of units) {
    const bytes = bytesOf(unit);
    if (envelope + bytes > maxBytes) {
      tooLarge.push({ unit, bytes });
      continue;
    }
    const added = bytes + (current.length ? 1 : 0); // the comma between units
    if (current.length >= maxUnits || size + added > maxBytes) {
      batches.push(current);
      current = [];
      size = envelope;
    }
    size += bytes + (current.length ? 1 : 0);
    current.push(unit);
  }
  if (current.length) batches.push(current);
  return { batches, tooLarge };
}

/**
 * Pushes unit snapshots with `PUT /v1/units/batch`: batches of at most 100 units and under
 * 10 MB of JSON, sent one after another as the contract asks. A unit the service refuses (its
 * batch item has `ok` false) or that is too large for a batch is collected in `failed`, not
 * thrown; a refused request (401, 402, 422 for the whole batch, …) throws TransyncError.
 * Pushing is idempotent, so 429, 5xx and network errors are retried.
 */
export async function pushUnits(api: TransyncClient, units: readonly S["UnitSnapshotIn"][], options: PushOptions = {}): Promise<PushResult> {
  const maxUnits = Math.min(BATCH_UNITS, Math.max(1, options.batchUnits ?? BATCH_UNITS));
  const { batches, tooLarge } = planBatches(units, maxUnits, options.batchBytes ?? BATCH_BYTES);
  const out: PushResult = {
    synced: [],
    failed: [],
    batches: 0,
  };
  const order = new Map(units.map((unit, i) => [unit, i]));
  const failures: [number, PushFailure][] = tooLarge.map(({ unit, bytes }) => [
    order.get(unit)!,
    { external_key: unit.external_key, error: `The unit's JSON is ${bytes} bytes: too large for a batch (under ${options.batchBytes ?? BATCH_BYTES} bytes).` },
  ]);
  let done = tooLarge.length;
  for (const batch of batches) {
    const answer = await send(() => api.PUT("/v1/units/batch", { body: { units: batch }, signal: options.signal }), "all", options.retry, options.signal);
    out.batches++;
    answer.results.forEach((item, i) => {
      if (item.ok && item.result) out.synced.push({ external_key: item.external_key, result: item.result });
      else failures.push([order.get(batch[i]!)!, { external_key: item.external_key, error: item.error ?? "not taken" }]);
    });
    done += batch.length;
    options.onProgress?.({ done, total: units.length, failed: failures.length, batches: out.batches });
  }
  out.failed = failures.sort((a, b) => a[0] - b[0]).map(([, failure]) => failure);
  return out;
}

/** The caller's answer to a job that needs confirmation: true creates it, false refuses it. */
export type ConfirmPolicy = boolean | ((estimate: S["EstimateOut"]) => boolean | Promise<boolean>);

export interface RunJobOptions extends CallOptions {
  /**
   * What to do when the job needs confirmation (409 `confirmation_required`): called with the
   * estimate; true sends the same request again with `confirm: true`, false (and no policy)
   * throws the 409 as TransyncError with `estimate`.
   */
  confirm?: ConfirmPolicy;
  /** Called with the job after it is created and after each poll. */
  onProgress?: (job: S["JobOut"]) => void;
  /** Polling: first wait in ms (default 500), growing ×1.5 up to `maxIntervalMs` (default 10,000). */
  intervalMs?: number;
  maxIntervalMs?: number;
  /** The wait between polls (default: a timer that `signal` cuts short). */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/** Job states after which nothing changes. */
export const FINAL_JOB_STATES: readonly string[] = ["succeeded", "failed", "cancelled"];

const wait = (ms: number, signal?: AbortSignal, sleep?: RetryOptions["sleep"]) =>
  sleep
    ? sleep(ms, signal)
    : new Promise<void>((resolve, reject) => {
        if (signal?.aborted) return reject(signal.reason);
        const timer = setTimeout(() => {
          signal?.removeEventListener("abort", abort);
          resolve();
        }, ms);
        const abort = () => {
          clearTimeout(timer);
          reject(signal?.reason);
        };
        signal?.addEventListener("abort", abort, { once: true });
      });

/**
 * Creates a job with `POST /v1/jobs` and polls `GET /v1/jobs/{id}` with growing waits until it
 * is `succeeded`, `failed` or `cancelled`; answers that last JobOut (a failed job is answered,
 * not thrown: read its `status` and `errors`). A job that needs confirmation goes to `confirm`.
 * Creating a job is not idempotent, so `POST /v1/jobs` is retried only after a 429 (the service
 * did nothing); the polls are retried on 429, 5xx and network errors. Aborting `signal` stops
 * waiting; the job itself keeps running (cancel it with `POST /v1/jobs/{id}/cancel`).
 */
export async function runJob(api: TransyncClient, jobIn: S["JobIn"] = {}, options: RunJobOptions = {}): Promise<S["JobOut"]> {
  if (jobIn.estimate_only) throw new TypeError("runJob creates a job: use POST /v1/jobs with estimate_only for an estimate");
  const { retry, signal, onProgress } = options;
  const create = (body: S["JobIn"]) => send(() => api.POST("/v1/jobs", { body, signal }), "429", retry, signal) as Promise<S["JobOut"]>;
  let job: S["JobOut"];
  try {
    job = await create(jobIn);
  } catch (error) {
    if (!(error instanceof TransyncError && error.status === 409 && error.code === "confirmation_required" && error.estimate)) throw error;
    const policy = options.confirm ?? false;
    const yes = typeof policy === "function" ? await policy(error.estimate) : policy;
    if (!yes) throw error;
    job = await create({ ...jobIn, confirm: true });
  }
  onProgress?.(job);
  let interval = options.intervalMs ?? 500;
  const maxInterval = options.maxIntervalMs ?? 10_000;
  while (!FINAL_JOB_STATES.includes(job.status)) {
    await wait(interval, signal, options.sleep);
    interval = Math.min(maxInterval, Math.round(interval * 1.5));
    job = await send(() => api.GET("/v1/jobs/{job_id}", { params: { path: { job_id: job.id } }, signal }), "all", retry, signal);
    onProgress?.(job);
  }
  return job;
}

export interface PendingResultsOptions extends CallOptions {
  /** Only this unit's results. */
  unit?: string;
  /** Only results in these languages (filtered here: the service lists every language). */
  language?: string | readonly string[];
  /** Results per page (1 to 500; the service's default is 100). */
  limit?: number;
}

/**
 * The results waiting to be written on the site (`GET /v1/results`), page by page: each step
 * answers one page's ResultOut list, following `next_cursor` until it is null. Results stay
 * listed until acknowledged (delivery is at least once): write a page, then `ack` its ids.
 * Pages left empty by the `language` filter are skipped.
 */
export async function* pendingResults(api: TransyncClient, options: PendingResultsOptions = {}): AsyncGenerator<S["ResultOut"][], void, undefined> {
  const languages = options.language === undefined ? undefined : ([] as string[]).concat(options.language);
  let cursor: string | undefined;
  do {
    const query = { ...(options.unit ? { unit: options.unit } : {}), ...(options.limit ? { limit: options.limit } : {}), ...(cursor ? { cursor } : {}) };
    const page: S["ResultsOut"] = await send(() => api.GET("/v1/results", { params: { query }, signal: options.signal }), "all", options.retry, options.signal);
    const results = languages ? page.results.filter((result) => languages.includes(result.language)) : page.results;
    if (results.length) yield results;
    cursor = page.next_cursor ?? undefined;
  } while (cursor);
}

/**
 * Acknowledges results written on the site (`POST /v1/results/ack`, 1,000 ids a request) and
 * answers how many were acknowledged. Repeating is safe, so failures are retried.
 */
export async function ack(api: TransyncClient, ids: readonly string[], options: CallOptions = {}): Promise<number> {
  let acknowledged = 0;
  for (let i = 0; i < ids.length; i += ACK_IDS) {
    const body = { ids: ids.slice(i, i + ACK_IDS) };
    const answer = await send(() => api.POST("/v1/results/ack", { body, signal: options.signal }), "all", options.retry, options.signal);
    acknowledged += answer.acknowledged;
  }
  return acknowledged;
}

/** One editor's decision: `{id, outcome: "approved" | "rejected", text?, reviewer?}`. */
export type Review = S["ReviewsIn"]["reviews"][number];

/**
 * Reports editors' decisions (`POST /v1/reviews`, 500 a request) and answers the totals:
 * `updated`, and `ignored` ids (unknown, superseded or not waiting for review). A repeated
 * review is ignored, so failures are retried.
 */
export async function review(api: TransyncClient, reviews: readonly Review[], options: CallOptions = {}): Promise<S["ReviewsOut"]> {
  const total: S["ReviewsOut"] = { updated: 0, ignored: [] };
  for (let i = 0; i < reviews.length; i += REVIEWS_PER_REQUEST) {
    const body = { reviews: reviews.slice(i, i + REVIEWS_PER_REQUEST) };
    const answer = await send(() => api.POST("/v1/reviews", { body, signal: options.signal }), "all", options.retry, options.signal);
    total.updated += answer.updated;
    total.ignored.push(...answer.ignored);
  }
  return total;
}

/**
 * The current segments (`{key, text}`, by position) of each unit the service knows, by unit
 * key, for `splitMarkdown(doc, { previous })` and `splitHtml(doc, { previous })`: with them an
 * edited block keeps its key (its translation becomes stale, not removed). One
 * `POST /v1/units/texts` per 100 keys (an extension of version 1); a unit the service does not
 * know (never pushed, or deleted) is absent from the map. A read, so failures are retried.
 */
export async function previousSegments(api: TransyncClient, keys: readonly string[], options: CallOptions = {}): Promise<Map<string, { key: string; text: string }[]>> {
  const out = new Map<string, { key: string; text: string }[]>();
  let pending = [...new Set(keys)];
  while (pending.length > 0) {
    const body = { keys: pending.slice(0, TEXTS_UNITS) };
    const answer = await send(() => api.POST("/v1/units/texts", { body, signal: options.signal }), "all", options.retry, options.signal);
    for (const unit of answer.units) out.set(unit.external_key, unit.segments);
    // Units left out of a large answer (`more`) are asked first in the next request.
    if (answer.more.length >= body.keys.length) throw new TransyncError(500, `POST /v1/units/texts answered none of ${body.keys.length} units`);
    pending = [...answer.more, ...pending.slice(body.keys.length)];
  }
  return out;
}
