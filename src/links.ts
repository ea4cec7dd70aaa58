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
 * loopback host) uses this Worker's own `/dashboard`; anywhere else this answers null and the
 * operation sends no mail (logging `mail.no_dashboard_url`: src/mail/send.ts): a link must never
 * follow a request's `Host` header.
 */
export function mailBase(c: { env: Env; req: { url: string } }): string | null {
  if (c.env.DASHBOARD_URL) return c.env.DASHBOARD_URL.replace(/\/+$/, "");
  const url = new URL(c.req.url);
  return isLoopbackHost(url.hostname) ? `${url.origin}/dashboard` : null;
}
