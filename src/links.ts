import { log } from "./obs/log";

/**
 * The base of dashboard links (`dashboard_url`, `attention_url`, invitation links): the
 * DASHBOARD_URL var when set, else this Worker's own `/dashboard` (so links handed to
 * connectors open locally in development).
 */
export function dashboardBase(c: { env: Env; req: { url: string } }): string {
  return (c.env.DASHBOARD_URL || `${new URL(c.req.url).origin}/dashboard`).replace(/\/+$/, "");
}

/** A loopback host: local development (`npm run dev`, the e2e server). */
export const isLoopbackHost = (hostname: string) => ["127.0.0.1", "localhost", "[::1]"].includes(hostname) || hostname.endsWith(".localhost");

/**
 * The base of links in mails: DASHBOARD_URL. Without it, only local development (a request to a
 * loopback host) uses this Worker's own `/dashboard`; anywhere else this answers null and logs
 * an error, and the caller sends no mail: a link must never follow a request's `Host` header.
 */
export function mailBase(c: { env: Env; req: { url: string } }, requestId?: string): string | null {
  if (c.env.DASHBOARD_URL) return c.env.DASHBOARD_URL.replace(/\/+$/, "");
  const url = new URL(c.req.url);
  if (isLoopbackHost(url.hostname)) return `${url.origin}/dashboard`;
  log("error", "mail.no_dashboard_url", { request_id: requestId, reason: "DASHBOARD_URL is not set; mail links are not taken from the request's Host" });
  return null;
}
