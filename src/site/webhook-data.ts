/**
 * The data of the coalesced webhook events, read from the site's state when they go out
 * (src/webhooks/events.ts): what is ready to pull, and what QA holds back.
 */
import type { AttentionCreated, ResultsAvailable } from "../api/webhook.schemas";
import { DELIVERABLE, listAttention, WAITING_DECISION } from "./results";
import type { Links } from "./status";
import type { Store } from "./store";

/** Results `listResults` would list now, and their languages. */
export function resultsAvailable(store: Store): ResultsAvailable {
  const rows = store.all<{ language: string; n: number }>(
    `SELECT r.language, COUNT(*) AS n FROM results r JOIN segments s ON s.id = r.segment_id JOIN units u ON u.id = r.unit_id
     WHERE ${DELIVERABLE} GROUP BY r.language ORDER BY r.language`,
  );
  return { pending: rows.reduce((sum, r) => sum + r.n, 0), languages: rows.map((r) => r.language) };
}

/** Translations held back and waiting for a decision: how many, and the first 20 as `listAttention` shows them. */
export function attentionCreated(store: Store, links: Links): AttentionCreated {
  const count =
    store.one<{ n: number }>(`SELECT COUNT(*) AS n FROM results r JOIN segments s ON s.id = r.segment_id JOIN units u ON u.id = r.unit_id WHERE r.held = 1 AND ${WAITING_DECISION}`)
      ?.n ?? 0;
  return { count, items: listAttention(store, links, { limit: 20 }).items };
}
