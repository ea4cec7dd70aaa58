import type { Child } from "hono/jsx";

/** A list's filter form (GET): its fields, then "Filter" and, when a filter is set, "Clear". */
export function Filters(p: { action: string; filtered: boolean; children: Child }) {
  return (
    // biome-ignore lint/a11y/useSemanticElements: a form with role="search" is the landmark every browser the dashboard supports announces; <search> is newer.
    <form method="get" action={p.action} class="filters" role="search">
      {p.children}
      <div class="filter-actions">
        <button type="submit">Filter</button>
        {p.filtered ? <a href={p.action}>Clear</a> : null}
      </div>
    </form>
  );
}

/** The `language` field of a filter form: one of the site's target languages, or all. */
export function LanguageSelect(p: { label: string; languages: string[]; selected: string }) {
  return (
    <div>
      <label for="language">{p.label}</label>
      <select id="language" name="language">
        <option value="">All languages</option>
        {p.languages.map((l) => (
          <option value={l} selected={l.toLowerCase() === p.selected.toLowerCase()}>
            {l}
          </option>
        ))}
      </select>
    </div>
  );
}
