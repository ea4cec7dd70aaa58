// The part every engine's translate() shares: protect markup per segment, split into
// upstream requests at the engine's limits, send, restore, and reassemble in order.
import { MarkupError, protect, type ProtectMode } from "../markup/protect";
import { mapWithConcurrency, splitBatches } from "./batch";
import { EngineError, type EngineLimits, type EngineRequest, type EngineSegment } from "./types";

/** One segment as the engine receives it. */
export interface PreparedSegment {
  /** Position in the request's `segments`. */
  index: number;
  segment: EngineSegment;
  /** What is sent to the engine (the segment after protect()). */
  text: string;
  /**
   * Plain or Markdown text that protect() left unchanged: an engine with an HTML mode may
   * send a batch made only of such segments as plain text and skip restoring.
   */
  plain: boolean;
  restore(translated: string): string;
}

export interface SendOptions {
  /** Whether the batch goes in the engine's HTML mode (mode "html" and not every segment plain); always false in mode "text". */
  markup: boolean;
}

export interface PipelineOptions {
  /** Engine name for messages, e.g. "DeepL". */
  engine: string;
  mode: ProtectMode;
  limits: EngineLimits;
  /** Size of one sent text as the engine counts it against `limits.maxCharacters`. */
  measure: (text: string) => number;
  /** Upstream requests in flight at once (default 1). */
  concurrency?: number;
  /** Translates one batch; answers one text per segment, in order. */
  send: (batch: PreparedSegment[], options: SendOptions) => Promise<string[]>;
}

/** Turns a MarkupError into the engine's bad_response; rethrows anything else. */
export function markupFailure(engine: string, error: unknown, index: number): never {
  if (error instanceof MarkupError) {
    throw new EngineError(
      "bad_response",
      `${engine} changed or dropped protected markup or placeholders in segment ${index + 1}`,
    );
  }
  throw error;
}

/** Protects one segment for the engine. */
export function prepareSegment(engine: string, segment: EngineSegment, index: number, mode: ProtectMode): PreparedSegment {
  let prepared;
  try {
    prepared = protect(segment.text, segment.format, mode);
  } catch (error) {
    markupFailure(engine, error, index);
  }
  const plain = (segment.format === "plain" || segment.format === "markdown") && prepared.text === segment.text;
  return { index, segment, text: prepared.text, plain, restore: prepared.restore };
}

/** Restores one translation; a MarkupError becomes EngineError("bad_response"). */
export function restoreSegment(engine: string, item: PreparedSegment, translated: string): string {
  try {
    return item.restore(translated);
  } catch (error) {
    markupFailure(engine, error, item.index);
  }
}

/**
 * Runs a request through an engine. Segments that are empty or only whitespace are returned
 * as they are without being sent.
 */
export async function runPipeline(request: EngineRequest, options: PipelineOptions): Promise<string[]> {
  const results = request.segments.map((segment) => segment.text);
  const items: PreparedSegment[] = [];
  request.segments.forEach((segment, index) => {
    if (segment.text.trim() !== "") items.push(prepareSegment(options.engine, segment, index, options.mode));
  });
  if (items.length === 0) return results;

  const batches = splitBatches(items, options.limits, (item) => options.measure(item.text));
  await mapWithConcurrency(batches, options.concurrency ?? 1, async (batch) => {
    const markup = options.mode === "html" && !batch.every((item) => item.plain);
    // Text-mode tokens always need restoring; an HTML-mode batch only when sent as HTML.
    const restore = options.mode === "text" || markup;
    const translated = await options.send(batch, { markup });
    if (translated.length !== batch.length) {
      throw new EngineError(
        "bad_response",
        `${options.engine} answered ${translated.length} translations for ${batch.length} texts`,
      );
    }
    batch.forEach((item, i) => {
      results[item.index] = restore ? restoreSegment(options.engine, item, translated[i]) : translated[i];
    });
  });
  return results;
}
