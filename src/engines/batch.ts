// Splitting work into upstream requests that fit an engine's per-request limits.
import type { EngineLimits } from "./types";

/** Length in Unicode code points (how Google and Azure count characters). */
export function codePointLength(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    // A high surrogate followed by a low one is one code point.
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    n++;
  }
  return n;
}

const encoder = new TextEncoder();

/** Length in UTF-8 bytes. */
export function utf8Length(text: string): number {
  return encoder.encode(text).length;
}

/** A second bound on a batch besides the engine's limits: e.g. a prompt's texts and their context together. */
export interface ExtraBound<T> {
  size: (item: T) => number;
  max: number;
}

/**
 * Splits items into consecutive groups of at most `limits.maxSegments` items whose sizes
 * sum to at most `limits.maxCharacters` (and whose `extra` sizes sum to at most `extra.max`),
 * keeping their order. An item larger than a limit on its own goes alone (the engine decides
 * whether it accepts it).
 */
export function splitBatches<T>(items: readonly T[], limits: EngineLimits, size: (item: T) => number = (item) => codePointLength(String(item)), extra?: ExtraBound<T>): T[][] {
  const batches: T[][] = [];
  let current: T[] = [];
  let used = 0;
  let usedExtra = 0;
  for (const item of items) {
    const n = size(item);
    const e = extra ? extra.size(item) : 0;
    const full = current.length >= limits.maxSegments || used + n > limits.maxCharacters || (extra !== undefined && usedExtra + e > extra.max);
    if (current.length > 0 && full) {
      batches.push(current);
      current = [];
      used = 0;
      usedExtra = 0;
    }
    current.push(item);
    used += n;
    usedExtra += e;
  }
  if (current.length > 0) batches.push(current);
  return batches;
}

/**
 * Maps with at most `limit` calls in flight, results in input order. After the first
 * failure no new call starts; the first error is thrown once running calls have settled.
 */
export async function mapWithConcurrency<T, R>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  let failure: { error: unknown } | undefined;
  const worker = async () => {
    while (!failure && next < items.length) {
      const index = next++;
      try {
        results[index] = await fn(items[index], index);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  const workers = Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker);
  await Promise.all(workers);
  if (failure) throw failure.error;
  return results;
}
