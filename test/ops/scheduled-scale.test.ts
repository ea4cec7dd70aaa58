/**
 * Scheduled work at scale (docs/decisions.md "Going live"): with 5,000 subscribed organizations, every
 * invocation of the crons stays within the D1 query bound (CRON_QUERY_BUDGET = 800 of
 * Cloudflare's 1,000, counted here by a proxy around env.DB independent of the Worker's own
 * meter), and after enough invocations every organization's month is closed, every usage mail
 * is sent and the day's digest pass is done.
 */
import { createExecutionContext, createScheduledController, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import worker from "../../src/index";
import { runCron } from "../../src/ops/scheduled.ops";

const ORGS = 5_000;
const PLATFORM_LIMIT = 1_000;

/** env with DB wrapped: every statement prepared or executed counts as one query. */
function counted() {
  const counter = { queries: 0 };
  const DB = new Proxy(env.DB, {
    get(target, name) {
      if (name === "prepare" || name === "exec")
        return (query: string) => {
          counter.queries++;
          return (target[name] as (q: string) => unknown).call(target, query);
        };
      const value = Reflect.get(target, name, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  const wrapped = new Proxy(env, { get: (target, name) => (name === "DB" ? DB : Reflect.get(target, name, target)) });
  return { env: wrapped as Env, counter };
}

async function invoke(cron: string, at: Date) {
  const { env: counting, counter } = counted();
  const ctx = createExecutionContext();
  await worker.scheduled!(createScheduledController({ scheduledTime: at, cron }), counting, ctx);
  await waitOnExecutionContext(ctx);
  return counter.queries;
}

/** 5,000 organizations on agency with 1,000 characters included, each with one owner, 1,500 characters used in January (overage) and 900 in February (90 %: an 80 % mail). */
async function seed() {
  const n = `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${ORGS})`;
  await env.DB.batch([
    env.DB.prepare(`${n} INSERT INTO organizations (id, name) SELECT i, 'Org ' || i FROM n`),
    env.DB.prepare(`${n} INSERT INTO subscriptions (organization_id, plan, status, included_characters) SELECT i, 'agency', 'active', 1000 FROM n`),
    env.DB.prepare(`${n} INSERT INTO users (id, email, password_hash) SELECT i, 'owner' || i || '@scale.test', 'x' FROM n`),
    env.DB.prepare(`${n} INSERT INTO memberships (user_id, organization_id, role) SELECT i, i, 'owner' FROM n`),
    env.DB.prepare(
      `${n} INSERT INTO usage_ledger (organization_id, site_id, job_id, slice, characters, month, created_at) SELECT i, 100000 + i, 1, 1, 1500, '2031-01-01', '2031-01-15T00:00:00Z' FROM n`,
    ),
    env.DB.prepare(
      `${n} INSERT INTO usage_ledger (organization_id, site_id, job_id, slice, characters, month, created_at) SELECT i, 100000 + i, 2, 1, 900, '2031-02-01', '2031-02-09T00:00:00Z' FROM n`,
    ),
  ]);
}

const count = async (query: string) => (await env.DB.prepare(query).first<{ n: number }>())!.n;

describe("crons with 5,000 organizations", () => {
  it("close every month, send every usage mail and finish the digest, each invocation under 1,000 D1 queries", { timeout: 600_000 }, async () => {
    const logs = vi.spyOn(console, "log").mockImplementation(() => {});
    await seed();

    // The daily close, within the bound (100 organizations a page, 9 queries a page).
    const daily = await invoke("20 0 * * *", new Date("2031-02-01T00:20:00Z"));
    expect(daily).toBeLessThan(PLATFORM_LIMIT);
    expect(await count("SELECT count(*) AS n FROM billing_closes WHERE month = '2031-01'")).toBeGreaterThan(0);

    // The quarter-hour cron goes on with the close, then the usage mails and (after 07:00) the digest.
    const perInvocation: number[] = [];
    let at = new Date("2031-02-10T08:00:00Z").getTime();
    for (let i = 0; i < 200; i++) {
      perInvocation.push(await invoke("*/15 * * * *", new Date(at)));
      at += 15 * 60_000;
      const closed = await count("SELECT count(*) AS n FROM billing_closes WHERE month = '2031-01'");
      const mailed = await count("SELECT count(*) AS n FROM mail_outbox WHERE kind = 'usage'");
      const digest = await env.DB.prepare("SELECT position FROM cron_cursors WHERE name = 'digest:2031-02-10'").first<{ position: number }>();
      if (closed === ORGS && mailed === ORGS && digest?.position === -1) break;
    }
    expect(Math.max(...perInvocation)).toBeLessThan(PLATFORM_LIMIT);

    expect(await count("SELECT count(*) AS n FROM billing_closes WHERE month = '2031-01'")).toBe(ORGS);
    expect(await count("SELECT count(*) AS n FROM billing_closes WHERE month = '2031-01' AND overage_characters = 500")).toBe(ORGS);
    // Each owner exactly one 80 % mail.
    expect(await count("SELECT count(*) AS n FROM mail_outbox WHERE kind = 'usage'")).toBe(ORGS);
    expect(await count("SELECT count(DISTINCT \"to\") AS n FROM mail_outbox WHERE kind = 'usage'")).toBe(ORGS);

    // Another invocation changes nothing and stays cheap.
    const idle = await invoke("*/15 * * * *", new Date(at));
    expect(idle).toBeLessThan(PLATFORM_LIMIT);
    expect(await count("SELECT count(*) AS n FROM mail_outbox WHERE kind = 'usage'")).toBe(ORGS);

    // A small budget: each invocation stops where its budget ends and the next resumes there.
    const small: number[] = [];
    let closes = 0;
    for (let i = 0; i < 100 && closes < ORGS; i++) {
      const { env: counting, counter } = counted();
      await runCron("20 0 * * *", counting, new Date("2031-03-01T00:20:00Z"), 40);
      small.push(counter.queries);
      const now = await count("SELECT count(*) AS n FROM billing_closes WHERE month = '2031-02'");
      expect(now, `invocation ${i}`).toBeGreaterThan(closes); // progress every time
      closes = now;
    }
    expect(closes).toBe(ORGS);
    expect(small.length).toBeGreaterThan(10);
    expect(Math.max(...small)).toBeLessThanOrEqual(40);
    // Each run said what it did and what is left.
    const last = logs.mock.calls
      .map(([line]) => JSON.parse(String(line)))
      .filter((l) => l.event === "cron.run")
      .at(-1);
    expect(last).toMatchObject({ cron: "20 0 * * *", queries: expect.any(Number), close: [{ month: "2031-02", left: 0 }] });
    logs.mockRestore();
  });
});
