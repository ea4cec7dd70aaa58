/**
 * The most a job bills: its estimated characters, which never grow (runner.ts, start). Its scope
 * is the work that existed when it was created, so in the common case it bills exactly its
 * estimate or less (memory hits and repeats found since). What can still cost more is a text the
 * job covers that changed after its creation and is now longer, no longer a repeat, or no longer
 * a memory hit (an entry removed, the organization's memory unreadable): texts that would take
 * the job past its estimate are not sent, and their items are left to the next job (skipped: no
 * result, no error; they stay missing or stale). One per job and invocation (runner.ts,
 * runLanguages), shared by the job's languages: what it has left is its estimate less what its
 * stored commits billed, less the engine batches launched since.
 */
import type { Group } from "./slice-items";

/** Characters a batch bills: the first text of each group (the others reuse its translation). */
export const billedCharacters = (groups: Group[]) => groups.reduce((n, g) => n + g.items[0].characters, 0);

export class Budget {
  constructor(private left: number) {}

  /** Characters the job may still bill. */
  get remaining() {
    return this.left;
  }

  /**
   * A batch's groups that fit in what is left, in order (taken off it), and those that do not
   * (left to the next job). A group that does not fit does not stop a later, shorter one.
   */
  take(groups: Group[]): { fits: Group[]; over: Group[] } {
    const fits: Group[] = [];
    const over: Group[] = [];
    for (const group of groups) {
      const characters = group.items[0].characters;
      if (characters > this.left) over.push(group);
      else {
        fits.push(group);
        this.left -= characters;
      }
    }
    return { fits, over };
  }

  /** Gives back what a batch took when it billed nothing (the engine refused it). */
  giveBack(characters: number) {
    this.left += characters;
  }
}
