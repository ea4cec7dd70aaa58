import { createApp } from "./app";
import { mailTick } from "./mail/notices";

export { SiteObject } from "./site/object";

const app = createApp();

export default {
  fetch: app.fetch,
  /** The cron (wrangler.toml [triggers]): mail retries and the mails about work (src/mail/notices.ts). */
  async scheduled(_controller, env, ctx) {
    ctx.waitUntil(mailTick(env).then((r) => console.log(JSON.stringify({ level: "info", where: "cron.mail", ...r }))));
  },
} satisfies ExportedHandler<Env>;
