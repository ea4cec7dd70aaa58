import type { UnitStatus } from "../../api/schemas";
import type { unitOf } from "../../ops/units.ops";
import { Findings } from "../components/Findings";
import { Badge, Layout, type SiteNav, Time, type Viewer } from "./layout";

/** A unit's segment × language matrix, as `GET /v1/units/{key}/status` answers it. */
export type UnitView = UnitStatus;
/** The unit's source texts and translations. */
export type UnitTextsView = Awaited<ReturnType<typeof unitOf>>["texts"];

export function UnitPage(p: { nav: SiteNav; viewer: Viewer; unit: UnitView; texts: UnitTextsView; languages: string[]; notWritable?: string[] }) {
  const u = p.unit;
  const texts = new Map(p.texts.segments.map((s) => [s.key, s]));
  return (
    <Layout title={`${u.label || u.external_key} · ${p.nav.siteName}`} viewer={p.viewer} site={p.nav}>
      <p class="crumbs small">
        <a href={`/dashboard/sites/${p.nav.siteId}/units`}>Units</a> › <code>{u.external_key}</code>
      </p>
      <h1>{u.label || u.external_key}</h1>
      <p class="muted">
        {u.adapter} · {u.path || "no path"} · last synced <Time at={u.last_synced_at} /> · {u.segments_needing_work} of {u.segments_total} segments need work
      </p>
      <div class="matrix-wrap">
        <table class="matrix">
          <thead>
            <tr>
              <th scope="col">Segment (source)</th>
              {p.languages.map((l) => (
                <th scope="col">
                  {l} {p.notWritable?.includes(l) ? <Badge state="stale" label="not writable" /> : null}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {u.segments.map((s) => {
              const t = texts.get(s.key);
              return (
                <tr>
                  <th scope="row">
                    <div class="muted small">
                      <code>{s.key}</code>
                      {s.field ? <> · {s.field}</> : null}
                    </div>
                    <div class="text">{t?.source ?? ""}</div>
                  </th>
                  {p.languages.map((l) => {
                    const state = s.states[l] ?? "missing";
                    const tr = t?.translations[l];
                    return (
                      <td>
                        <Badge state={state} />
                        {tr ? <div class="text">{tr.text}</div> : <div class="muted small">no translation yet</div>}
                        <Findings issues={s.qa?.[l]} />
                        {state === "attention" ? (
                          <a class="small" href={`/dashboard/sites/${p.nav.siteId}/attention?unit=${encodeURIComponent(u.external_key)}&language=${encodeURIComponent(l)}`}>
                            Review
                          </a>
                        ) : null}
                      </td>
                    );
                  })}
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </Layout>
  );
}
