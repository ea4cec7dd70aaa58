// The webhook route's memory of deliveries it has taken (webhook-id), against replays.
/**
 * The webhook ids of the last five minutes (a delivery's signature is valid for five minutes):
 * the same signed delivery sent again is answered 204 and starts no pass.
 */
export class RecentIds {
  private readonly seen = new Map<string, number>();
  constructor(
    private readonly ttlMs = 5 * 60_000,
    private readonly max = 10_000,
    private readonly now = () => Date.now(),
  ) {}
  /** Remembers the id; answers false when it was seen within the window. */
  add(id: string): boolean {
    const now = this.now();
    for (const [old, at] of this.seen) {
      if (now - at < this.ttlMs && this.seen.size < this.max) break;
      this.seen.delete(old);
    }
    const at = this.seen.get(id);
    if (at !== undefined && now - at < this.ttlMs) return false;
    this.seen.delete(id);
    this.seen.set(id, now);
    return true;
  }
}
