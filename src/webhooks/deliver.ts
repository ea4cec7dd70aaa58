/**
 * One attempt of one delivery: the address checked again (an endpoint stored before today's
 * rule may point inside a network), signed with the endpoint's secrets as they are now, POSTed
 * with a 10-second timeout, redirects not followed, the answer's body never read. The log
 * records the attempt with the status code and a fixed reason, never what the receiver said
 * (it would turn the log into a reader of internal services); the answer says whether and when
 * to try again.
 */
import type { ControlDb } from "../control/db";
import { failDelivery, findDelivery, findEndpoint, recordAttempt, recordEndpointOutcome } from "../control/webhooks.control";
import { type MetricsSink, record } from "../obs/metrics";
import { DELIVERY, nextDelaySeconds, retryable } from "./policy";
import { signatureHeaders } from "./signing";
import { destinationProblem } from "./url";

export interface DeliverDeps {
  db: ControlDb;
  fetch: typeof fetch;
  now: () => number;
  /** DELIVERY.timeoutMs unless a test shortens it. */
  timeoutMs?: number;
  /** Where `webhook.delivery` data points go (the METRICS binding). */
  metrics?: MetricsSink;
  /** Loopback addresses may receive (WEBHOOK_ALLOW_LOOPBACK, local development); false unless given. */
  allowLoopback?: boolean;
}

/** The delivery log's reasons: fixed words, so the log tells nothing of the receiver but its status code. */
export const REASONS = {
  refused: "destination not allowed",
  timeout: "timeout",
  connection: "connection failed",
  redirect: "redirect not followed",
  http: (status: number) => `HTTP ${status}`,
} as const;

/** Seconds until the next attempt, or null when the delivery is settled (delivered, failed or gone). */
export type AttemptOutcome = { retryInSeconds: number } | null;

export async function attempt(deps: DeliverDeps, id: string): Promise<AttemptOutcome> {
  const delivery = await findDelivery(deps.db, id);
  if (delivery?.status !== "pending") return null;
  const endpoint = await findEndpoint(deps.db, delivery.siteId);
  if (!endpoint) {
    await failDelivery(deps.db, id, "The webhook endpoint was removed.");
    return null;
  }
  if (endpoint.disabledAt) {
    await failDelivery(deps.db, id, "The webhook endpoint is disabled.");
    return null;
  }

  if (destinationProblem(endpoint.url, deps.allowLoopback ?? false)) {
    // Final: the same address is refused on every attempt. Counted as a failure, so an endpoint left so is disabled in time.
    await recordAttempt(deps.db, id, { status: "failed", statusCode: null, durationMs: 0, error: REASONS.refused, nextAttemptAt: null });
    await recordEndpointOutcome(deps.db, delivery.siteId, false, new Date(deps.now()), DELIVERY.disableAfterMs);
    return null;
  }

  const started = deps.now();
  const { statusCode, error } = await post(
    deps,
    endpoint.url,
    {
      "content-type": "application/json",
      "user-agent": "Transync-Webhooks/1",
      ...signatureHeaders(endpoint, id, new Date(started), delivery.payload),
    },
    delivery.payload,
  );
  const ended = deps.now();
  const ok = statusCode !== null && statusCode >= 200 && statusCode < 300;
  const attempts = delivery.attempts + 1;
  const delay = ok || !retryable(statusCode) ? null : nextDelaySeconds(attempts);
  await recordAttempt(deps.db, id, {
    status: ok ? "delivered" : delay === null ? "failed" : "pending",
    statusCode,
    durationMs: Math.max(0, Math.round(ended - started)),
    error: ok ? null : error,
    nextAttemptAt: delay === null ? null : new Date(ended + delay * 1000).toISOString(),
  });
  await recordEndpointOutcome(deps.db, delivery.siteId, ok, new Date(ended), DELIVERY.disableAfterMs);
  record({ METRICS: deps.metrics }, ok ? "info" : "warn", "webhook.delivery", {
    site_id: delivery.siteId,
    delivery_id: id,
    status: ok ? "delivered" : delay === null ? "failed" : "pending",
    code: statusCode ?? "network",
    attempts,
    ms: Math.max(0, Math.round(ended - started)),
  });
  return delay === null ? null : { retryInSeconds: delay };
}

/** The HTTP exchange; never throws. `error` is null after a 2xx. */
async function post(deps: DeliverDeps, url: string, headers: Record<string, string>, body: string): Promise<{ statusCode: number | null; error: string | null }> {
  const timeoutMs = deps.timeoutMs ?? DELIVERY.timeoutMs;
  try {
    const response = await deps.fetch(url, { method: "POST", headers, body, redirect: "manual", signal: AbortSignal.timeout(timeoutMs) });
    await response.body?.cancel().catch(() => {});
    if (response.status >= 200 && response.status < 300) return { statusCode: response.status, error: null };
    const reason = response.status >= 300 && response.status < 400 ? `${REASONS.http(response.status)} (${REASONS.redirect})` : REASONS.http(response.status);
    return { statusCode: response.status, error: reason };
  } catch (err) {
    const name = (err as Error)?.name;
    if (name === "TimeoutError" || name === "AbortError") return { statusCode: null, error: REASONS.timeout };
    return { statusCode: null, error: REASONS.connection };
  }
}
