import { createApp } from "./app";
import { scheduledClose } from "./ops/billing";

export { SiteObject } from "./site/object";

const app = createApp();

export default {
  fetch: app.fetch,
  /** The Cron Trigger (wrangler.toml [triggers]): closes every ended month not closed yet. */
  scheduled(controller, env, ctx) {
    ctx.waitUntil(scheduledClose(env, new Date(controller.scheduledTime)));
  },
} satisfies ExportedHandler<Env>;
