/**
 * The connector's pushes (`PUT /v1/units`, `PUT /v1/units/batch`) as the Worker takes them, before
 * the site object applies them (src/site/sync/): the adapter check, and for a batch its body read
 * unit by unit (one bad unit must not refuse the others, so it is answered `ok: false` in its
 * place instead of a 422), the unchanged fast path, and the way the valid units travel to the
 * object (as JSON text over RPC, or through R2 when the body is large).
 */
import { createHash } from "node:crypto";
import { parseBatchUnit } from "../api/batch-unit";
import { validationDetail } from "../api/issues";
import { scanJsonText, type TextScan, withoutUnits } from "../api/json-text";
import { BatchEnvelope, type BatchItem, type SyncResult, type UnitSnapshot } from "../api/schemas";
import { batchPrefix } from "../control/erasure.control";
import type { SiteSettings } from "../control/sites.control";
import { invalid } from "../errors";
import { LIMITS } from "../limits";
import { type SiteApi, siteStub } from "../site/stub";

/** Why the site refuses the unit (its adapter is not enabled), or undefined. */
function adapterRefusal(site: SiteSettings, unit: UnitSnapshot): string | undefined {
  if (!site.enabledAdapters.includes(unit.adapter)) return `adapter "${unit.adapter}" is not enabled for this site (enabled: ${site.enabledAdapters.join(", ") || "none"})`;
}

/** One unit's snapshot applied; a unit whose adapter is not enabled is a 422. */
export async function pushUnit(env: Env, site: SiteSettings, unit: UnitSnapshot): Promise<SyncResult> {
  const stub = siteStub(env, site.id);
  const refusal = adapterRefusal(site, unit);
  if (refusal) throw invalid(refusal);
  return stub.pushUnit(site, unit);
}

/**
 * A batch's body (1 to 100 units), each unit applied on its own: one item per sent unit, in the
 * order sent. Only a body that is not `{units: [...]}` with 1 to 100 items is a 422.
 */
export async function pushBatch(env: Env, site: SiteSettings, bytes: ArrayBuffer): Promise<{ results: BatchItem[] }> {
  const stub = siteStub(env, site.id);
  const batch = readBatch(site, bytes);
  const digests = digestsOf(batch);
  const unchanged = await unchangedUnits(stub, batch, digests);
  const valid = validUnits(batch, unchanged, digests);
  if (valid.units.length) (await applyValid(env, stub, batch, valid)).forEach((item, j) => (batch.out[valid.slots[j]] = item));
  return { results: batch.out as BatchItem[] };
}

/** A batch as read, with its answer filled in unit by unit. */
interface Batch {
  site: SiteSettings;
  /** The body's size in bytes (a large one travels through R2). */
  bytes: number;
  text: string;
  scan: TextScan;
  /** The units as parsed; a unit refused by its text is null. */
  raws: unknown[];
  /** Indices of the units refused by their text (answered already). */
  refused: Set<number>;
  /** One item per sent unit, in the order sent. */
  out: (BatchItem | undefined)[];
}

/** The body measured and parsed (a 422 when it is not `{units: [...]}`), the units refused by their text answered in place. */
function readBatch(site: SiteSettings, bytes: ArrayBuffer): Batch {
  const text = new TextDecoder().decode(bytes);
  // Depth and width are measured on the text before it is parsed (src/api/json-text.ts): a unit
  // past them is left out of the parse and fails alone; nothing else reads it.
  const scan = scanJsonText(text, { batch: true });
  if (scan.problem) throw invalid(`${scan.problem.path} ${scan.problem.rule}`);
  const envelope = BatchEnvelope.safeParse(JSON.parse(withoutUnits(text, scan.refused)));
  if (!envelope.success) throw invalid(validationDetail(envelope.error));
  const batch: Batch = { site, bytes: bytes.byteLength, text, scan, raws: envelope.data.units, refused: new Set(), out: [] };
  for (const r of scan.refused) {
    // Left out as null; another `units` later in the body (the one JSON.parse keeps) is not this one.
    if (batch.raws[r.index] !== null) continue;
    batch.refused.add(r.index);
    batch.out[r.index] = { external_key: r.externalKey, ok: false, result: null, error: `${r.path} ${r.rule}` };
  }
  return batch;
}

