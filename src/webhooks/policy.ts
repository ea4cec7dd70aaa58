/**
 * How webhooks are delivered (docs/decisions.md "Webhooks"): one table of the numbers, and the rule
 * that says which answers are worth another attempt.
 */
const SECOND = 1_000;
const HOUR = 3_600 * SECOND;

export const DELIVERY = {
  /** An attempt waits this long for the response's head, then counts as a timeout. */
  timeoutMs: 10 * SECOND,
  /**
   * Delays before the 2nd, 3rd … attempt (seconds): the Standard Webhooks schedule. Together
   * 27.6 hours, so a failing delivery is retried for at least 24 hours; each is inside the
   * Queue's 12-hour limit for `retry({delaySeconds})`.
   */
  retryDelaysSeconds: [5, 5 * 60, 30 * 60, 2 * 3600, 5 * 3600, 10 * 3600, 10 * 3600],
  /** An endpoint whose attempts have failed (no success in between) for this long is disabled. */
  disableAfterMs: 72 * HOUR,
  /** `results.available` and `attention.created`: at most one per site in this window. */
  coalesceMs: 10 * SECOND,
  /** After a rotation the previous secret signs too, this long. */
  rotationOverlapMs: 24 * HOUR,
} as const;

/**
 * Another attempt is worth it after a network error or a timeout (`status` null), 429 and
 * 5xx. Any other answer is final: a 4xx says the receiver refuses this delivery, and a 3xx
 * is a redirect this service does not follow (the endpoint's URL should be updated instead).
 */
export const retryable = (status: number | null) => status === null || status === 429 || status >= 500;

/** The delay before the attempt after `attempts` failed ones, or null when none is left. */
export function nextDelaySeconds(attempts: number): number | null {
  return DELIVERY.retryDelaysSeconds[attempts - 1] ?? null;
}
