// Keys aligned with the previous push: the kit's splitters give an edited block a new key (its
// key is a hash of its text). Paired with the block that vanished at the same place in the
// previous push, it keeps that block's key instead, so the service sees one changed segment
// (its translations turn stale and are redone) rather than one removed and one missing. The
// kit takes `previous` itself once it aligns keys (then every key already matches here and
// this changes nothing).
import type { Part, SplitSegment } from "./split-types";

export interface Previous {
  key: string;
  text: string;
}

const kindOf = (key: string) => key.split(".")[0];

/** The new key of each segment whose key is new, paired in order with a vanished previous key of the same kind between the same kept keys. */
export function alignedKeys(segments: readonly { key: string }[], previous: readonly Previous[]): Map<string, string> {
  const renames = new Map<string, string>();
  if (previous.length === 0) return renames;
  const now = new Set(segments.map((s) => s.key));
  const before = new Map(previous.map((p, i) => [p.key, i]));
  let at = 0; // the first previous segment not yet passed
  for (const segment of segments) {
    const was = before.get(segment.key);
    if (was !== undefined) {
      if (was >= at) at = was + 1;
      continue;
    }
    const candidate = previous[at];
    if (candidate && !now.has(candidate.key) && kindOf(candidate.key) === kindOf(segment.key) && ![...renames.values()].includes(candidate.key)) {
      renames.set(segment.key, candidate.key);
      at++;
    }
  }
  return renames;
}

/** The split with the given keys renamed, in its segments and in the parts a join fills. */
export function renameKeys<S extends { segments: SplitSegment[]; parts: Part[] }>(split: S, renames: Map<string, string>): S {
  if (renames.size === 0) return split;
  const to = (key: string) => renames.get(key) ?? key;
  return {
    ...split,
    segments: split.segments.map((s) => ({ ...s, key: to(s.key) })),
    parts: split.parts.map((p) => (typeof p === "string" ? p : { ...p, key: to(p.key) })),
  };
}
