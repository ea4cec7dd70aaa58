import { Empty, Layout, type SiteNav, type Viewer } from "./layout";

export interface TermView {
  id: number;
  source: string;
  language: string;
  target: string;
  caseSensitive: boolean;
}

export function GlossaryPage(p: { nav: SiteNav; viewer: Viewer; terms: TermView[]; languages: string[]; notice?: string | null; error?: string | null }) {
  const base = `/dashboard/sites/${p.nav.siteId}/glossary`;
  return (
    <Layout title={`Glossary · ${p.nav.siteName}`} viewer={p.viewer} site={p.nav} notice={p.notice} error={p.error}>
      <h1>Glossary</h1>
      <p class="muted">
        Required translations of terms, shared by every site of {p.nav.organization}. Engines that support glossaries use them; QA warns when a term's translation is missing.
      </p>
      <section class="card" aria-labelledby="add">
        <h2 id="add">Add a term</h2>
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
      </section>
      <section class="card" aria-labelledby="terms">
        <div class="card-head">
          <h2 id="terms">Terms ({p.terms.length})</h2>
          <a href={`${base}.csv`} download="glossary.csv">
            Export CSV
          </a>
        </div>
        {p.terms.length ? (
          <table>
            <thead>
              <tr>
                <th scope="col">Term</th>
                <th scope="col">Language</th>
                <th scope="col">Translation</th>
                <th scope="col">Case</th>
                <th scope="col">
                  <span class="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {p.terms.map((t) => (
                <tr>
                  <td>{t.source}</td>
                  <td>{t.language}</td>
                  <td>{t.target}</td>
                  <td>{t.caseSensitive ? "exact case" : "any case"}</td>
                  <td>
                    <form method="post" action={`${base}/${t.id}/remove`}>
                      <button type="submit" class="secondary" aria-label={`Remove ${t.source} (${t.language})`}>
                        Remove
                      </button>
                    </form>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : (
          <Empty title="The glossary is empty.">
            <p>Add terms one by one above, or import a CSV file below.</p>
          </Empty>
        )}
      </section>
      <section class="card" aria-labelledby="import">
        <h2 id="import">Import a CSV file</h2>
        <p class="muted small">
          Columns <code>source,language,target,case_sensitive</code> with that header line (as exported). Importing <strong>replaces</strong> the whole glossary; nothing changes if
          any line is invalid.
        </p>
        <form method="post" action={`${base}/import`} enctype="multipart/form-data" class="inline">
          <label for="file">CSV file</label>
          <input id="file" name="file" type="file" accept=".csv,text/csv" required />
          <button type="submit">Import and replace</button>
        </form>
      </section>
    </Layout>
  );
}
