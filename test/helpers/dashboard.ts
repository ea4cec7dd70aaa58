/** Dashboard requests through the Worker's fetch: forms, cookies and the Origin header a browser sends. */
import { exports } from "cloudflare:workers";
import { admin } from "./api";

export const ORIGIN = "https://api.test";

export interface Page {
  status: number;
  html: string;
  headers: Headers;
  location: string | null;
  /** `name=value` of the session cookie the response set, if any. */
  cookie: string | null;
}

let ip = Math.floor(Math.random() * 1_000_000);

export async function dash(
  method: string,
  path: string,
  opts: { cookie?: string | null; form?: Record<string, string | string[]> | FormData; origin?: string | null; base?: string; headers?: Record<string, string> } = {},
): Promise<Page> {
  const base = opts.base ?? ORIGIN;
  // A fresh client address per request unless given, so the per-IP sign-in limit is tested only where meant.
  const headers: Record<string, string> = { "cf-connecting-ip": `10.${(ip >> 16) & 255}.${(ip >> 8) & 255}.${ip++ & 255}`, ...opts.headers };
  if (opts.cookie) headers.cookie = opts.cookie;
  let body: BodyInit | undefined;
  if (opts.form instanceof FormData) body = opts.form;
  else if (opts.form) {
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(opts.form)) for (const x of Array.isArray(v) ? v : [v]) params.append(k, x);
    body = params;
  }
  if (method !== "GET" && opts.origin !== null) headers.origin = opts.origin ?? new URL(base).origin;
  const res = await exports.default.fetch(new Request(base + path, { method, headers, body, redirect: "manual" }));
  const setCookie = res.headers.get("set-cookie");
  const m = setCookie && /^([^=;]+=[^;]*)/.exec(setCookie);
  return { status: res.status, html: await res.text(), headers: res.headers, location: res.headers.get("location"), cookie: m && !/=;|=$/.test(m[1]) ? m[1] : null };
}

let people = 0;

/** A person with a role in an organization, signed in: invited through the admin API, accepted through the dashboard. */
export async function person(orgId: number, role: "owner" | "admin" | "editor", email = `person${++people}-${Date.now()}@example.com`, password = "a long enough password") {
  const inv = await admin("POST", `/admin/v1/organizations/${orgId}/invitations`, { email, role });
  if (inv.status !== 201) throw new Error(`invitation: ${inv.status} ${JSON.stringify(inv.body)}`);
  // The link carries its token in the fragment; the page posts it with the password.
  const token = new URL(inv.body.url).hash.slice(1);
  const accepted = await dash("POST", "/dashboard/invitations", { form: { token, password } });
  if (accepted.status !== 303) throw new Error(`accept: ${accepted.status} ${accepted.html.slice(0, 500)}`);
  return { email, password, cookie: accepted.cookie };
}

/**
 * A one-time link (`https://dash.test/<kind>#<token>`, or a path) as a browser follows it: the
 * GET without the fragment (which browsers never send), then the page's form posting the token
 * to `…/open`. Answers the opened page, the GET's page, and the token; every request line of it
 * is in `lines`.
 */
export async function openLink(link: string, opts: { cookie?: string | null } = {}) {
  const url = new URL(link, "https://dash.test");
  const path = url.pathname.startsWith("/dashboard") ? url.pathname : `/dashboard${url.pathname}`;
  const token = url.hash.slice(1);
  const landing = await dash("GET", `${path}${url.search}`, opts);
  const action = /<form method="post" action="([^"]+)"[^>]*data-link-code/.exec(landing.html)?.[1]?.replace(/&amp;/g, "&");
  if (!action) throw new Error(`no code form on ${path}: ${landing.status} ${landing.html.slice(0, 300)}`);
  const opened = await dash("POST", action, { ...opts, form: { token } });
  return { landing, opened, token, lines: [`GET ${path}${url.search}`, `POST ${action}`] };
}
