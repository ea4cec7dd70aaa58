import type { Child } from "hono/jsx";

/** The review queue's pair: the source, read-only, beside an editable translation (`text`). */
export function SourceAndText(p: { sourceId: string; textId: string; source: string; label: Child; text: string }) {
  return (
    <>
      <div>
        <p class="label" id={p.sourceId}>
          Source
        </p>
        {/* biome-ignore lint/a11y/useAriaPropsSupportedByRole: names the source block for screen readers beside the labelled textarea (axe accepts it) */}
        <div class="text source" aria-labelledby={p.sourceId}>
          {p.source}
        </div>
      </div>
      <div>
        <label for={p.textId} class="label">
          {p.label}
        </label>
        <textarea id={p.textId} name="text" rows={Math.min(12, Math.max(3, Math.ceil(p.text.length / 60)))}>
          {p.text}
        </textarea>
      </div>
    </>
  );
}
