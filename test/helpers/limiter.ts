/**
 * A rate limiter as wrangler.toml's `[[ratelimits]]` declares one (`simple = { limit, period }`):
 * at most `limit` calls per key in each window of `period` seconds, the windows aligned to the
 * clock as Cloudflare's (and Miniflare's) are. It counts on the clock the test gives, so a test
 * starts a window when it likes and moves to the next without waiting; the real bindings, whose
 * windows follow the wall clock, are tested in test/lifecycle/limits.slow.test.ts.
 */
import toml from "../../wrangler.toml?raw";

export function windowLimiter(limit: number, periodSeconds: number, now: () => number): RateLimit {
  const counts = new Map<string, number>();
  return {
    async limit({ key }) {
      const slot = `${Math.floor(now() / (periodSeconds * 1000))}\u0000${key}`;
      const n = (counts.get(slot) ?? 0) + 1;
      counts.set(slot, n);
      return { success: n <= limit };
    },
  };
}

/** The limiter wrangler.toml declares under `name`, counting on `now`. */
export function declaredLimiter(name: string, now: () => number): RateLimit {
  const declared = new RegExp(`\\[\\[ratelimits\\]\\]\\s*name = "${name}"\\s*namespace_id = "\\d+"\\s*simple = \\{ limit = (\\d+), period = (\\d+) \\}`).exec(toml);
  if (!declared) throw new Error(`wrangler.toml declares no rate limit ${name}`);
  return windowLimiter(Number(declared[1]), Number(declared[2]), now);
}
