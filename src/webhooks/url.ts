/**
 * Where deliveries may go. The schema (`WebhookUrl`) already holds the rules that never vary
 * (absolute, http or https, no credentials, ≤ 2,000 characters); this adds the deployment's:
 * `https://` only, except plain `http://` to this machine when WEBHOOK_ALLOW_LOOPBACK is
 * `true` (local development against `wrangler dev`; never set in production).
 */
import { invalid } from "../errors";

const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]"]);

export const loopbackAllowed = (env: Pick<Env, "WEBHOOK_ALLOW_LOOPBACK">) => env.WEBHOOK_ALLOW_LOOPBACK === "true";

/** Throws a 422 naming `url` when the address is not allowed here. */
export function checkWebhookUrl(value: string, allowLoopback: boolean): void {
  const url = new URL(value);
  if (url.protocol === "https:") return;
  if (LOOPBACK.has(url.hostname)) {
    if (allowLoopback) return;
    throw invalid("url: must use https:// (plain http:// to a loopback host is allowed only when WEBHOOK_ALLOW_LOOPBACK is true, for local development)");
  }
  throw invalid("url: must use https://");
}
