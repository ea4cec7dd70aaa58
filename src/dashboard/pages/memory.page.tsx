import type { listMemory, memoryEntry } from "../../ops/memory.ops";
import { TMX_LIMITS } from "../../site/memory/tmx";
import { Card } from "../components/Card";
import { DataTable } from "../components/DataTable";
import { Filters } from "../components/Filters";
import { Empty, Layout, n, Pager, type SiteNav, Time, type Viewer } from "./layout";

export type MemoryListView = Awaited<ReturnType<typeof listMemory>>;
export type MemoryEntryView = Awaited<ReturnType<typeof memoryEntry>>;

/** The memory's origins as the page names them (docs/memory.md) (stored as approved, human, imported). */
export const ORIGIN_WORDS: Record<string, string> = { approved: "job (approved)", human: "human", imported: "import" };

export interface MemoryFilters {
  q: string;
  /** `source:target`, or "" for every pair. */
  pair: string;
  origin: string;
  offset: number;
}

const pairValue = (p: { source_language: string; target_language: string }) => `${p.source_language}:${p.target_language}`;
const pairLabel = (p: { source_language: string; target_language: string }) => `${p.source_language} → ${p.target_language}`;
const entryQuery = (e: { source_fingerprint: string; source_language: string; target_language: string }) =>
  new URLSearchParams({ source_fingerprint: e.source_fingerprint, source_language: e.source_language, target_language: e.target_language }).toString();

export function MemoryPage(p: { nav: SiteNav; viewer: Viewer; data: MemoryListView; filters: MemoryFilters; limit: number; notice?: string | null; error?: string | null }) {
  const base = `/dashboard/sites/${p.nav.siteId}/memory`;
  const f = p.filters;
  const filtered = !!(f.q || f.pair || f.origin);
  const qs = (offset: number) => {
    const q = new URLSearchParams();
    if (f.q) q.set("q", f.q);
    if (f.pair) q.set("pair", f.pair);
    if (f.origin) q.set("origin", f.origin);
    if (offset) q.set("offset", String(offset));
    const s = q.toString();
    return s ? `${base}?${s}` : base;
  };
  const next = f.offset + p.limit < p.data.total ? String(f.offset + p.limit) : null;
  return (
    <Layout title={`Translation memory · ${p.nav.siteName}`} viewer={p.viewer} site={p.nav} notice={p.notice} error={p.error}>
      <h1>Translation memory</h1>
      <p class="muted">
        Reviewed translations this site reuses: approved job results, editors' fixes and imports. A pushed text found here is delivered at once as a memory hit and not billed;
        close texts are shown to engines as examples. Correct an entry here and the correction is what the next jobs deliver.
      </p>
      <Filters action={base} filtered={filtered}>
        <div>
          <label for="q">Search</label>
          <input id="q" name="q" type="search" value={f.q} placeholder="Words in the source or translation" />
        </div>
        <div>
          <label for="pair">Language pair</label>
          <select id="pair" name="pair">
            <option value="">All pairs</option>
            {p.data.pairs.map((pair) => (
              <option value={pairValue(pair)} selected={pairValue(pair) === f.pair}>
                {pairLabel(pair)} ({n(pair.entries)})
              </option>
            ))}
          </select>
        </div>
        <div>
          <label for="origin">Origin</label>
          <select id="origin" name="origin">
            <option value="">All origins</option>
            {Object.entries(ORIGIN_WORDS).map(([value, word]) => (
              <option value={value} selected={value === f.origin}>
                {word}
              </option>
            ))}
          </select>
        </div>
      </Filters>
      <Card id="entries" title={`Entries (${n(p.data.total)})`}>
        <DataTable
          columns={["Source", "Translation", "Languages", "Origin", "Updated"]}
          actions
          rows={p.data.entries}
          row={(e) => (
            <tr>
              <td>{e.source_text ?? <span class="muted">(source text not known)</span>}</td>
              <td>{e.text}</td>
              <td>{pairLabel(e)}</td>
              <td>{ORIGIN_WORDS[e.origin] ?? e.origin}</td>
              <td>
                <Time at={e.updated_at} />
              </td>
              <td>
                <a href={`${base}/entry?${entryQuery(e)}`} aria-label={`Edit or delete the ${e.target_language} entry for ${(e.source_text ?? "").slice(0, 60)}`}>
                  Edit
                </a>
              </td>
            </tr>
          )}
          empty={
            <Empty title={filtered ? "No entry matches these filters." : "The memory is empty."}>
              <p>
                {filtered
                  ? "Clear the filters to see every entry."
                  : "Approved translations, editors' fixes and imported translations appear here. Import a TMX file below to bring a memory from another tool."}
              </p>
            </Empty>
          }
        />
        <Pager next={next} href={(offset) => qs(Number(offset))} first={f.offset ? qs(0) : null} />
      </Card>
      {p.data.similar.length ? (
        <Card id="similar" title="Close matches">
          <p class="muted small">Entries whose source text is close to “{f.q}”, closest first: matches like these are what engines are given as examples.</p>
          <DataTable
            columns={["Source", "Translation", "Languages", { label: "Similarity", class: "num" }]}
            actions
            rows={p.data.similar}
            row={(e) => (
              <tr>
                <td>{e.source_text}</td>
                <td>{e.text}</td>
                <td>{pairLabel(e)}</td>
                <td class="num">{Math.round(e.similarity * 100)} %</td>
                <td>
                  <a href={`${base}/entry?${entryQuery(e)}`} aria-label={`Edit or delete the ${e.target_language} entry for ${e.source_text.slice(0, 60)}`}>
                    Edit
                  </a>
                </td>
              </tr>
            )}
          />
        </Card>
      ) : null}
      <Card id="export" title="Export as TMX">
        <p class="muted small">A TMX 1.4b file (plain text segments) that other translation tools read: one translation unit per entry.</p>
        <form method="get" action={`${base}.tmx`} class="filters">
          <div>
            <label for="export-pair">Language pair</label>
            <select id="export-pair" name="pair">
              <option value="">All pairs</option>
              {p.data.pairs.map((pair) => (
                <option value={pairValue(pair)}>{pairLabel(pair)}</option>
              ))}
            </select>
          </div>
          <div class="filter-actions">
            <button type="submit">Download TMX</button>
          </div>
        </form>
      </Card>
      <Card id="import" title="Import a TMX file">
        <p class="muted small">
          TMX 1.4 (1.4b), up to {n(TMX_LIMITS.bytes / 1024 / 1024)} MB and {n(TMX_LIMITS.units)} translation units. Each unit needs the text in the site's source language and at
          least one translation; translations into this site's target languages are added to the memory as origin “import” (entries corrected here are kept). Nothing is stored from
          a file that has a problem.
        </p>
        <form method="post" action={`${base}/import`} enctype="multipart/form-data" class="inline">
          <label for="file">TMX file</label>
          <input id="file" name="file" type="file" accept=".tmx,.xml,application/x-tmx+xml,text/xml" required />
          <button type="submit">Import</button>
        </form>
      </Card>
    </Layout>
  );
}

