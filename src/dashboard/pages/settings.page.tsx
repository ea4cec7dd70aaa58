import type { SiteSettings } from "../../control/sites.control";
import type { EngineName } from "../../engines/registry";
import { engineLabel } from "../../engines/registry";
import type { Adapter } from "../../limits";
import { Card } from "../components/Card";
import { ConfirmDelete } from "../components/ConfirmDelete";
import { DataTable } from "../components/DataTable";
import { Layout, type SiteNav, type Viewer } from "./layout";

/** What the page shows of the site: its settings as the control plane holds them. */
export type SettingsView = Pick<SiteSettings, "name" | "sourceLanguage" | "targetLanguages" | "qaMode" | "reviewMode" | "enabledAdapters" | "enabledEngines" | "shareMemory">;

/** A table cell with a labelled select (the label for screen readers only). */
function CellSelect(p: { name: string; label: string; options: [value: string, text: string][]; selected: string }) {
  return (
    <td>
      <label for={p.name} class="sr-only">
        {p.label}
      </label>
      <select id={p.name} name={p.name}>
        {p.options.map(([value, text]) => (
          <option value={value} selected={p.selected === value}>
            {text}
          </option>
        ))}
      </select>
    </td>
  );
}

function LanguageRow(props: { i: number; t?: SettingsView["targetLanguages"][number]; engines: readonly string[]; formalities: readonly string[] }) {
  const { i, t } = props;
  const id = (f: string) => `l${i}_${f}`;
  return (
    <tr>
      <td>
        {t ? (
          <>
            <strong>{t.code}</strong>
            <input type="hidden" name={id("code")} value={t.code} />
          </>
        ) : (
          <>
            <label for={id("code")} class="sr-only">
              New language code
            </label>
            <input id={id("code")} name={id("code")} placeholder="e.g. es or pt-BR" size={10} />
          </>
        )}
      </td>
      <CellSelect
        name={id("engine")}
        label={`Engine for ${t?.code ?? "the new language"}`}
        options={props.engines.map((e) => [e, engineLabel(e)])}
        selected={t?.engine ?? "pseudo"}
      />
      <CellSelect
        name={id("formality")}
        label={`Formality for ${t?.code ?? "the new language"}`}
        options={props.formalities.map((f) => [f, f])}
        selected={t?.formality ?? "default"}
      />
      <td>
        <label class="choice">
          <input type="checkbox" name={id("writable")} value="1" checked={t ? t.writable : true} /> <span class="sr-only">{t?.code ?? "new language"} is </span>writable
        </label>
      </td>
      <td>
        {t ? (
          <label class="choice">
            <input type="checkbox" name={id("remove")} value="1" /> remove<span class="sr-only"> {t.code}</span>
          </label>
        ) : (
          <span class="muted small">new</span>
        )}
      </td>
    </tr>
  );
}

export function SettingsPage(p: {
  nav: SiteNav;
  viewer: Viewer;
  settings: SettingsView;
  engines: readonly EngineName[];
  formalities: readonly string[];
  adapters: readonly Adapter[];
  notice?: string | null;
  error?: string | null;
  danger?: boolean;
}) {
  const s = p.settings;
  const base = `/dashboard/sites/${p.nav.siteId}/settings`;
  return (
    <Layout title={`Settings · ${p.nav.siteName}`} viewer={p.viewer} site={p.nav} notice={p.notice} error={p.error}>
      <h1>Settings</h1>
      <form method="post" action={base} class="stack">
        <Card id="general" title="General">
          <label for="name">Site name</label>
          <input id="name" name="name" value={s.name} required maxlength={200} />
          <p class="muted small">
            Source language: <strong>{s.sourceLanguage}</strong> (set by the operator).
          </p>
        </Card>

        <Card id="targets" title="Target languages">
          <p class="muted small">
            A language is translated and written to the website only when it is <em>writable</em> here and the website has it. Clear “writable” to pause a language without losing
            its translations.
          </p>
          <DataTable
            columns={["Language", "Engine", "Formality", "Writable", "Remove"]}
            rows={[...s.targetLanguages, undefined]}
            row={(t, i) => <LanguageRow i={i} t={t} engines={p.engines} formalities={p.formalities} />}
          />
          <input type="hidden" name="languages" value={String(s.targetLanguages.length + 1)} />
        </Card>

        <Card id="quality" title="Quality and delivery">
          <fieldset>
            <legend>Translations that fail a QA check</legend>
            <label class="choice">
              <input type="radio" name="qa_mode" value="editors" checked={s.qaMode === "editors"} /> Deliver to the website's editors with the findings (connectors that show QA
              errors), or hold back for review
            </label>
            <label class="choice">
              <input type="radio" name="qa_mode" value="separate" checked={s.qaMode === "separate"} /> Always hold back in this dashboard's review queue
            </label>
          </fieldset>
          <fieldset>
            <legend>The connector writes translations as</legend>
            <label class="choice">
              <input type="radio" name="review_mode" value="draft" checked={s.reviewMode === "draft"} /> Drafts of the translated page
            </label>
            <label class="choice">
              <input type="radio" name="review_mode" value="suggestion" checked={s.reviewMode === "suggestion"} /> Suggestions on the translated page
            </label>
          </fieldset>
          <fieldset>
            <legend>Adapters (content sources the connector may push)</legend>
            <div class="choices">
              {p.adapters.map((a) => (
                <label class="choice">
                  <input type="checkbox" name="adapters" value={a} checked={s.enabledAdapters.includes(a)} /> {a}
                </label>
              ))}
            </div>
          </fieldset>
          <fieldset>
            <legend>Engines enabled (an engine chosen for a language is enabled with it)</legend>
            <div class="choices">
              {p.engines.map((e) => (
                <label class="choice">
                  <input type="checkbox" name="engines" value={e} checked={s.enabledEngines.includes(e)} /> {engineLabel(e)}
                </label>
              ))}
            </div>
          </fieldset>
        </Card>

        <Card id="memory" title="Translation memory">
          <label class="choice">
            <input type="checkbox" name="share_memory" value="1" checked={s.shareMemory} /> Share this site's memory with the organization's other sites
          </label>
          <p class="muted small">
            Approved, fixed and imported translations are copied to the organization's memory within seconds, and this site's jobs take exact matches from it without charge. Turned
            off, the site neither reads nor adds to it, and its entries are withdrawn.
          </p>
        </Card>
        <div>
          <button type="submit">Save settings</button>
        </div>
      </form>
      {p.danger ? (
        <ConfirmDelete what="site" name={s.name} action={`/dashboard/sites/${p.nav.siteId}/erase`}>
          Erases the site's content, translations, jobs, keys and files for good. Usage records stay for billing.
        </ConfirmDelete>
      ) : null}
    </Layout>
  );
}
