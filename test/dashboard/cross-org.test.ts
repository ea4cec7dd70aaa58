/**
 * Every dashboard action addressed by an id, aimed by an owner of organization A at organization
 * B's object: 404, and nothing of B's changes. An owner (not an admin) acts, so no role check can
 * answer before the organization's: only the scoping stands between A and B's rows.
 *
 * The table below has one row per state-changing route of the dashboard with a parameter in its
 * path (the app's own route list is read, so a route added without its row fails the first test).
 * Each row aims the route at B twice where it can: B's site or organization in the path, and A's
 * own site or organization with B's object id (the id scoping itself). After each attempt the
 * control database and B's site object read back exactly as before.
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { dashboard } from "../../src/dashboard";
import { fingerprint } from "../../src/site/fingerprint";
import { admin, client, createSite, type TestSite, unit } from "../helpers/api";
import { dash, person } from "../helpers/dashboard";
import { job } from "../helpers/jobs";

type Person = Awaited<ReturnType<typeof person>>;
type Form = Record<string, string> | FormData;

let A: TestSite;
let B: TestSite;
let ownerA: Person;
let ownerB: Person;
/** B's objects, each created in beforeAll and checked to exist before any attempt. */
const b = {
  orgName: "",
  termId: 0,
  invitationId: 0,
  editorId: 0,
  jobId: 0,
  resultId: "",
  deliveryId: `msg_${crypto.randomUUID().replaceAll("-", "")}`,
  sessionId: "",
};

