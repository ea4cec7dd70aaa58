import type { Child } from "hono/jsx";

/** A titled section of a page; `head` sits beside the title (a link such as "Export CSV" or "Refresh"). */
export function Card(p: { id: string; title: Child; head?: Child; class?: string; children?: Child }) {
  const title = <h2 id={p.id}>{p.title}</h2>;
  return (
    <section class={p.class ? `card ${p.class}` : "card"} aria-labelledby={p.id}>
      {p.head === undefined ? (
        title
      ) : (
        <div class="card-head">
          {title}
          {p.head}
        </div>
      )}
      {p.children}
    </section>
  );
}
