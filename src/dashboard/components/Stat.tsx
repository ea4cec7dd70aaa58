import type { Child } from "hono/jsx";

/** One figure of a `.stats` row: its label, the value, and a small line under it. */
export function Stat(p: { label: string; value: Child; note?: Child; valueId?: string }) {
  return (
    <div class="stat">
      <span class="stat-label">{p.label}</span>
      <span class="stat-value" id={p.valueId}>
        {p.value}
      </span>
      <span class="muted small">{p.note}</span>
    </div>
  );
}
