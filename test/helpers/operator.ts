/**
 * A named operator (ADMIN_TOKENS, `admin:<name>` in the audit log) calling the admin API through the
 * test Worker (test/worker.ts: the tests' clock), every answer checked against the OpenAPI
 * document as `request` does (helpers/openapi.ts).
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import worker from "../worker";
import { answered, type Call } from "./api";

const sha256 = async (text: string) =>
  [...new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)))].map((b) => b.toString(16).padStart(2, "0")).join("");

/** Calls as the operator `name` (their own token, 32+ characters); answers like `request`. */
export function operator(name: string) {
  const token = `${name}-operator-token-0123456789abcdefghij`;
  return async (method: string, path: string, body?: unknown): Promise<Call> => {
    const vars = { ADMIN_TOKENS: JSON.stringify({ [name]: await sha256(token) }) };
    const headers: Record<string, string> = { authorization: `Bearer ${token}`, "cf-connecting-ip": `2001:db8:52::${Math.floor(Math.random() * 0xffff).toString(16)}` };
    if (body !== undefined) headers["content-type"] = "application/json";
    const url = `https://api.test${path}`;
    const ctx = createExecutionContext();
    const res = await worker.fetch(new Request(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) }), { ...env, ...vars } as Env, ctx);
    await waitOnExecutionContext(ctx);
    return answered(method, url, res);
  };
}
