/**
 * A scheduled invocation's D1 query budget (docs/decisions.md "Going live"). Cloudflare allows 1,000 D1
 * queries per Worker invocation, a cron or queue handler included; past it every query fails.
 * The scheduled handler hands its tasks a D1 binding metered by a `QueryBudget`, and each task
 * takes the next organization only while the budget still holds that organization's worst case
 * (`reserve`): it stops, records where, and the next invocation goes on from there.
 */

/** Queries one invocation may spend: well under the platform's 1,000, leaving room for the handler's own. */
export const CRON_QUERY_BUDGET = 800;

export class QueryBudget {
  used = 0;
  constructor(readonly limit: number) {}
  left() {
    return this.limit - this.used;
  }
  /** Whether a step that costs at most `reserve` queries still fits. */
  allows(reserve: number) {
    return this.left() >= reserve;
  }
}

/**
 * The binding with every statement counted against `budget`: one per `prepare` (a prepared
 * statement is run once, alone or in a `batch`, where D1 counts each statement) and one per
 * `exec`. The count is kept, not enforced: the tasks check `allows` before each step.
 */
export function meteredD1(db: D1Database, budget: QueryBudget): D1Database {
  return new Proxy(db, {
    get(target, name) {
      if (name === "prepare")
        return (query: string) => {
          budget.used++;
          return target.prepare(query);
        };
      if (name === "exec")
        return (query: string) => {
          budget.used++;
          return target.exec(query);
        };
      const value = Reflect.get(target, name, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/** The Worker's bindings with `DB` metered (the rest as they are). */
export function meteredEnv(env: Env, budget: QueryBudget): Env {
  const DB = meteredD1(env.DB, budget);
  return new Proxy(env, { get: (target, name) => (name === "DB" ? DB : Reflect.get(target, name, target)) });
}
