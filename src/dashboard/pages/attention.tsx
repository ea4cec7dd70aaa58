import { Empty, Layout, Pager, Time, type SiteNav, type Viewer } from "./layout";
import { Findings } from "./unit";

export interface AttentionView {
  items: {
    id: string;
    unit: string;
    key: string;
    language: string;
    text: string;
    source_text: string;
    qa: { code: string; severity: "error" | "warning"; message: string }[];
    job_id: number | null;
    created_at: string;
  }[];
  next_cursor: string | null;
}

export function AttentionPage(p: {
  nav: SiteNav;
  viewer: Viewer;
  data: AttentionView;
  filters: { unit: string; language: string; cursor: string };
  languages: string[];
  notice?: string | null;
  error?: string | null;
}) {
  const base = `/dashboard/sites/${p.nav.siteId}/attention`;
  const qs = (extra: Record<string, string>) => {
    const q = new URLSearchParams();
    if (p.filters.unit) q.set("unit", p.filters.unit);
    if (p.filters.language) q.set("language", p.filters.language);
    for (const [k, v] of Object.entries(extra)) q.set(k, v);
    const s = q.toString();
    return s ? `${base}?${s}` : base;
  };
  const back = qs(p.filters.cursor ? { cursor: p.filters.cursor } : {});
  const filtered = !!(p.filters.unit || p.filters.language);
  return (
    <Layout title={`Review queue · ${p.nav.siteName}`} viewer={p.viewer} site={p.nav} notice={p.notice} error={p.error}>
      <h1>Review queue</h1>
      <p class="muted">Machine translations that QA held back. Fix the text and the connector picks it up with the next results it pulls, like any translation (it also goes into the translation memory); or discard it to leave the segment untranslated.</p>
      <form method="get" action={base} class="filters" role="search">
        <div>
          <label for="unit">Unit key</label>
          <input id="unit" name="unit" value={p.filters.unit} placeholder="post:42" />
        </div>
        <div>
          <label for="language">Language</label>
          <select id="language" name="language">
            <option value="">All languages</option>
            {p.languages.map((l) => (
              <option value={l} selected={l.toLowerCase() === p.filters.language.toLowerCase()}>
                {l}
              </option>
            ))}
          </select>
        </div>
        <div class="filter-actions">
          <button type="submit">Filter</button>
          {filtered ? <a href={base}>Clear</a> : null}
        </div>
      </form>
      {p.data.items.length ? (
        p.data.items.map((item) => (
          <article class="card review" aria-labelledby={`item-${item.id}`}>
            <div class="card-head">
              <h2 id={`item-${item.id}`} class="h3">
                <a href={`/dashboard/sites/${p.nav.siteId}/units/${encodeURIComponent(item.unit)}`}>{item.unit}</a> · <code>{item.key}</code> · {item.language}
              </h2>
              <span class="muted small">
                held <Time at={item.created_at} />
                {item.job_id ? ` by job #${item.job_id}` : ""}
              </span>
            </div>
            <Findings issues={item.qa} />
            <form method="post" action={`${base}/${item.id}`} class="side-by-side">
              <input type="hidden" name="back" value={back} />
              <div>
                <p class="label" id={`src-${item.id}`}>
                  Source
                </p>
                <div class="text source" aria-labelledby={`src-${item.id}`}>
                  {item.source_text}
                </div>
              </div>
              <div>
                <label for={`text-${item.id}`} class="label">
                  Translation ({item.language})
                </label>
                <textarea id={`text-${item.id}`} name="text" rows={Math.min(12, Math.max(3, Math.ceil(item.text.length / 60)))}>
                  {item.text}
                </textarea>
              </div>
              <div class="actions">
                <button type="submit" name="action" value="fix">
                  Save fix
                </button>
                <button type="submit" name="action" value="discard" class="secondary">
                  Discard
                </button>
              </div>
            </form>
          </article>
        ))
      ) : (
        <Empty title={filtered ? "Nothing waits for review with these filters." : "The review queue is empty."}>
          <p>{filtered ? <a href={base}>See the whole queue</a> : "Translations that fail a QA check wait here for a person to fix or discard them."}</p>
        </Empty>
      )}
      <Pager next={p.data.next_cursor} href={(c) => qs({ cursor: c })} first={p.filters.cursor ? qs({}) : null} />
    </Layout>
  );
}

/**
 * A fix with QA errors, not saved yet: its findings beside the source and the editor's text.
 * "Save anyway" sends the same fix with `confirm=1`; "Check again" re-checks an edited text.
 */
export function AttentionConfirmPage(p: {
  nav: SiteNav;
  viewer: Viewer;
  resultId: string;
  text: string;
  sourceText: string;
  qa: { code: string; severity: "error" | "warning"; message: string }[];
  /** Where the decision returns to once saved (a checked dashboard path). */
  back: string;
  queue: string;
}) {
  const errors = p.qa.filter((i) => i.severity === "error").length;
  return (
    <Layout
      title={`Save this fix? · ${p.nav.siteName}`}
      viewer={p.viewer}
      site={p.nav}
      error={`Not saved yet: your fix has ${errors === 1 ? "a QA error" : `${errors} QA errors`}. Change the text and check again, or save it anyway if it is what the website should show.`}
    >
      <h1>Save this fix despite QA errors?</h1>
      <article class="card review" aria-labelledby="confirm-item">
        <h2 id="confirm-item" class="h3">
          Your fix
        </h2>
        <Findings issues={p.qa} />
        <form method="post" action={`${p.queue}/${encodeURIComponent(p.resultId)}`} class="side-by-side">
          <input type="hidden" name="back" value={p.back} />
          <input type="hidden" name="action" value="fix" />
          <div>
            <p class="label" id="confirm-src">
              Source
            </p>
            <div class="text source" aria-labelledby="confirm-src">
              {p.sourceText}
            </div>
          </div>
          <div>
            <label for="confirm-text" class="label">
              Your translation
            </label>
            <textarea id="confirm-text" name="text" rows={Math.min(12, Math.max(3, Math.ceil(p.text.length / 60)))}>
              {p.text}
            </textarea>
          </div>
          <div class="actions">
            <button type="submit" name="confirm" value="1">
              Save anyway
            </button>
            <button type="submit" class="secondary">
              Check again
            </button>
            <a href={p.back}>Back to the review queue (nothing saved)</a>
          </div>
        </form>
      </article>
    </Layout>
  );
}
