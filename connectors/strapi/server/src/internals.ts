// The server's modules in one CommonJS file for the unit tests (build/internals.js); not packed.
export * from "./blocks";
export * from "./config";
export * from "./drafts";
export * from "./fields";
export * from "./kit";
export * from "./middleware";
export * from "./recent-ids";
export * from "./segments";
export * from "./sync";
