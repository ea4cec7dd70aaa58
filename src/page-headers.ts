/**
 * The security headers of the service's HTML pages: the dashboard and the API reference
 * (/v1/docs) share an origin, so they share one definition. Each page brings its own
 * Content-Security-Policy; framing, sniffing and referrers are the same everywhere.
 */
import type { Context } from "hono";

/** The parts of every page's CSP: nothing by default, no framing, no `<base>`, forms to this origin only. */
const CSP_BASE = "default-src 'none'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

/** The dashboard: its own stylesheet and images, no script at all, no inline styles. */
export const DASHBOARD_CSP = "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

/** The page a one-time link opens: the dashboard's, plus its one script from this origin (public/dashboard-link.js reads the link's fragment). */
export const LINK_PAGE_CSP = `${DASHBOARD_CSP}; script-src 'self'`;

/**
 * The API reference (Scalar, from public/vendor/scalar/): its bundle and the page's one inline
 * configuration script (by nonce); the styles Scalar writes into the page at run time (inline,
 * which CSP cannot tell apart by nonce); the document and "Try it" requests to this origin.
 */
export const docsCsp = (nonce: string) =>
  `${CSP_BASE}; script-src 'self' 'nonce-${nonce}'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; font-src 'self' data:; connect-src 'self'`;

export function setPageHeaders(c: Context, csp: string) {
  c.header("Content-Security-Policy", csp);
  c.header("X-Content-Type-Options", "nosniff");
  c.header("Referrer-Policy", "same-origin");
  c.header("X-Frame-Options", "DENY");
}
