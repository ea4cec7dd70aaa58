/** The page frame and small shared pieces of the dashboard (plain components: they render what they are given). */
import type { Child } from "hono/jsx";
import type { Role } from "../../control/people";

export interface Viewer {
  email: string;
}

export interface SiteNav {
  siteId: number;
  siteName: string;
  organizationId: number;
  organization: string;
  role: Role;
  current: "overview" | "units" | "attention" | "keys" | "webhooks" | "settings" | "glossary" | "memory";
}

export interface OrgNav {
  organizationId: number;
  organization: string;
  role: Role;
  current: "usage" | "billing" | "members" | "audit";
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

function SiteTabs(s: SiteNav) {
  const base = `/dashboard/sites/${s.siteId}`;
  const admin = s.role !== "editor";
  return (
    <div class="context">
      <p class="crumbs">
        <a href="/dashboard">{s.organization}</a> <span aria-hidden="true">›</span> <strong>{s.siteName}</strong>
      </p>
      <nav aria-label="Site">
        <ul class="tabs">
          <Tab href={base} current={s.current === "overview"}>
            Overview
          </Tab>
          <Tab href={`${base}/units`} current={s.current === "units"}>
            Units
          </Tab>
          <Tab href={`${base}/attention`} current={s.current === "attention"}>
            Review queue
          </Tab>
          {admin ? (
            <Tab href={`${base}/keys`} current={s.current === "keys"}>
              API keys
            </Tab>
          ) : null}
          {admin ? (
            <Tab href={`${base}/webhooks`} current={s.current === "webhooks"}>
              Webhooks
            </Tab>
          ) : null}
          {admin ? (
            <Tab href={`${base}/settings`} current={s.current === "settings"}>
              Settings
            </Tab>
          ) : null}
          {admin ? (
            <Tab href={`${base}/glossary`} current={s.current === "glossary"}>
              Glossary
            </Tab>
          ) : null}
          {admin ? (
            <Tab href={`${base}/memory`} current={s.current === "memory"}>
              Memory
            </Tab>
          ) : null}
        </ul>
      </nav>
    </div>
  );
}

function OrgTabs(o: OrgNav) {
  const base = `/dashboard/organizations/${o.organizationId}`;
  return (
    <div class="context">
      <p class="crumbs">
        <a href="/dashboard">Organizations</a> <span aria-hidden="true">›</span> <strong>{o.organization}</strong>
      </p>
      <nav aria-label="Organization">
        <ul class="tabs">
          <Tab href={`${base}/usage`} current={o.current === "usage"}>
            Usage
          </Tab>
          <Tab href={`${base}/billing`} current={o.current === "billing"}>
            Billing
          </Tab>
          <Tab href={`${base}/members`} current={o.current === "members"}>
            Members
          </Tab>
          {o.role === "owner" ? (
            <Tab href={`${base}/audit`} current={o.current === "audit"}>
              Audit log
            </Tab>
          ) : null}
        </ul>
      </nav>
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
