// The test project's own start-up: the German and French locales (English is i18n's default).
module.exports = {
  register() {},
  async bootstrap({ strapi }) {
    const locales = strapi.plugin("i18n").service("locales");
    const have = await locales.find();
    for (const l of [
      { code: "de", name: "German (de)" },
      { code: "fr", name: "French (fr)" },
    ])
      if (!have.some((e) => e.code === l.code)) await locales.create(l);
  },
};
