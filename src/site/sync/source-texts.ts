/**
 * POST /v1/units/texts: the current source texts of up to 100 units in one read, so a connector
 * that splits documents lines its new blocks up with the unit's segments (keys that follow edits)
 * without a database of its own: one call per 100 changed files, not one per file.
 */
import { LIMITS } from "../../limits";
import type { Store } from "../store";

export interface SourceTexts {
  units: { external_key: string; segments: { key: string; text: string }[] }[];
  unknown: string[];
  more: string[];
}

/**
 * The units' segments (key and source text, in position order), in the order asked. Unknown
 * and deleted units are listed in `unknown`. An answer carries at most LIMITS.sourceTextsChars
 * characters of text (the first unit always, whole): the units after that are listed in `more`,
 * to be asked again. Two reads: the units' text sizes, then the segments of those that fit.
 */
export function sourceTexts(store: Store, keys: readonly string[], maxChars: number = LIMITS.sourceTextsChars): SourceTexts {
  const asked = [...new Set(keys)];
  const sizes = store.all<{ id: number; external_key: string; chars: number }>(
    `SELECT u.id, u.external_key, COALESCE((SELECT SUM(length(s.text)) FROM segments s WHERE s.unit_id = u.id AND s.removed = 0), 0) AS chars
     FROM units u WHERE u.external_key IN (SELECT value FROM json_each(?)) AND u.deleted = 0`,
    JSON.stringify(asked),
  );
  const byKey = new Map(sizes.map((u) => [u.external_key, u]));
  const unknown = asked.filter((k) => !byKey.has(k));
  const answered: typeof sizes = [];
  const more: string[] = [];
  let chars = 0;
  for (const key of asked) {
    const unit = byKey.get(key);
    if (!unit) continue;
    if (more.length || (answered.length && chars + unit.chars > maxChars)) {
      more.push(key);
      continue;
    }
    chars += unit.chars;
    answered.push(unit);
  }
  const segments = store.all<{ unit_id: number; key: string; text: string }>(
    "SELECT unit_id, key, text FROM segments WHERE unit_id IN (SELECT value FROM json_each(?)) AND removed = 0 ORDER BY unit_id, position, id",
    JSON.stringify(answered.map((u) => u.id)),
  );
  const byUnit = new Map<number, { key: string; text: string }[]>(answered.map((u) => [u.id, []]));
  for (const s of segments) byUnit.get(s.unit_id)?.push({ key: s.key, text: s.text });
  return { units: answered.map((u) => ({ external_key: u.external_key, segments: byUnit.get(u.id) ?? [] })), unknown, more };
}
