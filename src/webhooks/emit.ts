/**
 * The one call the rest of the house makes: `emit(event)`. It returns at once; the event is
 * published (D1 look-up, Queue message) in the background, and a failure there is logged,
 * never thrown, so a job's commit or finish never waits for, or fails with, a webhook.
 */
import { controlDb } from "../control/db";
import { log, redactError } from "../obs/log";
import type { SiteEvent } from "./events";
import { type PublishDeps, publish } from "./publish";

export type Emit = (event: SiteEvent) => void;

export const publishDeps = (env: Env): PublishDeps => ({ db: controlDb(env.DB), queue: env.WEBHOOK_QUEUE, now: Date.now });

/** An `emit` for one site; `waitUntil` keeps the background work alive where the platform needs it. */
export function emitter(env: Env, siteId: number, waitUntil?: (promise: Promise<unknown>) => void, deps: PublishDeps = publishDeps(env)): Emit {
  return (event) => {
    let work: Promise<unknown>;
    try {
      work = publish(deps, siteId, event);
    } catch (err) {
      work = Promise.reject(err);
    }
    const logged = work.catch((err) => log("warn", "webhook.not_published", { site_id: siteId, type: event.type, error: redactError(err) }));
    waitUntil?.(logged);
  };
}
