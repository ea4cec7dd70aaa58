import type { OrganizationUsage } from "../../billing/organization-usage";
import { Card } from "../components/Card";
import { DataTable } from "../components/DataTable";
import { Stat } from "../components/Stat";
import { Empty, Layout, n, type OrgNav, Time, type Viewer } from "./layout";

/** The organization's month, as the admin API's usage endpoint answers it. */
export type UsageView = OrganizationUsage;

const compact = (v: number) => (v >= 1e6 ? `${+(v / 1e6).toFixed(1)}M` : v >= 1e3 ? `${+(v / 1e3).toFixed(1)}k` : String(v));

/** The month's characters per day, as an SVG bar chart drawn on the server (no script). */
export function DayChart(props: { days: UsageView["days"]; month: string }) {
  const W = 720;
  const H = 220;
  const pad = { l: 48, r: 8, t: 12, b: 28 };
  const max = Math.max(1, ...props.days.map((d) => d.used_characters));
  const step = (W - pad.l - pad.r) / Math.max(1, props.days.length);
  const y = (v: number) => pad.t + (H - pad.t - pad.b) * (1 - v / max);
  const total = props.days.reduce((s, d) => s + d.used_characters, 0);
  const busiest = props.days.reduce((a, d) => (d.used_characters > a.used_characters ? d : a), props.days[0] ?? { date: "", used_characters: 0 });
  const summary = total
    ? `Characters translated per day in ${props.month}: ${total.toLocaleString("en-US")} in all, most on ${busiest.date} (${busiest.used_characters.toLocaleString("en-US")}).`
    : `No characters were translated in ${props.month}.`;
  return (
    <figure class="chart">
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-labelledby="chart-title chart-desc" width="100%">
        <title id="chart-title">Characters per day</title>
        <desc id="chart-desc">{summary}</desc>
        {[0, 0.5, 1].map((f) => (
          <g>
            <line x1={pad.l} x2={W - pad.r} y1={y(max * f)} y2={y(max * f)} class="grid-line" />
            <text x={pad.l - 6} y={y(max * f) + 4} text-anchor="end" class="axis">
              {compact(Math.round(max * f))}
            </text>
          </g>
        ))}
        {props.days.map((d, i) => {
          const h = H - pad.b - y(d.used_characters);
          return (
            <g>
              <rect x={pad.l + i * step + 1} y={y(d.used_characters)} width={Math.max(1, step - 2)} height={Math.max(0, h)} class="bar">
                <title>{`${d.date}: ${d.used_characters.toLocaleString("en-US")} characters`}</title>
              </rect>
              {i % 5 === 0 || i === props.days.length - 1 ? (
                <text x={pad.l + i * step + step / 2} y={H - 8} text-anchor="middle" class="axis">
                  {d.date.slice(8)}
                </text>
              ) : null}
            </g>
          );
        })}
      </svg>
      <figcaption class="muted small">{summary}</figcaption>
    </figure>
  );
}

function shiftMonth(month: string, by: number) {
  const [y, m] = month.split("-").map(Number);
  const d = new Date(Date.UTC(y, m - 1 + by, 1));
  return d.toISOString().slice(0, 7);
}

export function UsagePage(p: { nav: OrgNav; viewer: Viewer; usage: UsageView; current: string }) {
  const u = p.usage;
  const base = `/dashboard/organizations/${p.nav.organizationId}/usage`;
  const share = u.included_characters ? (u.used_characters / u.included_characters) * 100 : null;
  const pct = share === null ? null : Math.min(100, Math.round(share));
  const pctText = share === null ? "" : share > 0 && share < 1 ? "Less than 1%" : share > 100 ? `${Math.round(share)}%` : `${pct}%`;
  return (
    <Layout title={`Usage · ${p.nav.organization}`} viewer={p.viewer} org={p.nav}>
      <div class="card-head">
        <h1>Usage in {u.month}</h1>
        <nav class="pager" aria-label="Months">
          <a href={`${base}?month=${shiftMonth(u.month, -1)}`}>← {shiftMonth(u.month, -1)}</a>
          {u.month < p.current ? <a href={`${base}?month=${shiftMonth(u.month, 1)}`}>{shiftMonth(u.month, 1)} →</a> : null}
        </nav>
      </div>
      <div class="stats">
        <Stat label="Used" value={n(u.used_characters)} note="characters" />
        <Stat label="Included" value={u.included_characters === null ? "Unmetered" : n(u.included_characters)} note={u.plan ? `${u.plan} plan` : "no subscription"} />
        <Stat
          label="Overage"
          value={n(u.overage_characters)}
          note={
            <>
              ${(u.overage_cents / 100).toFixed(2)} {u.currency.toUpperCase()}
              {u.credited_characters ? <> · after {n(u.credited_characters)} credited</> : null}
            </>
          }
        />
      </div>
      {pct !== null ? (
        <p>
          <label for="quota">{pctText} of the included volume used</label>
          <meter id="quota" min={0} max={100} low={80} high={95} optimum={0} value={pct}>
            {pct}%
          </meter>
        </p>
      ) : null}
      {u.credits.length ? (
        <Card id="credits" title="Credits">
          <p class="small">Credited characters come off this month's overage when the month is closed; they never reduce another month.</p>
          <DataTable
            columns={["Granted", { label: "Characters", class: "num" }, "Why"]}
            rows={u.credits}
            row={(c) => (
              <tr>
                <td>
                  <Time at={c.created_at} />
                </td>
                <td class="num">{n(c.characters)}</td>
                <td>{c.reason || <span class="muted">(no longer kept)</span>}</td>
              </tr>
            )}
            empty={<Empty title="No credits this month." />}
          />
        </Card>
      ) : null}
      <Card id="per-day" title="Per day">
        <DayChart days={u.days} month={u.month} />
      </Card>
      <Card id="per-site" title="Per site">
        <DataTable
          columns={["Site", { label: "Characters", class: "num" }]}
          rows={u.sites}
          row={(s) => (
            <tr>
              <td>{s.name ?? `Site ${s.site_id} (deleted)`}</td>
              <td class="num">{n(s.used_characters)}</td>
            </tr>
          )}
          empty={<Empty title="No site used characters this month." />}
        />
      </Card>
    </Layout>
  );
}
