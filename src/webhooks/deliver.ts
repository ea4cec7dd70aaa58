/**
 * One attempt of one delivery: signed with the endpoint's secrets as they are now, POSTed
 * with a 10-second timeout, redirects not followed, the answer's body read no further than
 * 1 KB. The log records the attempt; the answer says whether and when to try again.
 */
import type { ControlDb } from "../control/db";
import { failDelivery, findDelivery, findEndpoint, recordAttempt, recordEndpointOutcome } from "../control/webhooks";
import { type MetricsSink, record } from "../obs/metrics";
import { DELIVERY, nextDelaySeconds, retryable } from "./policy";
import { signatureHeaders } from "./signing";

export interface DeliverDeps {
  db: ControlDb;
  fetch: typeof fetch;
  now: () => number;
  /** DELIVERY.timeoutMs unless a test shortens it. */
  timeoutMs?: number;
  /** Where `webhook.delivery` data points go (the METRICS binding). */
  metrics?: MetricsSink;
}

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
    const text = await readAtMost(response, DELIVERY.responseBytes);
    if (response.status >= 200 && response.status < 300) return { statusCode: response.status, error: null };
    const reason = response.status >= 300 && response.status < 400 ? `redirect to ${response.headers.get("location") ?? "?"} (not followed)` : `HTTP ${response.status}`;
    return { statusCode: response.status, error: text ? `${reason}: ${text}` : reason };
  } catch (err) {
    const name = (err as Error)?.name;
    if (name === "TimeoutError" || name === "AbortError") return { statusCode: null, error: `timed out after ${timeoutMs / 1000} s` };
    return { statusCode: null, error: `network error: ${(err as Error)?.message ?? String(err)}` };
  }
}

/** The body's first `limit` bytes as text; the rest is never read (the stream is cancelled). */
export async function readAtMost(response: Response, limit: number): Promise<string> {
  if (!response.body) return "";
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < limit) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value.subarray(0, limit - size));
      size += Math.min(value.byteLength, limit - size);
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const c of chunks) {
    bytes.set(c, offset);
    offset += c.byteLength;
  }
  return new TextDecoder().decode(bytes).trim();
}
