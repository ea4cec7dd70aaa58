/** Small helpers every dashboard sub-app uses: rendering a page, reading a form, safe redirects. */
import type { JSX } from "hono/jsx/jsx-runtime";
import { dashboardBase } from "../routes/common";
import type { DashContext } from "./auth";

export type Status = 200 | 401 | 402 | 403 | 404 | 409 | 410 | 413 | 422 | 429 | 500;

export async function render(c: DashContext, page: JSX.Element, status: Status = 200) {
  return c.html("<!DOCTYPE html>" + (await page.toString()), status);
}

export type Form = Record<string, string | File | (string | File)[]>;
export async function form(c: DashContext): Promise<Form> {
  return c.req.parseBody({ all: true });
}
export const str = (f: Form, name: string) => {
  const v = f[name];
  const first = Array.isArray(v) ? v[0] : v;
  return typeof first === "string" ? first : "";
};
export const strs = (f: Form, name: string) => {
  const v = f[name];
  return (Array.isArray(v) ? v : v === undefined ? [] : [v]).filter((x): x is string => typeof x === "string");
};
export const id = (value: string | undefined) => {
  const n = Number(value);
  return Number.isSafeInteger(n) && n > 0 ? n : -1;
};

export const viewer = (c: DashContext) => ({ email: c.get("user")!.email, userId: c.get("user")!.userId });
export const clientIp = (c: DashContext) => c.req.header("cf-connecting-ip") ?? "unknown";

/** Runs work after the answer (mails, and what must not show in the answer's timing); awaited where there is no execution context. */
export async function afterAnswer(c: DashContext, work: Promise<unknown>) {
  const guarded = work.catch((err) => console.error(JSON.stringify({ level: "error", where: "dashboard.after", error: String(err).slice(0, 300) })));
  try {
    c.executionCtx.waitUntil(guarded);
  } catch {
    await guarded;
  }
}

/** Over SIGNIN_LIMITER (10 a minute) for any of the keys: the seconds to wait, else null. */
export async function limited(c: DashContext, keys: string[]): Promise<number | null> {
  const results = await Promise.all(keys.map((key) => c.env.SIGNIN_LIMITER.limit({ key })));
  return results.every((r) => r.success) ? null : 60;
}

export { dashboardBase };
