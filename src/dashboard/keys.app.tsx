/** The Keys page (admins): a site's API keys, create (shown once) and revoke. The operations are in ops/keys.ops.ts. */
import { Hono } from "hono";
import { KeyCreateIn } from "../api/admin.schemas";
import { createKey, listKeys, revokeKey } from "../ops/keys.ops";
import { siteAccess } from "./access";
import type { DashApp } from "./auth";
import { form, id, str } from "./form";
import { KeysPage } from "./pages/keys.page";
import { parsed } from "./parse";
import { notice, render, siteFrame } from "./respond";

export const keys = new Hono<DashApp>();

keys.get("/sites/:site_id/keys", async (c) => {
  const a = await siteAccess(c, id(c.req.param("site_id")), "admin");
  return render(c, <KeysPage {...siteFrame(c, a, "keys")} keys={await listKeys(c.env, a.site)} notice={notice(c)} />);
});

keys.post("/sites/:site_id/keys", async (c) => {
  const a = await siteAccess(c, id(c.req.param("site_id")), "admin");
  const input = parsed(KeyCreateIn, { name: str(await form(c), "name").trim() });
  const created = await createKey(c.env, a.actor, a.site, input);
  // Rendered, not redirected: the key is shown this once and never stored.
  const list = await listKeys(c.env, a.site);
  return render(c, <KeysPage {...siteFrame(c, a, "keys")} keys={list} created={{ name: created.name, key: created.key }} />);
});

keys.post("/sites/:site_id/keys/:key_id/revoke", async (c) => {
  const a = await siteAccess(c, id(c.req.param("site_id")), "admin");
  await revokeKey(c.env, a.actor, a.site, id(c.req.param("key_id")));
  return c.redirect(`/dashboard/sites/${a.site.id}/keys?done=key-revoked`, 303);
});
