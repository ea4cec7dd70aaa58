/**
 * Where deliveries may go (docs/decisions.md "Webhooks"). The schema (`WebhookUrl`) holds the rules that never vary (absolute, http or https,
 * no credentials, ≤ 2,000 characters); this adds where the address points: a public name or a
 * public IP over `https://`. The one check for both doors (the API and the dashboard) and for
 * every delivery attempt, so an address stored before the rule is refused too.
 *
 * The WHATWG parser (`new URL`, as workerd runs it) has already turned decimal, hex, octal,
 * short and full-width IPv4 forms into dotted decimal and compressed IPv6 (test/webhooks/url.test.ts
 * proves each form), so the host is a dotted IPv4, a bracketed IPv6 or a name here.
 *
 * Out of reach: a public name whose DNS answer is a private address. Workers cannot resolve a
 * name before `fetch`, and Cloudflare's network does not route deliveries into a private network.
 */
import ipaddr from "ipaddr.js";
import { invalid } from "../errors";

/** Names that are never public: this machine, private zones, cloud metadata services. */
const PRIVATE_SUFFIXES = [".localhost", ".internal", ".local", ".localdomain", ".home.arpa"];
const PRIVATE_NAMES = new Set(["localhost", "metadata", "instance-data", "metadata.google.internal"]);

/** ipaddr.js's range names, in words; every range but `unicast` is refused. */
const RANGE_WORDS: Record<string, string> = {
  loopback: "loopback",
  private: "private",
  linkLocal: "link-local",
  carrierGradeNat: "shared (CGNAT)",
  uniqueLocal: "unique-local",
  unspecified: "unspecified",
  multicast: "multicast",
  broadcast: "broadcast",
  reserved: "reserved or documentation",
  ipv4Mapped: "IPv4-mapped",
  rfc6145: "IPv4-translated",
  rfc6052: "NAT64",
};

/**
 * `true` only when WEBHOOK_ALLOW_LOOPBACK is `true` and the request came to a loopback host
 * (docs/decisions.md "Webhooks": a development flag left on in production changes nothing there).
 * `requestUrl` is absent at delivery time, where the flag alone decides (an address reaches
 * the log only through a door that checked the host).
 */
export function loopbackAllowed(env: Pick<Env, "WEBHOOK_ALLOW_LOOPBACK">, requestUrl?: string): boolean {
  if (env.WEBHOOK_ALLOW_LOOPBACK !== "true") return false;
  if (requestUrl === undefined) return true;
  return isLoopbackHost(new URL(requestUrl).hostname);
}

function bare(hostname: string): string {
  const h = hostname.toLowerCase();
  return (h.startsWith("[") ? h.slice(1, -1) : h).replace(/\.$/, "");
}

function isLoopbackHost(hostname: string): boolean {
  const host = bare(hostname);
  if (host === "localhost") return true;
  return ipaddr.isValid(host) && ipaddr.parse(host).range() === "loopback";
}

/** Why the host of `url` is not a public destination, or null when it is. */
function privateHost(url: URL): string | null {
  const host = bare(url.hostname);
  if (ipaddr.IPv4.isValidFourPartDecimal(host) || (url.hostname.startsWith("[") && ipaddr.IPv6.isValid(host))) {
    const address = ipaddr.parse(host);
    const range = address.range();
    if (range !== "unicast") return `${RANGE_WORDS[range] ?? "special-purpose"} address`;
    // IPv4-compatible IPv6 (::a.b.c.d, deprecated) carries an IPv4 address in its last 32 bits.
    if (address.kind() === "ipv6" && (address as ipaddr.IPv6).parts.slice(0, 6).every((p) => p === 0)) return "IPv4-compatible address";
    return null;
  }
  if (PRIVATE_NAMES.has(host) || PRIVATE_SUFFIXES.some((s) => host.endsWith(s))) return "name that is not public";
  // A name of one label (`metadata`, `intranet`) is resolved inside a private network, never on the internet.
  if (!host.includes(".")) return "name that is not public";
  return null;
}

/** Why `value` may not receive deliveries, or null when it may. */
export function destinationProblem(value: string, allowLoopback: boolean): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return "must be an absolute URL (https://…)";
  }
  if (allowLoopback && isLoopbackHost(url.hostname) && (url.protocol === "http:" || url.protocol === "https:")) return null;
  const host = privateHost(url);
  if (host) {
    const loopback = isLoopbackHost(url.hostname) ? "; loopback is allowed only when WEBHOOK_ALLOW_LOOPBACK is true, for local development" : "";
    return `must point to a public host on the internet (${url.hostname}: ${host}${loopback})`;
  }
  return url.protocol === "https:" ? null : "must use https://";
}

/** Throws a 422 naming `url` when the address is not allowed here. */
export function checkWebhookUrl(value: string, allowLoopback: boolean): void {
  const problem = destinationProblem(value, allowLoopback);
  if (problem) throw invalid(`url: ${problem}`);
}
