/** The page frame and small shared pieces of the dashboard (plain components: they render what they are given). */
import type { Child } from "hono/jsx";
import { atLeast, type Role } from "../../control/people.control";

export interface Viewer {
  email: string;
}

export interface SiteNav {
  siteId: number;
  siteName: string;
  organizationId: number;
  organization: string;
  role: Role;
  current: (typeof SITE_TABS)[number]["page"];
}

export interface OrgNav {
  organizationId: number;
  organization: string;
  role: Role;
  current: (typeof ORG_TABS)[number]["page"];
}

export function Layout(props: { title: string; viewer?: Viewer | null; site?: SiteNav; org?: OrgNav; notice?: string | null; error?: string | null; children?: Child }) {
  const { site, org } = props;
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{`${props.title} · Transync`}</title>
        <link rel="stylesheet" href="/dashboard.css" />
      </head>
      <body>
        <a class="skip" href="#main">
          Skip to content
        </a>
        <header class="top">
          <a class="brand" href="/dashboard">
            Transync
          </a>
          {props.viewer ? (
            <nav aria-label="Account" class="account">
              <a href="/dashboard/account">{props.viewer.email}</a>
              <form method="post" action="/dashboard/sign-out">
                <button type="submit" class="link">
                  Sign out
                </button>
              </form>
            </nav>
          ) : null}
        </header>
        {site ? <SiteTabs {...site} /> : null}
        {org ? <OrgTabs {...org} /> : null}
        <main id="main">
          {props.notice ? (
            <p class="notice" role="status">
              {props.notice}
            </p>
          ) : null}
          {props.error ? (
            <p class="alert" role="alert">
              {props.error}
            </p>
          ) : null}
          {props.children}
        </main>
      </body>
    </html>
  );
}

function Tab(props: { href: string; current: boolean; children: Child }) {
  return (
    <li>
      <a href={props.href} aria-current={props.current ? "page" : undefined}>
        {props.children}
      </a>
    </li>
  );
}

/** A tab of the site's or the organization's navigation: its label, its path under the page's base, the least role that sees it. */
interface TabEntry {
  page: string;
  label: string;
  path: string;
  role: Role;
}

/** The site's tabs, in the order the navigation shows them. */
const SITE_TABS = [
  { page: "overview", label: "Overview", path: "", role: "editor" },
  { page: "units", label: "Units", path: "/units", role: "editor" },
  { page: "attention", label: "Review queue", path: "/attention", role: "editor" },
  { page: "keys", label: "API keys", path: "/keys", role: "admin" },
  { page: "webhooks", label: "Webhooks", path: "/webhooks", role: "admin" },
  { page: "settings", label: "Settings", path: "/settings", role: "admin" },
  { page: "glossary", label: "Glossary", path: "/glossary", role: "admin" },
  { page: "memory", label: "Memory", path: "/memory", role: "admin" },
] as const satisfies readonly TabEntry[];

/** The organization's tabs, in the order the navigation shows them. */
const ORG_TABS = [
  { page: "usage", label: "Usage", path: "/usage", role: "editor" },
  { page: "billing", label: "Billing", path: "/billing", role: "editor" },
  { page: "members", label: "Members", path: "/members", role: "editor" },
  { page: "audit", label: "Audit log", path: "/audit", role: "owner" },
] as const satisfies readonly TabEntry[];

/** The tabs `role` sees, under `base`, the current one marked. */
function Tabs(props: { label: string; tabs: readonly TabEntry[]; base: string; role: Role; current: string }) {
  return (
    <nav aria-label={props.label}>
      <ul class="tabs">
        {props.tabs
          .filter((t) => atLeast(props.role, t.role))
          .map((t) => (
            <Tab href={`${props.base}${t.path}`} current={props.current === t.page}>
              {t.label}
            </Tab>
          ))}
      </ul>
    </nav>
  );
}

function SiteTabs(s: SiteNav) {
  return (
    <div class="context">
      <p class="crumbs">
        <a href="/dashboard">{s.organization}</a> <span aria-hidden="true">›</span> <strong>{s.siteName}</strong>
      </p>
      <Tabs label="Site" tabs={SITE_TABS} base={`/dashboard/sites/${s.siteId}`} role={s.role} current={s.current} />
    </div>
  );
}

function OrgTabs(o: OrgNav) {
  return (
    <div class="context">
      <p class="crumbs">
        <a href="/dashboard">Organizations</a> <span aria-hidden="true">›</span> <strong>{o.organization}</strong>
      </p>
      <Tabs label="Organization" tabs={ORG_TABS} base={`/dashboard/organizations/${o.organizationId}`} role={o.role} current={o.current} />
    </div>
  );
}

const STATE_WORDS: Record<string, string> = {
  ok: "Up to date",
  stale: "Outdated",
  review: "In review",
  missing: "Missing",
  attention: "Needs attention",
  queued: "Queued",
  running: "Running",
  succeeded: "Finished",
  failed: "Failed",
  cancelled: "Cancelled",
  error: "Error",
  warning: "Warning",
};

/** A state as a coloured badge with words (colour is never the only signal). */
export function Badge(props: { state: string; label?: string }) {
  return <span class={`badge badge-${props.state}`}>{props.label ?? STATE_WORDS[props.state] ?? props.state}</span>;
}

/** A timestamp as a readable UTC time with the machine value in `datetime`. */
export function Time(props: { at: string | null | undefined; empty?: string }) {
  if (!props.at) return <span class="muted">{props.empty ?? "never"}</span>;
  const d = new Date(props.at);
  const text = Number.isNaN(d.getTime()) ? props.at : `${d.toISOString().slice(0, 16).replace("T", " ")} UTC`;
  return <time datetime={props.at}>{text}</time>;
}

export const n = (v: number | null | undefined) => (v === null || v === undefined ? "—" : v.toLocaleString("en-US"));

/** "Next page" link for keyset pagination (the API's cursors). */
export function Pager(props: { next: string | null; href: (cursor: string) => string; first?: string | null }) {
  if (!props.next && !props.first) return null;
  return (
    <nav class="pager" aria-label="Pages">
      {props.first ? <a href={props.first}>← First page</a> : null}
      {props.next ? <a href={props.href(props.next)}>Next page →</a> : null}
    </nav>
  );
}

export function Empty(props: { title: string; children?: Child }) {
  return (
    <div class="empty">
      <p>
        <strong>{props.title}</strong>
      </p>
      {props.children}
    </div>
  );
}
