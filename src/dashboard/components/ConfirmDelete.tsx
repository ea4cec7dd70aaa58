import type { Child } from "hono/jsx";

/** The danger zone: deleting a site or an organization for good after typing its name (the handler compares `confirm_name`). */
export function ConfirmDelete(p: { what: "site" | "organization"; name: string; action: string; children: Child }) {
  const label = p.what === "site" ? "Site" : "Organization";
  return (
    <section class="card danger-zone" aria-labelledby="danger">
      <h2 id="danger">Delete this {p.what}</h2>
      <p>
        {p.children} Type the {p.what}'s name, <strong>{p.name}</strong>, to confirm.
      </p>
      <form method="post" action={p.action} class="inline">
        <label for="confirm_name">{label} name</label>
        <input id="confirm_name" name="confirm_name" required autocomplete="off" />
        <button type="submit" class="danger">
          Delete {p.what}
        </button>
      </form>
    </section>
  );
}
