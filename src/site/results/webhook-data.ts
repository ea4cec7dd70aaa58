/**
 * The data of the coalesced webhook events, read from the site's state when they go out
 * (src/webhooks/events.ts): what is ready to pull, and what QA holds back.
 */
import type { AttentionCreated, ResultsAvailable } from "../../api/webhook.schemas";
import type { Store } from "../store";
import type { Links } from "../sync/status";
import { DELIVERABLE, listAttention, WAITING_DECISION } from "./results";

/** The meta key of the newest result a `results.available` event has announced (its numeric id). */
export const ANNOUNCED_META = "webhook.results_announced";

/**
 * Results `listResults` would list now, and their languages, for a `results.available` event:
 * null (no event) unless a deliverable result is newer than the ones the last event announced,
 * so one batch of results is announced once. Two compose messages of one burst (the 10-second
 * window's first and last, src/webhooks/publish.ts) both read the same results when a job's
 * commits land before the first is sent: only the first becomes a delivery.
 */
export function resultsAvailable(store: Store): ResultsAvailable | null {
  const rows = store.all<{ language: string; n: number; newest: number }>(
    `SELECT r.language, COUNT(*) AS n, MAX(r.id) AS newest FROM results r JOIN segments s ON s.id = r.segment_id JOIN units u ON u.id = r.unit_id
     WHERE ${DELIVERABLE} GROUP BY r.language ORDER BY r.language`,
  );
  const newest = rows.reduce((max, r) => Math.max(max, r.newest), 0);
  if (newest <= (store.getMeta<number>(ANNOUNCED_META) ?? 0)) return null;
  store.setMeta(ANNOUNCED_META, newest);
  return { pending: rows.reduce((sum, r) => sum + r.n, 0), languages: rows.map((r) => r.language) };
}

/** Translations held back and waiting for a decision: how many, and the first 20 as `listAttention` shows them. */
export function attentionCreated(store: Store, links: Links): AttentionCreated {
  const count =
    store.one<{ n: number }>(`SELECT COUNT(*) AS n FROM results r JOIN segments s ON s.id = r.segment_id JOIN units u ON u.id = r.unit_id WHERE r.held = 1 AND ${WAITING_DECISION}`)
      ?.n ?? 0;
  return { count, items: listAttention(store, links, { limit: 20 }).items };
}
