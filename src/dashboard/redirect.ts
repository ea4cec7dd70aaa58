/**
 * Where a form field or a link may send the browser next (`back` in the review queue, `next`
 * on sign-in, sign-out and invitations): only a path of this dashboard, on this origin.
 *
 * Handlers read the target BEFORE they act, so a bad value can never leave a decision applied
 * and audited behind a failed answer. A value with a control character (C0, DEL or C1: what
 * would split or corrupt the `Location` header) is refused with a 400; any other value that
 * is not a dashboard path (another site, `//host`, `/v1/…`, `/dashboard/../x`) falls back to
 * the handler's default, as an outside link deserves no error page of ours.
 */
import { ApiError } from "../errors";

const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const BASE = "https://dashboard.invalid";

/**
 * The normalized dashboard path (`/dashboard…` with its query and fragment, ASCII only: the URL parser
 * percent-encodes the rest), or null when `raw` is empty or not a dashboard path.
 * Throws a 400 naming `field` when `raw` holds a control character.
 */
export function dashboardTarget(raw: string, field: string): string | null {
  if (CONTROL.test(raw)) throw new ApiError(400, `${field}: the address to return to contains control characters, so it was refused. Go back and try again.`);
  return dashboardPath(raw);
}

/** The same test without the 400: a control character makes the value unusable (null). For links on pages, never for redirects after an action. */
export function dashboardPath(raw: string): string | null {
  if (!raw || raw.length > 2000 || CONTROL.test(raw) || raw.includes("\\")) return null;
  if (!/^\/dashboard(\/|\?|$)/.test(raw)) return null;
  let url: URL;
  try {
    url = new URL(raw, BASE);
  } catch {
    return null;
  }
  // After the parser resolved `..` and `%2e%2e`: still this origin, still the dashboard.
  if (url.origin !== BASE || !(url.pathname === "/dashboard" || url.pathname.startsWith("/dashboard/"))) return null;
  // The fragment too: an invitation's page comes back to its link, whose token rides there (one-time-links.tsx).
  return url.pathname + url.search + url.hash;
}

/** `path` with `done=<code>` added to its query (before a fragment). */
export function withDone(path: string, done: string) {
  const hash = path.indexOf("#");
  const [head, fragment] = hash < 0 ? [path, ""] : [path.slice(0, hash), path.slice(hash)];
  return `${head}${head.includes("?") ? "&" : "?"}done=${done}${fragment}`;
}