/**
 * Each unit's digest, of its text as sent (the same text parses to the same unit), which costs
 * no JSON.stringify; a unit without a span (not an object) is stringified. "" for a refused unit.
 */
function digestsOf({ text, scan, raws, refused }: Batch): string[] {
  return raws.map((raw, i) => {
    if (refused.has(i)) return "";
    const span = scan.spans?.[i];
    return createHash("sha256")
      .update(span ? text.slice(span.start, span.end) : JSON.stringify(raw))
      .digest("base64");
  });
}

/**
 * The units whose snapshot is exactly the one last applied (same digest): validated then, they
 * change nothing now, so the object answers them as unchanged and they are neither validated nor
 * sent again. Only a key's first occurrence may be answered so (a later one comes after a push
 * of the same key): `first` is the index of each key's first occurrence.
 */
async function unchangedUnits(stub: SiteApi, { site, raws, refused }: Batch, digests: string[]) {
  const candidates: { external_key: string; digest: string }[] = [];
  const first = new Map<string, number>();
  raws.forEach((raw, i) => {
    const r = raw as { external_key?: unknown; adapter?: unknown };
    if (refused.has(i)) return;
    if (typeof r?.external_key !== "string" || first.has(r.external_key)) return;
    first.set(r.external_key, i);
    if (typeof r.adapter === "string" && site.enabledAdapters.includes(r.adapter as UnitSnapshot["adapter"])) candidates.push({ external_key: r.external_key, digest: digests[i] });
  });
  const results = new Map((await stub.pushUnchanged(site, candidates)).map((r) => [r.external_key, r]));
  return { first, results };
}

/** The units left validated: unchanged and invalid ones answered in place, the valid ones kept with their digests and places. */
function validUnits({ site, raws, refused, out }: Batch, unchanged: Awaited<ReturnType<typeof unchangedUnits>>, digests: string[]) {
  const valid = { units: [] as UnitSnapshot[], digests: [] as string[], slots: [] as number[] };
  raws.forEach((raw, i) => {
    if (refused.has(i)) return;
    const key = (raw as { external_key?: unknown })?.external_key;
    const externalKey = typeof key === "string" ? key.slice(0, LIMITS.unitKey) : "";
    const same = typeof key === "string" && unchanged.first.get(key) === i ? unchanged.results.get(key) : undefined;
    if (same) return void (out[i] = { external_key: externalKey, ok: true, result: same, error: null });
    const parsed = parseBatchUnit(raw);
    if (!parsed.success) return void (out[i] = { external_key: externalKey, ok: false, result: null, error: validationDetail(parsed.error, `units[${i}]`, raw) });
    const refusal = adapterRefusal(site, parsed.data);
    if (refusal) return void (out[i] = { external_key: externalKey, ok: false, result: null, error: `units[${i}].${refusal}` });
    valid.units.push(parsed.data);
    valid.digests.push(digests[i]);
    valid.slots.push(i);
  });
  return valid;
}

/** The valid units applied by the site object: sent as JSON text, or a large body through R2 (never over RPC). */
async function applyValid(env: Env, stub: SiteApi, { site, bytes }: Batch, valid: { units: UnitSnapshot[]; digests: string[] }): Promise<BatchItem[]> {
  const json = JSON.stringify({ units: valid.units, digests: valid.digests });
  if (bytes <= LIMITS.inlineBatchBytes) return stub.pushBatch(site, { json });
  // The site object deletes the R2 object once applied.
  const blobKey = `${batchPrefix(site.id)}${crypto.randomUUID()}.json`;
  await env.BLOBS.put(blobKey, json, { httpMetadata: { contentType: "application/json" } });
  try {
    return await stub.pushBatch(site, { blobKey });
  } finally {
    // If anything failed on the way, the customer's content must not stay behind.
    await env.BLOBS.delete(blobKey).catch(() => undefined);
  }
}
