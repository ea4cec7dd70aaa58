// Strapi loads a plugin's server part from here; the TypeScript in server/src is built to dist/ (`npm run build`).
module.exports = require("./dist/index.js").default;
