/**
 * Every JSON body of the API is measured on its text before anything parses it
 * (src/api/json-text.ts): a body nested or spread past the bounds is a 422 naming the field,
 * at a cost linear in its size, whatever its shape. The batch route measures its own body,
 * unit by unit, so that a refused unit fails alone.
 */
import type { Context, Next } from "hono";
import { scanJsonText } from "../api/json-text";
import type { App } from "../context";
import { invalid } from "../errors";

const JSON_TYPE = /^application\/([\w.-]+\+)?json\s*(;|$)/i;
const WITH_BODY = new Set(["POST", "PUT", "PATCH"]);
export const BATCH_PATH = "/v1/units/batch";

export async function boundedJsonBody(c: Context<App>, next: Next) {
  if (!WITH_BODY.has(c.req.method) || c.req.path === BATCH_PATH || !JSON_TYPE.test(c.req.header("content-type") ?? "")) return next();
  // The text is read once: hono keeps it for the validator's own parse.
  const scan = scanJsonText(await c.req.text());
  if (scan.problem) throw invalid(`${scan.problem.path} ${scan.problem.rule}`);
  await next();
}
