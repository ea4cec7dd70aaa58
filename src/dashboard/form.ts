/** Reading the dashboard's plain HTML forms and path parameters. */
import type { DashContext } from "./auth";

export type Form = Record<string, string | File | (string | File)[]>;

export async function form(c: DashContext): Promise<Form> {
  return c.req.parseBody({ all: true });
}

/** A field's first value as text ("" when absent or a file). */
export const str = (f: Form, name: string) => {
  const v = f[name];
  const first = Array.isArray(v) ? v[0] : v;
  return typeof first === "string" ? first : "";
};

/** Every text value of a repeated field (checkboxes). */
export const strs = (f: Form, name: string) => {
  const v = f[name];
  return (Array.isArray(v) ? v : v === undefined ? [] : [v]).filter((x): x is string => typeof x === "string");
};

/** A positive id from a path or form, or -1 (which matches nothing). */
export const id = (value: string | undefined) => {
  const n = Number(value);
  return Number.isSafeInteger(n) && n > 0 ? n : -1;
};
