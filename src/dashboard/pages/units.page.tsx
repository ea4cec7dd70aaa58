import type { unitsOf } from "../../ops/units.ops";
import { DataTable } from "../components/DataTable";
import { Filters, LanguageSelect } from "../components/Filters";
import { Badge, Empty, Layout, Pager, type SiteNav, Time, type Viewer } from "./layout";

/** A page of units, as the site object lists them (with work, or all). */
export type UnitsView = Awaited<ReturnType<typeof unitsOf>>;

export function UnitsPage(p: {
  nav: SiteNav;
  viewer: Viewer;
  data: UnitsView;
  filters: { prefix: string; language: string; cursor: string; show: "work" | "all" };
  languages: string[];
}) {
  const base = `/dashboard/sites/${p.nav.siteId}/units`;
  const qs = (extra: Record<string, string>) => {
    const q = new URLSearchParams();
    if (p.filters.prefix) q.set("prefix", p.filters.prefix);
    if (p.filters.language) q.set("language", p.filters.language);
    if (p.filters.show === "all") q.set("show", "all");
    for (const [k, v] of Object.entries(extra)) q.set(k, v);
    const s = q.toString();
    return s ? `${base}?${s}` : base;
  };
  const filtered = !!(p.filters.prefix || p.filters.language || p.filters.show === "all");
  const all = p.filters.show === "all";
  return (
    <Layout title={`Units · ${p.nav.siteName}`} viewer={p.viewer} site={p.nav}>
      <h1>{all ? "All units" : "Units that need work"}</h1>
      <p class="muted">
        {all
          ? "Every page, post and other piece of content the connector pushed, by key."
          : "Pages, posts and other content whose translations are missing, outdated, in review or held back."}{" "}
        Open a unit for its segment × language matrix.
      </p>
      <Filters action={base} filtered={filtered}>
        <div>
          <label for="prefix">Key starts with</label>
          <input id="prefix" name="prefix" value={p.filters.prefix} placeholder="post:" />
        </div>
        <div>
          <label for="show">Show</label>
          <select id="show" name="show">
            <option value="work" selected={!all}>
              Units that need work
            </option>
            <option value="all" selected={all}>
              All units
            </option>
          </select>
        </div>
        <LanguageSelect label="Work in language" languages={p.languages} selected={p.filters.language} />
      </Filters>
      <form method="get" action={`${base}/open`} class="filters">
        <div>
          <label for="key">Open a unit by its key</label>
          <input id="key" name="key" placeholder="post:42" required />
        </div>
        <div class="filter-actions">
          <button type="submit" class="secondary">
            Open
          </button>
        </div>
      </form>
      <DataTable
        columns={["Unit", "Adapter", "Work by language", "Last synced"]}
        rows={p.data.units}
        row={(u) => (
          <tr>
            <td>
              <a href={`${base}/${encodeURIComponent(u.external_key)}`}>{u.label || u.external_key}</a>
              <div class="muted small">
                <code>{u.external_key}</code>
                {u.path ? <> · {u.path}</> : null}
              </div>
            </td>
            <td>{u.adapter}</td>
            <td>
              {u.languages.map((l) => (
                <div class="small">
                  <strong>{l.code}</strong>:{" "}
                  {[l.missing ? `${l.missing} missing` : "", l.stale ? `${l.stale} outdated` : "", l.review ? `${l.review} in review` : ""].filter(Boolean).join(", ") ||
                    (l.attention ? "" : "up to date")}
                  {l.attention ? (
                    <>
                      {" "}
                      <a href={`/dashboard/sites/${p.nav.siteId}/attention?unit=${encodeURIComponent(u.external_key)}&language=${encodeURIComponent(l.code)}`}>
                        <Badge state="attention" label={`${l.attention} need attention`} />
                      </a>
                    </>
                  ) : null}
                </div>
              ))}
            </td>
            <td>
              <Time at={u.last_synced_at} />
            </td>
          </tr>
        )}
        empty={
          <Empty title={filtered ? "No unit matches these filters." : "Every unit is up to date."}>
            <p>
              {filtered ? "Clear the filters to see every unit that needs work." : "When the connector pushes new or changed content, it shows up here until it is translated."}{" "}
              {all ? null : <a href={`${base}?show=all`}>Show all units</a>}
            </p>
          </Empty>
        }
      />
      <Pager next={p.data.next_cursor} href={(c) => qs({ cursor: c })} first={p.filters.cursor ? qs({}) : null} />
    </Layout>
  );
}
