#!/usr/bin/env node
/**
 * `node scripts/ops.mjs <command> …` (or `npm run ops -- <command> …`: npm needs the `--` before
 * a flag such as --yes): the on-call engineer's admin API calls (docs/runbook.md),
 * so nobody reads D1 or object storage by hand. Reads ADMIN_TOKEN and TRANSYNC_URL (the
 * service's base URL, default http://127.0.0.1:8787) from the environment; prints the answer's
 * JSON; exits 1 on an error answer (its ErrorOut printed to stderr).
 *
 *   ops health                     deep health: D1, site objects, queue, mail, engines, version
 *   ops orgs [query] [--cursor c]  organizations (a part of the name, or an id)
 *   ops sites [org_id] [--cursor c] sites, of one organization or all
 *   ops site 42                    the site, its diagnostics and its active jobs
 *   ops jobs 42 [status]           the site's jobs (active, queued, running, succeeded, failed, cancelled)
 *   ops cancel 42 7 ["reason"]     cancel job 7 of site 42; the reason is shown to the customer on the job
 *   ops key tsk_…                  which site and organization a key belongs to: the whole key, or its
 *                                  prefix as log lines show it (tsk_ and 6 characters)
 *   ops revoke 42 21               revoke key 21 of site 42
 *   ops suspend 42 "reason"        suspend site 42 (its keys get 403 quoting the reason)
 *   ops resume 42                  end the suspension
 *   ops webhook 42 [status]        site 42's webhook endpoint and deliveries (pending, delivered, failed)
 *   ops redeliver 42 msg_…         send one of site 42's webhook deliveries again
 *   ops dead-letters [site_id] [--redeliver]
 *                                  deliveries the dead-letter queue ended; --redeliver sends each again
 *   ops credit 3 2026-11 1800000 "reason"
 *                                  credit organization 3 characters for a month (off its overage)
 *   ops restore 42 <ISO time> [--yes]
 *                                  a dry run of restoring site 42 to that time (what it held then,
 *                                  what goes back, the jobs cancelled); --yes then restores it
 *   ops usage 3 2026-11            organization 3's month of usage (credits included)
 *   ops discrepancies [YYYY-MM]    usage (or credits) that reached D1 after its month was closed
 *   ops audit [org_id]             the audit log, newest first
 */
import process from "node:process";

const base = (process.env.TRANSYNC_URL ?? "http://127.0.0.1:8787").replace(/\/+$/, "");
const token = process.env.ADMIN_TOKEN;

function usage(message) {
  if (message) console.error(message);
  console.error(
    "usage: ops health | orgs [q] | sites [org_id] | site <id> | jobs <site_id> [status] | cancel <site_id> <job_id> [reason] | key <tsk_… or its 10-character prefix> | revoke <site_id> <key_id> | suspend <site_id> <reason> | resume <site_id> | webhook <site_id> [status] | redeliver <site_id> <delivery_id> | dead-letters [site_id] [--redeliver] | credit <org_id> <YYYY-MM> <characters> <reason> | restore <site_id> <ISO time> [--yes] | usage <org_id> <YYYY-MM> | discrepancies [YYYY-MM] | audit [org_id]\n" +
      "environment: ADMIN_TOKEN (required), TRANSYNC_URL (default http://127.0.0.1:8787)",
  );
  process.exit(2);
}

async function call(method, path, body) {
  const res = await fetch(base + path, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = text;
  }
  if (!res.ok && !(path === "/admin/v1/health" && res.status === 503)) {
    console.error(`${method} ${path} → ${res.status} (request id ${res.headers.get("x-request-id") ?? "none"})`);
    console.error(typeof parsed === "string" ? parsed : JSON.stringify(parsed, null, 2));
    process.exit(1);
  }
  return { status: res.status, body: parsed };
}

const id = (value, what) => {
  if (!/^\d+$/.test(value ?? "")) usage(`${what} must be a number`);
  return value;
};
const query = (params) => {
  const q = new URLSearchParams(Object.entries(params).filter(([, v]) => v !== undefined && v !== ""));
  return q.size ? `?${q}` : "";
};
const flag = (args, name) => {
  const i = args.indexOf(name);
  if (i < 0) return [undefined, args];
  return [args[i + 1], args.filter((_, j) => j !== i && j !== i + 1)];
};