const tmx = (body: string) =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<tmx version="1.4">\n<header srclang="en" datatype="plaintext" segtype="sentence" adminlang="en" o-tmf="x" creationtool="x" creationtoolversion="1"/>\n<body>\n${body}</body>\n</tmx>\n`;
const tmxUpload = () => {
  const f = new FormData();
  f.append("file", new File([tmx('<tu><tuv xml:lang="en"><seg>Read more</seg></tuv><tuv xml:lang="de"><seg>Weiterlesen</seg></tuv></tu>\n')], "m.tmx"));
  return f;
};
const csvUpload = () => {
  const f = new FormData();
  f.append("file", new File(["source,language,target,case_sensitive\nCart,de,Warenkorb,0\n"], "g.csv"));
  return f;
};
const memoryKey = { source_fingerprint: fingerprint("Read more"), source_language: "en", target_language: "de" };

const userId = async (email: string) => (await env.DB.prepare("SELECT id FROM users WHERE email = ?").bind(email).first<{ id: number }>())!.id;

/** Every control table's rows (sessions without their last-use stamp) and what B's site object answers. */
async function snapshot() {
  const tables = (
    await env.DB.prepare(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%' AND name <> 'd1_migrations' ORDER BY name",
    ).all<{ name: string }>()
  ).results;
  const control: Record<string, unknown[]> = {};
  for (const { name } of tables) {
    const sql =
      name === "sessions"
        ? "SELECT token_hash, user_id, expires_at FROM sessions ORDER BY token_hash"
        : name === "audit_log"
          ? // the snapshot reads B's memory through its export, which is audited
            "SELECT * FROM audit_log WHERE action <> 'memory.export' ORDER BY id"
          : `SELECT * FROM "${name}" ORDER BY rowid`;
    control[name] = (await env.DB.prepare(sql).all()).results;
  }
  const cb = client(B.key);
  const site = {
    jobs: (await cb.get("/v1/jobs")).body,
    attention: (await cb.get("/v1/attention")).body,
    units: (await cb.get("/v1/units")).body,
    webhook: (await cb.get("/v1/webhook")).body,
    // The export's header carries the time of the export.
    memory: (await dash("GET", `/dashboard/sites/${B.siteId}/memory.tmx`, { cookie: ownerB.cookie })).html.replace(/ creationdate="\w+"/, ""),
  };
  return { control, site };
}

interface Attempt {
  path: string;
  form?: () => Form;
}
interface Row {
  /** The route as the app lists it (Hono's `app.routes`). */
  route: string;
  /** The requests aimed at B (paths under /dashboard). */
  aims: () => Attempt[];
  /** B's object, read back after the attempts (besides the snapshot). */
  kept?: () => Promise<void>;
}

const siteB = () => `/sites/${B.siteId}`;
const siteA = () => `/sites/${A.siteId}`;
const orgB = () => `/organizations/${B.orgId}`;
const orgA = () => `/organizations/${A.orgId}`;
const termKept = async () => expect((await env.DB.prepare("SELECT id FROM glossary_terms WHERE id = ?").bind(b.termId).first())?.id).toBe(b.termId);
const invitationKept = async () => expect((await env.DB.prepare("SELECT id FROM invitations WHERE id = ?").bind(b.invitationId).first())?.id).toBe(b.invitationId);
const editorKept = async () =>
  expect((await env.DB.prepare("SELECT role FROM memberships WHERE user_id = ? AND organization_id = ?").bind(b.editorId, B.orgId).first())?.role).toBe("editor");
const jobKept = async () => expect((await client(B.key).get(`/v1/jobs/${b.jobId}`)).body.status).toBe("queued");
const resultKept = async () => expect((await client(B.key).get("/v1/attention")).body.items.map((i: { id: string }) => i.id)).toContain(b.resultId);
const keyKept = async () => expect((await client(B.key).get("/v1/site")).status).toBe(200);
const memoryKept = async () => expect((await dash("GET", `/dashboard/sites/${B.siteId}/memory.tmx`, { cookie: ownerB.cookie })).html).toContain("Weiterlesen");
const deliveryKept = async () => expect((await env.DB.prepare("SELECT status FROM webhook_deliveries WHERE id = ?").bind(b.deliveryId).first())?.status).toBe("failed");
const sessionKept = async () => expect((await dash("GET", "/dashboard/account", { cookie: ownerB.cookie })).status).toBe(200);
const webhookKept = async () => expect((await client(B.key).get("/v1/webhook")).body.url).toBe("https://hooks.example.test/b");
const siteKept = async () => expect((await admin("GET", `/admin/v1/sites/${B.siteId}`)).body.name).toBe("B's site");

const TABLE: Row[] = [
  // One's own account: another person's session.
  { route: "/account/sessions/:id/end", aims: () => [{ path: `/account/sessions/${b.sessionId}/end` }], kept: sessionKept },
  // Billing (organization-scoped forms).
  ...["checkout", "plan", "sites", "portal", "cancel", "resume"].map(
    (what): Row => ({
      route: `/organizations/:org_id/billing/${what}`,
      aims: () => [{ path: `${orgB()}/billing/${what}`, form: () => ({ plan: "pro", site_ids: String(B.siteId) }) }],
    }),
  ),
  // Members and invitations.
  { route: "/organizations/:org_id/members/invite", aims: () => [{ path: `${orgB()}/members/invite`, form: () => ({ email: "new@example.com", role: "editor" }) }] },
  {
    route: "/organizations/:org_id/members/invitations/:invitation_id/resend",
    aims: () => [{ path: `${orgB()}/members/invitations/${b.invitationId}/resend` }, { path: `${orgA()}/members/invitations/${b.invitationId}/resend` }],
    kept: invitationKept,
  },
  {
    route: "/organizations/:org_id/members/invitations/:invitation_id/revoke",
    aims: () => [{ path: `${orgB()}/members/invitations/${b.invitationId}/revoke` }, { path: `${orgA()}/members/invitations/${b.invitationId}/revoke` }],
    kept: invitationKept,
  },
  {
    route: "/organizations/:org_id/members/:user_id/remove",
    aims: () => [{ path: `${orgB()}/members/${b.editorId}/remove` }, { path: `${orgA()}/members/${b.editorId}/remove` }],
    kept: editorKept,
  },
  { route: "/organizations/:org_id/two-factor", aims: () => [{ path: `${orgB()}/two-factor`, form: () => ({ required: "1" }) }] },
  { route: "/organizations/:org_id/erase", aims: () => [{ path: `${orgB()}/erase`, form: () => ({ confirm_name: b.orgName }) }], kept: siteKept },
  // The new-site form.
  { route: "/organizations/:org_id/sites", aims: () => [{ path: `${orgB()}/sites`, form: () => ({ name: "Planted", source_language: "en", target_languages: "de" }) }] },
  // Glossary (the organization's, reached through a site).
  { route: "/sites/:site_id/glossary", aims: () => [{ path: `${siteB()}/glossary`, form: () => ({ source: "Cart", language: "de", target: "Korb" }) }] },
  { route: "/sites/:site_id/glossary/import", aims: () => [{ path: `${siteB()}/glossary/import`, form: csvUpload }] },
  {
    route: "/sites/:site_id/glossary/:term_id/remove",
    aims: () => [{ path: `${siteB()}/glossary/${b.termId}/remove` }, { path: `${siteA()}/glossary/${b.termId}/remove` }],
    kept: termKept,
  },
  // Keys.
  { route: "/sites/:site_id/keys", aims: () => [{ path: `${siteB()}/keys`, form: () => ({ name: "planted" }) }] },
  { route: "/sites/:site_id/keys/:key_id/revoke", aims: () => [{ path: `${siteB()}/keys/${B.keyId}/revoke` }, { path: `${siteA()}/keys/${B.keyId}/revoke` }], kept: keyKept },
  // Jobs.
  { route: "/sites/:site_id/jobs/estimate", aims: () => [{ path: `${siteB()}/jobs/estimate`, form: () => ({ languages: "de" }) }] },
  { route: "/sites/:site_id/jobs", aims: () => [{ path: `${siteB()}/jobs`, form: () => ({ languages: "de" }) }] },
  { route: "/sites/:site_id/jobs/:job_id/cancel", aims: () => [{ path: `${siteB()}/jobs/${b.jobId}/cancel` }, { path: `${siteA()}/jobs/${b.jobId}/cancel` }], kept: jobKept },
  // The review queue.
  {
    route: "/sites/:site_id/attention/:result_id",
    aims: () => [
      { path: `${siteB()}/attention/${b.resultId}`, form: () => ({ action: "discard" }) },
      { path: `${siteA()}/attention/${b.resultId}`, form: () => ({ action: "discard" }) },
    ],
    kept: resultKept,
  },
  // Translation memory (entries addressed by the form's key).
  {
    route: "/sites/:site_id/memory/entry",
    aims: () => [
      { path: `${siteB()}/memory/entry`, form: () => ({ ...memoryKey, text: "Planted" }) },
      { path: `${siteA()}/memory/entry`, form: () => ({ ...memoryKey, text: "Planted" }) },
    ],
    kept: memoryKept,
  },
  {
    route: "/sites/:site_id/memory/delete",
    aims: () => [
      { path: `${siteB()}/memory/delete`, form: () => memoryKey },
      { path: `${siteA()}/memory/delete`, form: () => memoryKey },
    ],
    kept: memoryKept,
  },
  { route: "/sites/:site_id/memory/import", aims: () => [{ path: `${siteB()}/memory/import`, form: tmxUpload }], kept: memoryKept },
  // Settings and erasure.
  { route: "/sites/:site_id/settings", aims: () => [{ path: `${siteB()}/settings`, form: () => ({ name: "Planted", qa_mode: "editors" }) }], kept: siteKept },
  { route: "/sites/:site_id/erase", aims: () => [{ path: `${siteB()}/erase`, form: () => ({ confirm_name: "B's site" }) }], kept: siteKept },
  // Webhooks.
  {
    route: "/sites/:site_id/webhooks",
    aims: () => [{ path: `${siteB()}/webhooks`, form: () => ({ url: "https://hooks.example.test/planted", events: "job.finished" }) }],
    kept: webhookKept,
  },
  ...["rotate", "test", "enable", "delete"].map(
    (what): Row => ({ route: `/sites/:site_id/webhooks/${what}`, aims: () => [{ path: `${siteB()}/webhooks/${what}` }], kept: webhookKept }),
  ),
  {
    route: "/sites/:site_id/webhooks/deliveries/:delivery_id/redeliver",
    aims: () => [{ path: `${siteB()}/webhooks/deliveries/${b.deliveryId}/redeliver` }, { path: `${siteA()}/webhooks/deliveries/${b.deliveryId}/redeliver` }],
    kept: deliveryKept,
  },
];

/** Routes whose parameter is a secret token, not an id: none any more (one-time tokens travel in form bodies, never in a path: dashboard/one-time-links.tsx). */
const TOKEN_ROUTES: string[] = [];

beforeAll(async () => {
  A = await createSite({ name: "A's site" });
  B = await createSite({ name: "B's site", qa_mode: "separate", target_languages: [{ code: "de" }] });
  b.orgName = (await env.DB.prepare("SELECT name FROM organizations WHERE id = ?").bind(B.orgId).first<{ name: string }>())!.name;
  [ownerA, ownerB] = await Promise.all([person(A.orgId, "owner"), person(B.orgId, "owner")]);
  const editorB = await person(B.orgId, "editor");
  b.editorId = await userId(editorB.email);

  const term = await admin("PUT", `/admin/v1/organizations/${B.orgId}/glossary`, { terms: [{ source: "Checkout", language: "de", target: "Kasse" }] });
  expect(term.status).toBe(200);
  b.termId = (await env.DB.prepare("SELECT id FROM glossary_terms WHERE organization_id = ?").bind(B.orgId).first<{ id: number }>())!.id;
  const inv = await admin("POST", `/admin/v1/organizations/${B.orgId}/invitations`, { email: "invited-b@example.com", role: "editor" });
  b.invitationId = inv.body.id;

  // An item in B's review queue (pseudo output grows past max_length), then a queued job (alarms do not fire on their own here).
  const cb = client(B.key);
  expect((await cb.put("/v1/units", unit("post:held", [{ key: "title", text: "Hello held world", max_length: 12 }]))).status).toBe(200);
  await job(cb, B.siteId);
  b.resultId = (await cb.get("/v1/attention")).body.items[0].id;
  expect((await cb.put("/v1/units", unit("post:queued", [{ key: "title", text: "Queued text" }]))).status).toBe(200);
  b.jobId = (await cb.post("/v1/jobs", { confirm: true })).body.id;
  await jobKept();

  expect((await cb.put("/v1/webhook", { url: "https://hooks.example.test/b", events: ["job.finished"] })).status).toBe(200);
  await env.DB.prepare("INSERT INTO webhook_deliveries (id, site_id, event, payload, created_at, attempts, status) VALUES (?, ?, 'ping', '{}', ?, 1, 'failed')")
    .bind(b.deliveryId, B.siteId, new Date().toISOString())
    .run();
  expect((await dash("POST", `/dashboard${siteB()}/memory/import`, { cookie: ownerB.cookie, form: tmxUpload() })).status).toBe(200);
  b.sessionId = (await env.DB.prepare("SELECT token_hash FROM sessions WHERE user_id = ?")
    .bind(await userId(ownerB.email))
    .first<{ token_hash: string }>())!.token_hash.slice(0, 16);

  for (const kept of [termKept, invitationKept, editorKept, resultKept, keyKept, memoryKept, deliveryKept, sessionKept, webhookKept, siteKept]) await kept();
});

describe("every dashboard action addressed by an id, aimed at another organization's object", () => {
  it("has a row in the table for each state-changing route with a parameter", () => {
    const routes = dashboard.routes.filter((r) => ["POST", "PUT", "PATCH", "DELETE"].includes(r.method) && r.path.includes("/:")).map((r) => r.path);
    const covered = new Set([...TABLE.map((r) => r.route), ...TOKEN_ROUTES]);
    expect(routes.filter((r) => !covered.has(r))).toEqual([]);
    // and no row for a route that is gone
    expect([...covered].filter((r) => !routes.includes(r))).toEqual([]);
  });

  it.each(TABLE.map((r) => [r.route, r] as const))("%s answers 404 and leaves B's data unchanged", async (_, row) => {
    for (const aim of row.aims()) {
      const before = await snapshot();
      const res = await dash("POST", `/dashboard${aim.path}`, { cookie: ownerA.cookie, form: aim.form?.() ?? {} });
      expect(res.status, aim.path).toBe(404);
      expect(await snapshot(), aim.path).toEqual(before);
    }
    await row.kept?.();
  });
});

describe("an action within A leaves B's rows alone", () => {
  it("removing a member of both organizations from A keeps them in B", async () => {
    const both = await person(A.orgId, "editor");
    const both_id = await userId(both.email);
    await env.DB.prepare("INSERT INTO memberships (user_id, organization_id, role, created_at) VALUES (?, ?, 'editor', ?)").bind(both_id, B.orgId, new Date().toISOString()).run();
    const res = await dash("POST", `/dashboard${orgA()}/members/${both_id}/remove`, { cookie: ownerA.cookie });
    expect(res.status).toBe(303);
    const orgs = (await env.DB.prepare("SELECT organization_id FROM memberships WHERE user_id = ?").bind(both_id).all<{ organization_id: number }>()).results;
    expect(orgs.map((o) => o.organization_id)).toEqual([B.orgId]);
  });
});