export function MemoryEntryPage(p: { nav: SiteNav; viewer: Viewer; entry: MemoryEntryView; text?: string; error?: string | null }) {
  const base = `/dashboard/sites/${p.nav.siteId}/memory`;
  const e = p.entry;
  const key = (
    <>
      <input type="hidden" name="source_fingerprint" value={e.source_fingerprint} />
      <input type="hidden" name="source_language" value={e.source_language} />
      <input type="hidden" name="target_language" value={e.target_language} />
    </>
  );
  return (
    <Layout title={`Memory entry · ${p.nav.siteName}`} viewer={p.viewer} site={p.nav} error={p.error}>
      <p>
        <a href={base}>← Translation memory</a>
      </p>
      <h1>Memory entry ({pairLabel(e)})</h1>
      <dl class="facts">
        <dt>Origin</dt>
        <dd>{ORIGIN_WORDS[e.origin] ?? e.origin}</dd>
        <dt>Updated</dt>
        <dd>
          <Time at={e.updated_at} />
        </dd>
      </dl>
      <Card id="edit" title="Correct the translation">
        <form method="post" action={`${base}/entry`}>
          {key}
          <dl class="facts">
            <dt>Source ({e.source_language})</dt>
            <dd>{e.source_text ?? <span class="muted">(source text not known)</span>}</dd>
          </dl>
          <label for="text">Translation ({e.target_language})</label>
          <textarea id="text" name="text" rows={5} required>
            {p.text ?? e.text}
          </textarea>
          <p class="muted small">Saved, the entry becomes origin “human”: later jobs deliver this text for the same source.</p>
          <button type="submit">Save correction</button>
        </form>
      </Card>
      <section class="card danger-zone" aria-labelledby="danger">
        <h2 id="danger">Delete this entry</h2>
        <p>The text is no longer reused: the next job that meets this source translates it again (and bills it). This cannot be undone.</p>
        <form method="post" action={`${base}/delete`} class="inline">
          {key}
          <button type="submit" class="danger">
            Delete entry
          </button>
        </form>
      </section>
    </Layout>
  );
}
