/**
 * Issue 25's black-box check (`node scripts/memory-check.mjs`): a fresh `wrangler dev --local`
 * (test/e2e/server.mjs) whose OpenAI-compatible engine is a local fake of the chat-completions API
 * that records every request. Prints what it found and exits 1 if a goal is missed:
 * 1. a new text's request carries its unit's label and path and, as an example, the approved
 *    translation of a near-identical earlier text (a fuzzy match);
 * 2. a second site of the same organization gets the texts the first approved as unbilled memory
 *    hits: the estimate counts them, the job makes no engine request and bills nothing;
 * 3. a site of another organization gets no hit.
 */
import { createServer } from "node:http";
import { ADMIN_TOKEN, startServer } from "../test/e2e/server.mjs";

const requests = [];
const fake = createServer((req, res) => {
  let body = "";
  req.on("data", (chunk) => {
    body += chunk;
  });
  req.on("end", () => {
    const request = JSON.parse(body);
    requests.push(request);
    const user = JSON.parse(request.messages.at(-1).content);
    const items = user.items.map((item) => ({ id: item.id, translation: `DE ${item.text}` }));
    const content = JSON.stringify({ items });
    res.writeHead(200, { "content-type": "application/json" });
    res.end(
      JSON.stringify({
        id: "chatcmpl-1",
        object: "chat.completion",
        model: request.model,
        choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }],
        usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 },
      }),
    );
  });
});
await new Promise((resolve) => fake.listen(0, "127.0.0.1", resolve));
const fakeUrl = `http://127.0.0.1:${fake.address().port}/v1`;
const server = await startServer({ OPENAI_API_KEY: "sk-fake-for-the-check", OPENAI_BASE_URL: fakeUrl });

async function call(method, path, token, body) {
  const res = await fetch(server.base + path, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { "content-type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : null;
}
const admin = (method, path, body) => call(method, path, ADMIN_TOKEN, body);

async function newSite(orgId, name) {
  const site = await admin("POST", "/admin/v1/sites", { organization_id: orgId, name, source_language: "en", target_languages: [{ code: "de", engine: "openai" }] });
  const { key } = await admin("POST", `/admin/v1/sites/${site.id}/keys`, { name: "check" });
  await call("POST", "/v1/handshake", key, { connector_version: "check/1", source_language: "en", languages: ["de"], adapters: ["wordpress"] });
  return { ...site, key };
}

async function runJob(key, body) {
  const job = await call("POST", "/v1/jobs", key, { ...body, confirm: true });
  for (;;) {
    const now = await call("GET", `/v1/jobs/${job.id}`, key);
    if (!["queued", "running"].includes(now.status)) return now;
    await new Promise((r) => setTimeout(r, 200));
  }
}

const goals = [];
const goal = (name, ok, detail) => {
  goals.push(ok);
  console.log(`${ok ? "PASS" : "FAIL"}  ${name}: ${detail}`);
};

try {
  const org = await admin("POST", "/admin/v1/organizations", { name: "Agency" });
  const other = await admin("POST", "/admin/v1/organizations", { name: "Someone else" });
  const a = await newSite(org.id, "First site");
  const b = await newSite(org.id, "Second site");
  const c = await newSite(other.id, "Other organization's site");
  await admin("PUT", `/admin/v1/organizations/${org.id}/subscription`, { plan: "agency", status: "active", site_ids: [a.id, b.id] });
  await admin("PUT", `/admin/v1/organizations/${other.id}/subscription`, { plan: "pro", status: "active", site_ids: [c.id] });

  const footer = {
    external_key: "page:footer",
    adapter: "wordpress",
    label: "Site footer",
    path: "/footer",
    segments: [
      { key: "legal", text: "All prices include VAT and free shipping within the European Union." },
      { key: "contact", text: "Write to us at any time, we answer within two working days." },
    ],
  };
  await call("PUT", "/v1/units", a.key, footer);
  await runJob(a.key, {});
  const delivered = (await call("GET", "/v1/results?limit=100", a.key)).results;
  await call("POST", "/v1/results/ack", a.key, { ids: delivered.map((r) => r.id) });
  await call("POST", "/v1/reviews", a.key, { reviews: delivered.map((r) => ({ id: r.id, outcome: "approved", text: `${r.text} (approved)` })) });

  // 1. A near-identical text on another page of the first site.
  const before = requests.length;
  await call("PUT", "/v1/units", a.key, {
    external_key: "page:shop",
    adapter: "wordpress",
    label: "Shop",
    path: "/shop",
    segments: [{ key: "note", text: "All prices include VAT and free shipping within the European Union!" }],
  });
  await runJob(a.key, {});
  const sent = requests.slice(before).map((r) => r.messages.at(-1).content);
  const prompt = sent.join("\n");
  const item = sent.length === 1 ? JSON.parse(sent[0]).items[0] : undefined;
  goal(
    "context for a new text",
    item?.context?.label === "Shop" && item?.context?.path === "/shop" && prompt.includes("(approved)"),
    `${sent.length} request(s); context ${JSON.stringify(item?.context)}`,
  );

  // 2. The second site of the same organization: the approved texts are unbilled memory hits.
  await new Promise((r) => setTimeout(r, 3000)); // the copy to the organization's memory is off the request path
  await call("PUT", "/v1/units", b.key, { ...footer, external_key: "page:footer-b" });
  const estimate = await call("POST", "/v1/jobs", b.key, { estimate_only: true });
  const beforeB = requests.length;
  const jobB = await runJob(b.key, {});
  goal(
    "second site of the organization",
    estimate.estimated_tm_segments === 2 && jobB.tm_segments === 2 && jobB.characters === 0 && requests.length === beforeB,
    `estimate tm ${estimate.estimated_tm_segments} of ${estimate.estimated_segments}, job tm ${jobB.tm_segments}, characters ${jobB.characters}, engine requests ${requests.length - beforeB}`,
  );

  // 3. A site of another organization reads nothing of it.
  await call("PUT", "/v1/units", c.key, footer);
  const estimateC = await call("POST", "/v1/jobs", c.key, { estimate_only: true });
  goal("another organization", estimateC.estimated_tm_segments === 0, `estimate tm ${estimateC.estimated_tm_segments} of ${estimateC.estimated_segments}`);
} catch (error) {
  console.error(error);
  goals.push(false);
} finally {
  await server.stop();
  fake.close();
}
process.exit(goals.every(Boolean) ? 0 : 1);
