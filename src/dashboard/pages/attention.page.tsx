import type { Attention, QAIssue } from "../../api/schemas";
import { Filters, LanguageSelect } from "../components/Filters";
import { Findings } from "../components/Findings";
import { SourceAndText } from "../components/SourceAndText";
import { Empty, Layout, Pager, type SiteNav, Time, type Viewer } from "./layout";

/** A page of the review queue, as the API answers it. */
export type AttentionView = Attention;

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
      <p class="muted">
        Machine translations that QA held back. Fix the text and the connector picks it up with the next results it pulls, like any translation (it also goes into the translation
        memory); or discard it to leave the segment untranslated.
      </p>
      <Filters action={base} filtered={filtered}>
        <div>
          <label for="unit">Unit key</label>
          <input id="unit" name="unit" value={p.filters.unit} placeholder="post:42" />
        </div>
        <LanguageSelect label="Language" languages={p.languages} selected={p.filters.language} />
      </Filters>
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
              <SourceAndText sourceId={`src-${item.id}`} textId={`text-${item.id}`} source={item.source_text} label={`Translation (${item.language})`} text={item.text} />
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
  qa: QAIssue[];
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
          <SourceAndText sourceId="confirm-src" textId="confirm-text" source={p.sourceText} label="Your translation" text={p.text} />
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
