/**
 * The texts behind one unit's segment × language matrix (the dashboard's unit page): each
 * segment's source, and per language the text the website has (translations) or, for a
 * translation held back by QA, the held text waiting in the review queue. States and QA
 * findings come from `unitStatus`; this adds only the words.
 */
import { notFound } from "../../errors";
import type { Store } from "../store";

export interface UnitTexts {
  segments: { key: string; format: string; source: string; translations: Record<string, { text: string; origin: string | null; held: boolean }> }[];
}

export function unitTexts(store: Store, externalKey: string): UnitTexts {
  const unit = store.one<{ id: number }>("SELECT id FROM units WHERE external_key = ? AND deleted = 0", externalKey);
  if (!unit) throw notFound(`Unit ${externalKey}`);
  const segs = store.all<{ id: number; key: string; format: string; text: string }>(
    "SELECT id, key, format, text FROM segments WHERE unit_id = ? AND removed = 0 ORDER BY position, id",
    unit.id,
  );
  const texts = store.all<{ segment_id: number; language: string; text: string | null; origin: string | null; held: number }>(
    `SELECT t.segment_id, t.language, t.text, t.origin, 0 AS held FROM translations t JOIN segments s ON s.id = t.segment_id
     WHERE s.unit_id = ?1 AND s.removed = 0 AND t.text IS NOT NULL
     UNION ALL
     SELECT r.segment_id, r.language, r.text, r.origin, 1 AS held FROM results r
     WHERE r.unit_id = ?1 AND r.held = 1 AND r.superseded = 0`,
    unit.id,
  );
  const bySegment = new Map<number, UnitTexts["segments"][number]["translations"]>();
  for (const t of texts) {
    const cell = bySegment.get(t.segment_id) ?? {};
    // A held text wins over the website's older one: it is what waits for a decision.
    if (t.text !== null && (t.held || !cell[t.language])) cell[t.language] = { text: t.text, origin: t.origin, held: !!t.held };
    bySegment.set(t.segment_id, cell);
  }
  return { segments: segs.map((s) => ({ key: s.key, format: s.format, source: s.text, translations: bySegment.get(s.id) ?? {} })) };
}
