const path = require("node:path");

// SQLite in a temporary file the test names (path.resolve: DATABASE_FILENAME is absolute).
module.exports = ({ env }) => ({
  connection: {
    client: "sqlite",
    connection: { filename: path.resolve(__dirname, "..", env("DATABASE_FILENAME", ".tmp/data.db")) },
    useNullAsDefault: true,
  },
});
