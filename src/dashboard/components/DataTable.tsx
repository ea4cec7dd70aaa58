import type { Child } from "hono/jsx";

/** A column heading: its text, or its text and a class (`num` for right-aligned figures). */
export type Column = string | { label: string; class: string };

/**
 * A table of rows: the headings (with an unlabelled "Actions" column when `actions`), one
 * `<tr>` per item from `row`, or `empty` when there are none.
 */
export function DataTable<T>(p: { columns: Column[]; actions?: boolean; rows: T[]; row: (item: T, i: number) => Child; empty?: Child }) {
  if (!p.rows.length && p.empty !== undefined) return <>{p.empty}</>;
  return (
    <table>
      <thead>
        <tr>
          {p.columns.map((c) =>
            typeof c === "string" ? (
              <th scope="col">{c}</th>
            ) : (
              <th scope="col" class={c.class}>
                {c.label}
              </th>
            ),
          )}
          {p.actions ? (
            <th scope="col">
              <span class="sr-only">Actions</span>
            </th>
          ) : null}
        </tr>
      </thead>
      <tbody>{p.rows.map(p.row)}</tbody>
    </table>
  );
}
