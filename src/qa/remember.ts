import type { QAInput, SourceFacts } from "./types";

/**
 * A job checks each source text once per target language: what a check derives from a source
 * (its placeholders, numbers, URLs, ending mark, double spaces) is remembered for the next
 * language instead of being scanned again (SourceFacts). Only sources are remembered (a
 * translation is checked once).
 *
 * Bounded by generations: when the newer map is full it becomes the older one and the oldest
 * entries go all at once (evicting one entry at a time from a Map means walking past deleted
 * slots, which costs more than the scans it saves).
 */
export class Remembered<T> {
  private newer = new Map<string, T>();
  private older = new Map<string, T>();

  constructor(private readonly limit = SOURCES_REMEMBERED) {}

  get(key: string, compute: () => T): T {
    let value = this.newer.get(key);
    if (value !== undefined) return value;
    value = this.older.get(key);
    if (value === undefined) value = compute();
    if (this.newer.size >= this.limit) {
      this.older = this.newer;
      this.newer = new Map();
    }
    this.newer.set(key, value);
    return value;
  }
}

/**
 * Sources remembered per format and source language (up to twice as many while a generation turns): enough
 * for a slice of each of a job's languages running side by side, which work through the same
 * segments at about the same time.
 */
export const SOURCES_REMEMBERED = 2048;

/** By format, then source language: a lookup hashes these short strings and the text, whose hash the engine keeps with the string. */
const facts = new Map<string, Map<string, Remembered<SourceFacts>>>();
const noFacts = (): SourceFacts => ({});

/** The facts remembered for this source (a record of nothing yet, the first time). */
export function sourceFacts(source: string, format: string, sourceLanguage: string): SourceFacts {
  let byLanguage = facts.get(format);
  if (!byLanguage) facts.set(format, (byLanguage = new Map()));
  let remembered = byLanguage.get(sourceLanguage);
  if (!remembered) byLanguage.set(sourceLanguage, (remembered = new Remembered<SourceFacts>()));
  return remembered.get(source, noFacts);
}

/** The input's source facts: the ones runQA passed, else looked up (a check called on its own). */
export const factsOf = (input: QAInput): SourceFacts => input.facts ?? sourceFacts(input.source, input.format, input.sourceLanguage);
