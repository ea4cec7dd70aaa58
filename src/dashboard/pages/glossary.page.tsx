import type { listTerms } from "../../ops/glossary.ops";
import { Card } from "../components/Card";
import { DataTable } from "../components/DataTable";
import { PostButton } from "../components/PostButton";
import { Empty, Layout, type SiteNav, type Viewer } from "./layout";

/** A term as the control plane lists it. */
export type TermView = Awaited<ReturnType<typeof listTerms>>[number];

export function GlossaryPage(p: { nav: SiteNav; viewer: Viewer; terms: TermView[]; languages: string[]; notice?: string | null; error?: string | null }) {
  const base = `/dashboard/sites/${p.nav.siteId}/glossary`;
  return (
    <Layout title={`Glossary · ${p.nav.siteName}`} viewer={p.viewer} site={p.nav} notice={p.notice} error={p.error}>
      <h1>Glossary</h1>
      <p class="muted">
        Required translations of terms, shared by every site of {p.nav.organization}. Engines that support glossaries use them; QA warns when a term's translation is missing.
      </p>
      <Card id="add" title="Add a term">
        <form method="post" action={base} class="filters">
          <div>
            <label for="source">Term ({"source"})</label>
            <input id="source" name="source" required maxlength={500} />
          </div>
          <div>
            <label for="language">Language</label>
            <input id="language" name="language" required list="site-languages" size={8} />
            <datalist id="site-languages">
              {p.languages.map((l) => (
                <option value={l} />
              ))}
            </datalist>
          </div>
          <div>
            <label for="target">Translation</label>
            <input id="target" name="target" required maxlength={500} />
          </div>
          <div>
            <label class="choice">
              <input type="checkbox" name="case_sensitive" value="1" /> Case-sensitive
            </label>
          </div>
          <div class="filter-actions">
            <button type="submit">Add term</button>
          </div>
        </form>
      </Card>
      <Card
        id="terms"
        title={`Terms (${p.terms.length})`}
        head={
          <a href={`${base}.csv`} download="glossary.csv">
            Export CSV
          </a>
        }
      >
        <DataTable
          columns={["Term", "Language", "Translation", "Case"]}
          actions
          rows={p.terms}
          row={(t) => (
            <tr>
              <td>{t.source}</td>
              <td>{t.language}</td>
              <td>{t.target}</td>
              <td>{t.caseSensitive ? "exact case" : "any case"}</td>
              <td>
                <PostButton action={`${base}/${t.id}/remove`} kind="secondary" label={`Remove ${t.source} (${t.language})`}>
                  Remove
                </PostButton>
              </td>
            </tr>
          )}
          empty={
            <Empty title="The glossary is empty.">
              <p>Add terms one by one above, or import a CSV file below.</p>
            </Empty>
          }
        />
      </Card>
      <Card id="import" title="Import a CSV file">
        <p class="muted small">
          Columns <code>source,language,target,case_sensitive</code> with that header line (as exported). Importing <strong>replaces</strong> the whole glossary; nothing changes if
          any line is invalid.
        </p>
        <form method="post" action={`${base}/import`} enctype="multipart/form-data" class="inline">
          <label for="file">CSV file</label>
          <input id="file" name="file" type="file" accept=".csv,text/csv" required />
          <button type="submit">Import and replace</button>
        </form>
      </Card>
    </Layout>
  );
}
