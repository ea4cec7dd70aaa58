/**
 * The base of dashboard links (`dashboard_url`, `attention_url`, invitation links): the
 * DASHBOARD_URL var when set, else this Worker's own `/dashboard` (so links handed to
 * connectors open locally in development).
 */
export function dashboardBase(c: { env: Env; req: { url: string } }): string {
  return (c.env.DASHBOARD_URL || `${new URL(c.req.url).origin}/dashboard`).replace(/\/+$/, "");
}
