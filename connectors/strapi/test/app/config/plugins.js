const path = require("node:path");

// The connector as a project installs it (README "Configure"), resolved from this repository
// (an absolute path: Strapi resolves a relative `resolve` from its own files first).
module.exports = ({ env }) => ({
  transync: {
    enabled: true,
    resolve: path.join(__dirname, "..", "..", ".."),
    config: {
      url: env("TRANSYNC_URL"),
      jobs: "on_change",
      cron: env("TRANSYNC_CRON", "*/2 * * * * *"),
      webhookBaseUrl: env("TRANSYNC_WEBHOOK_BASE"),
      pushDelay: env.int("TRANSYNC_PUSH_DELAY", 2000),
      contentTypes: { "api::article.article": { titleField: "title" } },
    },
  },
});
