/** The dashboard's one error path: every refusal and failure becomes an error page (or the sign-in page). */
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import { ApiError } from "../errors";
import { log, redactError } from "../obs/log";
import { SignInRequired } from "./access";
import type { DashApp, DashContext } from "./auth";
import { ErrorPage } from "./pages/error.page";
import { dashboardPath } from "./redirect";
import { render } from "./respond";

export async function dashboardError(err: Error, c: Context<DashApp>) {
  const ctx = c as DashContext;
  if (err instanceof SignInRequired) {
    // The address as the browser sent it (percent-encoded), not Hono's decoded path.
    const url = new URL(c.req.url);
    const next = c.req.method === "GET" ? `?next=${encodeURIComponent(url.pathname + url.search)}` : "";
    return c.redirect(`/dashboard${next}`, 303);
  }
  const user = ctx.get("user") ?? null;
  const v = user ? { email: user.email } : null;
  // After a refused form, "Go back" returns to the page it came from (only ever a dashboard page of this origin).
  const referer = c.req.method === "POST" ? c.req.header("referer") : undefined;
  const back = referer?.startsWith(`${new URL(c.req.url).origin}/dashboard`) ? (dashboardPath(referer.slice(new URL(c.req.url).origin.length)) ?? undefined) : undefined;
  if (err instanceof ApiError) {
    const page = await render(ctx, <ErrorPage status={err.status} detail={err.detail} viewer={v} back={back} />, err.status as 404);
    // The answer's own headers (`Retry-After` on a 429) go with the page, as the API sends them with its error.
    for (const [name, value] of Object.entries(err.headers ?? {})) page.headers.set(name, value);
    return page;
  }
  if (err instanceof HTTPException && err.status === 403)
    return render(ctx, <ErrorPage status={403} detail="This form was sent from another website, so it was refused. Open the dashboard directly and try again." viewer={v} />, 403);
  if (err instanceof HTTPException && err.status === 413) return render(ctx, <ErrorPage status={413} detail="The upload is larger than 10 MB." viewer={v} />, 413);
  log("error", "http.error", { request_id: c.get("requestId"), where: "dashboard", error: redactError(err, 2000) });
  return render(ctx, <ErrorPage status={500} detail={`Please try again. If it keeps happening, contact support and quote request id ${c.get("requestId")}.`} viewer={v} />, 500);
}

export async function dashboardNotFound(c: DashContext) {
  if (c.req.path === "/dashboard/") return c.redirect("/dashboard", 301);
  const user = c.get("user");
  return render(c, <ErrorPage status={404} detail="There is no such page in the dashboard." viewer={user ? { email: user.email } : null} />, 404);
}
