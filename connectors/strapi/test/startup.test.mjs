/**
 * A configuration error stops Strapi's start-up with a message naming the setting (its own
 * process: node --test runs each file in one, and a failed Strapi is not reused).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { startStrapi } from "./harness.mjs";

test("Strapi does not start without the key, and says which setting is wrong", async () => {
  await assert.rejects(startStrapi({ base: "http://127.0.0.1:9", key: "" }, { TRANSYNC_KEY: undefined }), (error) => {
    assert.match(error.message, /transync plugin: config\.keyEnv names TRANSYNC_KEY, which is not set/);
    return true;
  });
});
