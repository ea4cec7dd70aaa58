/**
 * The local mailbox (DEV_MAILBOX=true): every mail the service would have sent. 404 otherwise, to
 * everyone, and always to a request whose host is not local (src/local-host.ts): a production
 * Worker deployed with DEV_MAILBOX=true never shows it.
 */

import { and, eq } from "drizzle-orm";
import { Hono } from "hono";
import { controlDb } from "../control/db";
import { mailOutbox } from "../control/schema";
import { ApiError } from "../errors";
import { devMailboxOn, isLocalHost } from "../local-host";
import { outbox } from "../mail/send";
import type { DashApp } from "./auth";
import { id } from "./form";
import { DevMailPage } from "./pages/accounts.page";
import { render } from "./respond";

export const devMail = new Hono<DashApp>();

devMail.use("/dev/*", async (c, next) => {
  if (!isLocalHost(new URL(c.req.url).hostname) || !devMailboxOn(c.env)) throw new ApiError(404, "There is no such page in the dashboard.");
  await next();
});

devMail.get("/dev/mail", async (c) => {
  const mails = (await outbox(c.env, { limit: 200 })).reverse();
  const user = c.get("user");
  return render(c, <DevMailPage mails={mails} viewer={user ? { email: user.email } : null} />);
});

devMail.get("/dev/mail/:id/html", async (c) => {
  const row = await controlDb(c.env.DB)
    .select()
    .from(mailOutbox)
    .where(and(eq(mailOutbox.id, id(c.req.param("id"))), eq(mailOutbox.status, "outbox")))
    .get();
  if (!row) throw new ApiError(404, "There is no such mail.");
  // The mail's own HTML, styled inline as mails are: its own policy, sandboxed, no scripts.
  c.header("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; img-src data:; sandbox");
  return c.html(row.html);
});
