/**
 * Local development's switches are honoured only where development happens (docs/decisions.md "Going
 * live", local-only switches): `DEV_MAILBOX=true` keeps every mail in D1 and shows it, reset links
 * included, at /dashboard/dev/mail, so a production Worker deployed with it by mistake must neither
 * show the page nor stop sending. A host is local when it is loopback (`localhost`, `*.localhost`,
 * 127.0.0.0/8, `::1`) or under the `.test` top-level domain, which RFC 6761 reserves for testing
 * (no public request can carry it; the test pool's requests use it). The host is the request's
 * (kept for the request's duration); without a request (a cron, a queue batch) it is DASHBOARD_URL's,
 * the address the service says it lives at, and local when unset (local development).
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { log } from "./obs/log";

const requestHost = new AsyncLocalStorage<string>();

/** Runs `fn` with the request's host known to everything it calls (the mail sender among them). */
export const withRequestHost = <T>(host: string, fn: () => T): T => requestHost.run(host, fn);

export function isLocalHost(hostname: string): boolean {
  const host = hostname
    .toLowerCase()
    .replace(/^\[|\]$/g, "")
    .replace(/\.$/, "");
  return host === "localhost" || host.endsWith(".localhost") || /^127(\.\d{1,3}){3}$/.test(host) || host === "::1" || host === "test" || host.endsWith(".test");
}

/** The host the current work is done for: the request's, else DASHBOARD_URL's, else null (local development). */
function currentHost(env: Env): string | null {
  const host = requestHost.getStore();
  if (host) return host;
  try {
    return env.DASHBOARD_URL ? new URL(env.DASHBOARD_URL).hostname : null;
  } catch {
    return null;
  }
}

let warned = false;

/** Whether DEV_MAILBOX=true applies now; set but refused, it is logged once per isolate (an `error`: the configuration is wrong). */
export function devMailboxOn(env: Env): boolean {
  if (env.DEV_MAILBOX !== "true") return false;
  const host = currentHost(env);
  if (host === null || isLocalHost(host)) return true;
  if (!warned) {
    warned = true;
    log("error", "config.dev_flag_ignored", { flag: "DEV_MAILBOX", host });
  }
  return false;
}