async function main(argv) {
  const [command, ...rest] = argv;
  if (!command || command === "help" || command === "--help") usage();
  if (!token) usage("ADMIN_TOKEN is not set (the admin API's bearer token).");
  const [cursor, flagged] = flag(rest, "--cursor");
  const yes = flagged.includes("--yes");
  const redeliverAll = flagged.includes("--redeliver");
  const args = flagged.filter((a) => a !== "--yes" && a !== "--redeliver");
  switch (command) {
    case "health": {
      const { status, body } = await call("GET", "/admin/v1/health");
      print(body);
      if (status !== 200) process.exit(1);
      return;
    }
    case "orgs":
      return print((await call("GET", `/admin/v1/organizations${query({ q: args.join(" "), cursor })}`)).body);
    case "sites":
      return print((await call("GET", `/admin/v1/sites${query({ organization_id: args[0], cursor })}`)).body);
    case "site": {
      const site = id(args[0], "site id");
      const [detail, diagnostics, jobs] = await Promise.all([
        call("GET", `/admin/v1/sites/${site}`),
        call("GET", `/admin/v1/sites/${site}/diagnostics`),
        call("GET", `/admin/v1/sites/${site}/jobs?status=active`),
      ]);
      return print({ site: detail.body, diagnostics: diagnostics.body, active_jobs: jobs.body.jobs });
    }
    case "jobs":
      return print((await call("GET", `/admin/v1/sites/${id(args[0], "site id")}/jobs${query({ status: args[1] })}`)).body);
    case "cancel": {
      const reason = args.slice(2).join(" ").trim();
      return print((await call("POST", `/admin/v1/sites/${id(args[0], "site id")}/jobs/${id(args[1], "job id")}/cancel`, reason ? { reason } : undefined)).body);
    }
    case "key":
      if (!args[0]) usage("give the key, or its prefix (tsk_ and 6 characters)");
      return print((await call("POST", "/admin/v1/keys/lookup", args[0].length === 10 ? { prefix: args[0] } : { key: args[0] })).body);
    case "webhook":
      return print((await call("GET", `/admin/v1/sites/${id(args[0], "site id")}/webhook/deliveries${query({ status: args[1] })}`)).body);
    case "redeliver":
      if (!args[1]) usage("give the delivery id (msg_…)");
      return print((await call("POST", `/admin/v1/sites/${id(args[0], "site id")}/webhook/deliveries/${encodeURIComponent(args[1])}/redeliver`)).body);
    case "dead-letters": {
      const { body } = await call("GET", `/admin/v1/webhook/dead-letters${query({ site_id: args[0] === undefined ? undefined : id(args[0], "site id") })}`);
      if (!redeliverAll) return print(body);
      // Each one again, through the same audited endpoint as `ops redeliver`.
      const sent = [];
      for (const d of body.dead_letters) sent.push((await call("POST", `/admin/v1/sites/${d.site_id}/webhook/deliveries/${d.id}/redeliver`)).body.id);
      return print({ redelivered: sent });
    }
    case "credit": {
      const reason = args.slice(3).join(" ").trim();
      if (!/^\d{4}-\d{2}$/.test(args[1] ?? "")) usage("give the month as YYYY-MM");
      if (!reason) usage("give the reason (shown to the customer with the credit)");
      return print(
        (await call("POST", `/admin/v1/organizations/${id(args[0], "organization id")}/credits`, { month: args[1], characters: Number(id(args[2], "characters")), reason })).body,
      );
    }
    case "restore": {
      const site = id(args[0], "site id");
      if (!args[1]) usage("give the time to restore to (ISO 8601 UTC, e.g. 2027-01-05T10:00:00Z)");
      // Always the dry run first: what the site held then and what goes back.
      const preview = (await call("POST", `/admin/v1/sites/${site}/restore`, { at: args[1], dry_run: true })).body;
      print(preview);
      if (!preview.restorable) {
        console.error(`site ${site} cannot be restored here: ${preview.detail}`);
        process.exit(1);
      }
      if (!yes) {
        console.error(`dry run only: nothing changed. To restore site ${site} to ${preview.at}, repeat with --yes (npm run ops -- restore ${site} ${args[1]} --yes).`);
        return;
      }
      return print((await call("POST", `/admin/v1/sites/${site}/restore`, { at: args[1] })).body);
    }
    case "revoke":
      await call("DELETE", `/admin/v1/sites/${id(args[0], "site id")}/keys/${id(args[1], "key id")}`);
      return print({ revoked: Number(args[1]) });
    case "suspend":
      if (!args[1]) usage("give the reason (shown to the site's callers)");
      return print((await call("POST", `/admin/v1/sites/${id(args[0], "site id")}/suspend`, { reason: args.slice(1).join(" ") })).body);
    case "resume":
      return print((await call("DELETE", `/admin/v1/sites/${id(args[0], "site id")}/suspend`)).body);
    case "usage":
      return print((await call("GET", `/admin/v1/organizations/${id(args[0], "organization id")}/usage${query({ month: args[1] })}`)).body);
    case "discrepancies":
      return print((await call("GET", `/admin/v1/billing/discrepancies${query({ month: args[0] })}`)).body);
    case "audit":
      return print((await call("GET", `/admin/v1/audit${query({ organization_id: args[0], cursor })}`)).body);
    default:
      usage(`unknown command: ${command}`);
  }
}

function print(value) {
  console.log(JSON.stringify(value, null, 2));
}

main(process.argv.slice(2)).catch((err) => {
  console.error(`ops: ${err instanceof Error ? err.message : String(err)} (is ${base} the service? TRANSYNC_URL sets it)`);
  process.exit(1);
});
