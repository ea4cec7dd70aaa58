/**
 * The site's settings as the object holds them. Every call brings the caller's view of the
 * settings (read from D1 by the Worker); the object keeps the newest it has seen (by `version`)
 * for that call, later calls and the alarm, and never adopts an older one.
 */
import type { SiteSettings } from "../control/sites.control";
import { sharingChanged } from "./memory/share";
import { seedResultSequence } from "./results/results";
import { siteTargets } from "./settings";
import type { Store } from "./store";
import { rebuildCounts } from "./sync/counts";

export class HeldSettings {
  /** The stored settings and their JSON, kept in memory so an unchanged call costs one string comparison. */
  private held?: { settings: SiteSettings; json: string };
  /** Set when the sharing setting changed: the call that sees it registers the memory_share need. */
  shareChanged = false;

  constructor(private readonly store: Store) {}

  /** The settings the call runs with: `settings`, stored, unless the object holds a newer version. A change of target languages rebuilds the counts. */
  adopt(settings: SiteSettings): SiteSettings {
    if (!this.held) {
      const stored = this.store.getMeta<SiteSettings>("settings");
      if (stored) this.held = { settings: stored, json: JSON.stringify(stored) };
    }
    const previous = this.held?.settings;
    if (previous && (previous.version ?? 0) > (settings.version ?? 0)) return previous;
    const json = JSON.stringify(settings);
    if (previous && json === this.held!.json) return previous;
    this.store.tx(() => {
      if (!previous) seedResultSequence(this.store, settings.id);
      this.store.setMeta("settings", settings);
      const codes = (s: SiteSettings | undefined) => JSON.stringify(s?.targetLanguages.map((t) => t.code) ?? []);
      if (codes(previous) !== codes(settings)) rebuildCounts(this.store, siteTargets(settings));
      // Settings stored before the setting existed have none: those sites did not share.
      if (sharingChanged(this.store, previous?.shareMemory === true, settings.shareMemory === true)) this.shareChanged = true;
    });
    this.store.sharesMemory = settings.shareMemory === true;
    this.held = { settings, json };
    return settings;
  }
}
