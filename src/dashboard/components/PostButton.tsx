import type { Child } from "hono/jsx";

/** One button that posts to `action` (revoke, remove, withdraw, cancel); `label` names what it acts on for screen readers. */
export function PostButton(p: { action: string; kind: "danger" | "secondary"; label?: string; children: Child }) {
  return (
    <form method="post" action={p.action}>
      <button type="submit" class={p.kind} aria-label={p.label}>
        {p.children}
      </button>
    </form>
  );
}
