/**
 * A batch push (`PUT /v1/units/batch`) as the site object applies it: the body read (from the
 * RPC call or from R2), then every valid unit applied, each on its own, so a unit that fails is
 * reported and the others go on.
 */
import type { BatchItem, UnitSnapshot } from "../../api/schemas";
import { batchPrefix } from "../../control/erasure.control";
import type { SiteSettings } from "../../control/sites.control";
import { log, redactError } from "../../obs/log";
import type { Store } from "../store";
import { type CountSink, flushCounts, mergeCounts } from "./counts";
import { PushWrites } from "./push-writes";
import { applySnapshot, knownUnits, pushUnit } from "./sync";

/** A batch's valid units (validated by the Worker) and the digests of their snapshots as sent. */
export interface PushedBatch {
  units: UnitSnapshot[];
  digests?: string[];
}

/**
 * How a batch crosses to the object: as JSON text (`json`: a string crosses RPC as one copy,
 * where the structured clone of 5,000 segment objects cost about 8 ms on each side), or, for a
 * large body, as the key of an R2 object the Worker wrote (deleted once applied).
 */
export type BatchBody = PushedBatch | { json: string } | { blobKey: string };

/** The batch's units and digests, and the bytes they will take once stored (about the size of their JSON). */
export async function readBatch(env: Env, settings: SiteSettings, batch: BatchBody): Promise<PushedBatch & { bytes: number }> {
  if ("blobKey" in batch) {
    // Only this site's own prefix: a key naming another site's body is a bug, never served.
    if (!batch.blobKey.startsWith(batchPrefix(settings.id))) throw new Error(`batch body key outside ${batchPrefix(settings.id)} refused`);
    const object = await env.BLOBS.get(batch.blobKey);
    if (!object) throw new Error(`batch body ${batch.blobKey} is missing from R2`);
    const body = (await object.json()) as PushedBatch;
    return { ...body, bytes: JSON.stringify(body.units).length };
  }
  if ("json" in batch) return { ...(JSON.parse(batch.json) as PushedBatch), bytes: batch.json.length };
  return { ...batch, bytes: JSON.stringify(batch.units).length };
}

/** Every unit of the batch applied: in one transaction when all of them apply, otherwise unit by unit. */
export function applyBatch(store: Store, settings: SiteSettings, { units, digests }: PushedBatch): BatchItem[] {
  return applyTogether(store, settings, units, digests) ?? applyEach(store, settings, units, digests);
}

/**
 * The whole batch in one transaction, or undefined (and nothing written) if any unit fails.
 * One transaction rather than one per unit: in a transaction nested in another, SQLite
 * journals every page it changes that existed before it began, so each unit would copy
 * again the index pages its predecessors wrote (segments are indexed by fingerprint, so
 * they land all over the index); for a first push of 100 × 50 that cost about as much as a
 * third of the inserts themselves. The result is the same as unit by unit: units apply in
 * order, each seeing the ones before it.
 */
function applyTogether(store: Store, settings: SiteSettings, units: UnitSnapshot[], digests: string[] | undefined): BatchItem[] | undefined {
  try {
    return store.tx(() => {
      const sums: CountSink = new Map();
      const writes = new PushWrites(store);
      const known = knownUnits(
        store,
        units.map((unit) => unit.external_key),
      );
      const items = units.map((unit, i): BatchItem => {
        const result = applySnapshot(store, settings, unit, digests?.[i] ?? null, sums, writes, known);
        return { external_key: unit.external_key, ok: true, result, error: null };
      });
      writes.flush();
      flushCounts(store, sums);
      return items;
    });
  } catch (err) {
    log("warn", "push.batch_failed", { error: redactError(err) });
    return undefined;
  }
}

/**
 * The batch unit by unit, each in its own transaction: a unit that fails is reported and the
 * others go on. The site and key-type sums are written once for the batch: each unit's
 * differences join the batch's only once its own transaction committed.
 */
function applyEach(store: Store, settings: SiteSettings, units: UnitSnapshot[], digests: string[] | undefined): BatchItem[] {
  const sums: CountSink = new Map();
  const results = units.map((unit, i): BatchItem => {
    const unitSums: CountSink = new Map();
    try {
      const result = pushUnit(store, settings, unit, digests?.[i] ?? null, unitSums);
      mergeCounts(sums, unitSums);
      return { external_key: unit.external_key, ok: true, result, error: null };
    } catch (err) {
      log("error", "push.unit_failed", { error: redactError(err) });
      return { external_key: unit.external_key, ok: false, result: null, error: "The unit could not be stored; retry it. If it keeps failing, contact support." };
    }
  });
  store.tx(() => flushCounts(store, sums));
  return results;
}
