/** The person's own account: changing the password (which signs them out everywhere else). */
import { Hono } from "hono";
import { ApiError } from "../errors";
import { changePassword } from "../ops/sessions";
import { requireUser } from "./access";
import type { DashApp } from "./auth";
import { form, str } from "./form";
import { AccountPage } from "./pages/account";
import { notice, render, viewer } from "./respond";

export const account = new Hono<DashApp>();

account.get("/account", async (c) => {
  requireUser(c);
  return render(c, <AccountPage viewer={viewer(c)} notice={notice(c)} />);
});

account.post("/account/password", async (c) => {
  const user = requireUser(c);
  const f = await form(c);
  try {
    await changePassword(c.env, user, str(f, "current_password"), str(f, "new_password"));
  } catch (err) {
    if (err instanceof ApiError) return render(c, <AccountPage viewer={viewer(c)} error={err.detail} />, 422);
    throw err;
  }
  return c.redirect("/dashboard/account?done=password-changed", 303);
});
