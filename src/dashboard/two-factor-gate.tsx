/**
 * What a signed-in person may open before anything else: an unverified address (self-serve
 * sign-up) sees only the "confirm your address" page; a member of an organization that
 * requires two-factor, without it, is led to set it up. Signing out and the local mailbox
 * always work.
 */
import type { MiddlewareHandler } from "hono";
import type { DashApp } from "./auth";
import { CheckMailPage } from "./pages/accounts.page";
import { render } from "./respond";

const ALWAYS = /^\/dashboard\/(sign-out|dev\/mail)(\/|$)/;
const UNVERIFIED_MAY = /^\/dashboard\/verify(\/|$)/;
const SETTING_UP_MAY = /^\/dashboard\/account\/two-factor$/;

export const twoFactorGate: MiddlewareHandler<DashApp> = async (c, next) => {
  const user = c.get("user");
  const path = c.req.path;
  if (!user || ALWAYS.test(path)) return next();
  if (!user.verified && !UNVERIFIED_MAY.test(path)) return render(c, <CheckMailPage viewer={{ email: user.email }} />, 403);
  if (user.verified && user.twoFactorRequired && !SETTING_UP_MAY.test(path)) return c.redirect("/dashboard/account/two-factor", 303);
  return next();
};
