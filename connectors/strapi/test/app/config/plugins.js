// The connector as a project installs it (README "Configure"): the package @transync/strapi,
// installed from its packed tarball (`npm run pack:test-app`), found by Strapi among the
// project's dependencies. The settings below the README's are the tests' knobs.
module.exports = ({ env }) => ({
  transync: {
    enabled: true,
    config: {
      url: env("TRANSYNC_URL"),
      jobs: "on_change",
      cron: env("TRANSYNC_CRON", "*/30 * * * * *"),
      webhookBaseUrl: env("TRANSYNC_WEBHOOK_BASE"),
      pushDelay: env.int("TRANSYNC_PUSH_DELAY", 2000),
      contentTypes: { "api::article.article": { titleField: "title" } },
    },
  },
});
