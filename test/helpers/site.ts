/** The site object from inside: its stub, its bindings, runner deps built from its own state, its counts recounted, its memory shared. */
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import type { SiteSettings } from "../../src/control/sites.control";
import type { RunnerDeps } from "../../src/site/jobs/runner";
import type { SiteObject } from "../../src/site/object";
import { siteTargets } from "../../src/site/settings";
import { rebuildCounts } from "../../src/site/sync/counts";

/** The site object's stub for a site id (or any other name). */
export const stubOf = (siteId: number | string) => env.SITE.getByName(String(siteId));

/** A Durable Object's `env` is protected: the tests reach it through here only. */
const bindings = (o: SiteObject) => o as unknown as { env: Env };

/** The live site object instance's bindings (what its alarm and requests read as `this.env`). */
export const objectEnv = (o: SiteObject): Env => bindings(o).env;

/** Replaces the live instance's bindings until it is evicted (it then starts again with the real ones). */
export function setObjectEnv(o: SiteObject, next: Env) {
  bindings(o).env = next;
}

/** What a test changes of the runner deps: any of them, and bindings merged into the object's own. */
export type DepsOverrides = Omit<Partial<RunnerDeps>, "env"> & { env?: Partial<Env> };

/** Runner deps from the object's store, stored settings and bindings (`overrides.env` merged into a copy of them). */
export function runnerDeps(o: SiteObject, overrides: DepsOverrides = {}): RunnerDeps {
  const { env: more, ...rest } = overrides;
  return { store: o.store, settings: o.store.getMeta<SiteSettings>("settings")!, ...rest, env: more ? { ...objectEnv(o), ...more } : objectEnv(o) };
}

/**
 * Runs `fn` inside the site object with runner deps built from its own state, on the test
 * pool's D1 unless `overrides.env` names another (an earlier `arm` may have left a flaky one).
 */
export function inObject<T>(siteId: number, fn: (deps: RunnerDeps, o: SiteObject) => Promise<T>, overrides: DepsOverrides = {}) {
  return runInDurableObject(stubOf(siteId), async (o: SiteObject) => fn(runnerDeps(o, { ...overrides, env: { DB: env.DB, ...overrides.env } }), o));
}

/** What `read` finds in the object's counts as maintained, then after a rebuild from the rows (`recount`). */
export function recounted<T>(siteId: number, read: (o: SiteObject) => T) {
  return runInDurableObject(stubOf(siteId), (o: SiteObject) => {
    const maintained = read(o);
    o.store.tx(() => rebuildCounts(o.store, siteTargets(o.store.getMeta<SiteSettings>("settings")!)));
    return { maintained, recount: read(o) };
  });
}

/** Runs the site's alarm until no memory_share run is registered (each run sends one batch). */
export async function share(siteId: number) {
  for (let i = 0; i < 10; i++) {
    const due = await runInDurableObject(stubOf(siteId), (o: SiteObject) => o.alarms.dueAt("memory_share"));
    if (due === null) return;
    await runDurableObjectAlarm(stubOf(siteId));
  }
  throw new Error("memory_share still due after 10 alarms");
}
