// The part every engine's translate() shares: protect markup per segment, split into
// upstream requests at the engine's limits, send, restore, and reassemble in order.
import { MarkupError, type ProtectMode, protect } from "../markup/protect";
import { type ExtraBound, mapWithConcurrency, splitBatches } from "./batch";
import { joinPieces, splitLongText } from "./split";
import { EngineError, type EngineLimits, type EngineRequest, type EngineSegment } from "./types";

/** One segment as the engine receives it. */
export interface PreparedSegment {
  /** Position in the request's `segments`. */
  index: number;
  /** Where its translation goes among the texts sent (a long segment sends several pieces). */
  slot: number;
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
  /**
   * A second bound per request besides `limits` (the OpenAI prompt: texts with their context
   * and glossary terms): a request takes fewer texts rather than dropping any context.
   */
  extra?: ExtraBound<PreparedSegment>;
  /** Upstream requests in flight at once (default 1). */
  concurrency?: number;
  /** Translates one batch; answers one text per segment, in order. */
  send: (batch: PreparedSegment[], options: SendOptions) => Promise<string[]>;
}

/** Turns a MarkupError into the engine's bad_response; rethrows anything else. */
export function markupFailure(engine: string, error: unknown, index: number): never {
  if (error instanceof MarkupError) {
    throw new EngineError("bad_response", `${engine} changed or dropped protected markup or placeholders in segment ${index + 1}`);
  }
  throw error;
}

/** Protects one segment for the engine. */
export function prepareSegment(engine: string, segment: EngineSegment, index: number, mode: ProtectMode): PreparedSegment {
  let prepared: ReturnType<typeof protect>;
  try {
    prepared = protect(segment.text, segment.format, mode);
  } catch (error) {
    markupFailure(engine, error, index);
  }
  const plain = (segment.format === "plain" || segment.format === "markdown") && prepared.text === segment.text;
  return { index, slot: index, segment, text: prepared.text, plain, restore: prepared.restore };
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
 * as they are without being sent. A segment longer than one request allows is split at
 * paragraph, then sentence boundaries (split.ts), its pieces translated like segments of their
 * own and joined back with the original separators; one that cannot be split small enough is
 * refused (`rejected`) before anything is sent.
 */
export async function runPipeline(request: EngineRequest, options: PipelineOptions): Promise<string[]> {
  return planPipeline(request, options)();
}

/**
 * runPipeline in two steps: the plan protects and splits every segment (and throws `rejected`
 * for one that cannot be split small enough) before anything is sent; calling it sends. An
 * engine that sends one request's texts in several groups (DeepL, one per unit) plans every
 * group first, so a refused text costs no request.
 */
export function planPipeline(request: EngineRequest, options: PipelineOptions): () => Promise<string[]> {
  const results = request.segments.map((segment) => segment.text);
  const items: PreparedSegment[] = [];
  /** Segments sent in pieces: their index and the separators to join the pieces' translations with. */
  const joins: { index: number; parts: (number | string)[]; separators: string[] }[] = [];
  const fits = (text: string) => options.measure(text) <= options.limits.maxCharacters;
  request.segments.forEach((segment, index) => {
    if (segment.text.trim() === "") return;
    const prepared = prepareSegment(options.engine, segment, index, options.mode);
    if (fits(prepared.text)) {
      items.push({ ...prepared, slot: items.length });
      return;
    }
    const piece = (text: string) => prepareSegment(options.engine, { ...segment, text, maxLength: null }, index, options.mode);
    const split = splitLongText(segment.text, segment.format, (text) => fits(piece(text).text));
    if (!split) {
      throw new EngineError(
        "rejected",
        `${options.engine} cannot take segment ${index + 1} in one request (${options.measure(prepared.text)} of at most ${options.limits.maxCharacters}), and it has a sentence too long to split it at`,
      );
    }
    // A piece's slot among the texts sent; a piece of whitespace only stays as it is.
    const parts = split.pieces.map((text) => {
      if (text.trim() === "") return text;
      items.push({ ...piece(text), slot: items.length });
      return items.length - 1;
    });
    joins.push({ index, parts, separators: split.separators });
  });
  if (items.length === 0) return async () => results;
  return async () => {
    const translated = new Array<string>(items.length);
    const batches = splitBatches(items, options.limits, (item) => options.measure(item.text), options.extra);
    await mapWithConcurrency(batches, options.concurrency ?? 1, async (batch) => {
      const markup = options.mode === "html" && !batch.every((item) => item.plain);
      // Text-mode tokens always need restoring; an HTML-mode batch only when sent as HTML.
      const restore = options.mode === "text" || markup;
      const answer = await options.send(batch, { markup });
      if (answer.length !== batch.length) {
        throw new EngineError("bad_response", `${options.engine} answered ${answer.length} translations for ${batch.length} texts`);
      }
      batch.forEach((item, i) => {
        translated[item.slot] = restore ? restoreSegment(options.engine, item, answer[i]) : answer[i];
      });
    });
    const split = new Set(joins.map((j) => j.index));
    for (const item of items) if (!split.has(item.index)) results[item.index] = translated[item.slot];
    for (const join of joins)
      results[join.index] = joinPieces(
        join.parts.map((part) => (typeof part === "number" ? translated[part] : part)),
        join.separators,
      );
    return results;
  };
}
