/**
 * The one call the rest of the house makes: `emit(event)`. It returns at once; the event is
 * published (D1 look-up, Queue message) in the background, and a failure there is logged,
 * never thrown, so a job's commit or finish never waits for, or fails with, a webhook.
 */
import { controlDb } from "../control/db";
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
    const logged = work.catch((err) =>
      console.error(JSON.stringify({ level: "warn", message: "webhook event not published", site: siteId, event: event.type, error: String(err) })),
    );
    waitUntil?.(logged);
  };
}
