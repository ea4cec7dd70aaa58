// Whole-file connectors (a static site, a folder of Markdown): rebuilding a translated file
// from every block's current translation, and turning an editor's edited file into reviews.
// Both read one unit's status with `include=text,results`; neither keeps state of its own.
import type { TransyncClient } from "./client.js";
import type { CallOptions, Review } from "./helpers.js";
import { send } from "./retry.js";
import type { components } from "./schema.js";
import type { PreviousSegment } from "./split/align.js";
import { joinParts, normalize, type Split } from "./split/keys.js";
import { markDraft, splitMarkdown } from "./split/markdown.js";

type S = components["schemas"];

/** A unit's segment × language states with each segment's source text and current translations. */
export function unitStatusWithTexts(api: TransyncClient, unitKey: string, options: CallOptions = {}): Promise<S["UnitStatusOut"]> {
  return send(
    () => api.GET("/v1/units/{external_key}/status", { params: { path: { external_key: unitKey }, query: { include: "text,results" } }, signal: options.signal }),
    "all",
    options.retry,
    options.signal,
  );
}

export interface TranslatedDocumentOptions extends CallOptions {
  /** How the source document is cut (default `splitMarkdown` with its default fields); it is given the unit's segments as `previous`. */
  split?: (doc: string, options: { previous: readonly PreviousSegment[] }) => Split;
  /** Marks the result a draft (`markDraft`: front matter `draft: true`); default false. */
  draft?: boolean;
}

export interface TranslatedDocument {
  /** The translated document: every block's current translation, the source text where a block has none. */
  document: string;
  /** Whether every block has a current translation (write the file only then, as `whole_unit` delivers). */
  complete: boolean;
  /** Keys of the blocks without one: missing, stale (the source changed since), held back by QA, or not pushed yet. */
  missing: string[];
  /** Ids of the results used that are not acknowledged yet: acknowledge them (`ack`) once the file is written. */
  unacknowledged: string[];
}

/**
 * The translated version of a document in `lang`, rebuilt from every block's current
 * translation (`GET /v1/units/{key}/status?include=text,results`: one call), not from the
 * results of the latest job alone: a file is written whole, and blocks translated, approved or
 * imported earlier are part of it. A block counts as translated when its state in `lang` is
 * `ok` or `review`; a stale, missing or held-back block keeps its source text and is listed in
 * `missing`. The source is split with the unit's segments as `previous`, so its keys are the
 * ones the service holds. An unknown unit throws TransyncError 404.
 */
export async function translatedDocument(api: TransyncClient, unitKey: string, lang: string, source: string, options: TranslatedDocumentOptions = {}): Promise<TranslatedDocument> {
  const status = await unitStatusWithTexts(api, unitKey, options);
  const previous = status.segments.map((s) => ({ key: s.key, text: s.text ?? "" }));
  const split = (options.split ?? ((doc, o) => splitMarkdown(doc, o)))(source, { previous });
  const translations: Record<string, string> = {};
  const unacknowledged: string[] = [];
  for (const s of status.segments) {
    const result = s.results?.[lang];
    const state = s.states[lang];
    if (!result || (state !== "ok" && state !== "review")) continue;
    translations[s.key] = result.text;
    if (result.status === "machine_translated" && result.id) unacknowledged.push(result.id);
  }
  const missing = split.segments.filter((s) => translations[s.key] === undefined).map((s) => s.key);
  const joined = joinParts(split, translations);
  return { document: options.draft ? markDraft(joined) : joined, complete: missing.length === 0, missing, unacknowledged };
}

/** An editor's file whose blocks do not line up one to one with the unit's segments. */
export class EditMismatchError extends Error {
  override readonly name = "EditMismatchError";
  constructor(
    readonly blocks: number,
    readonly segments: number,
  ) {
    super(`the edited document has ${blocks} block(s), the unit has ${segments}: they do not line up`);
  }
}

export interface EditorReviewsOptions {
  outcome: "approved" | "rejected";
  /**
   * The editor's version of the translated document, split the same way as the source (for
   * example `splitMarkdown(editedFile)`): its blocks line up in order with the unit's segments,
   * and a block whose text differs (whitespace aside) is sent as the approved text (origin `human`).
   */
  edited?: Pick<Split, "segments">;
  reviewer?: string;
}

/**
 * The reviews (`POST /v1/reviews`, the `review` helper) for a unit's translations in `lang` that
 * wait for an editor (state `review`: machine translated or pending review), from its status with
 * `include=text,results` (`unitStatusWithTexts`). With `edited`, approvals carry the editor's text
 * where it differs; an edited document with another number of blocks throws EditMismatchError.
 */
export function editorReviews(status: S["UnitStatusOut"], lang: string, options: EditorReviewsOptions): Review[] {
  const segments = [...status.segments].sort((a, b) => a.position - b.position);
  const edited = options.edited?.segments.map((s) => s.text);
  if (edited && edited.length !== segments.length) throw new EditMismatchError(edited.length, segments.length);
  const reviews: Review[] = [];
  segments.forEach((s, i) => {
    const t = s.results?.[lang];
    if (s.states[lang] !== "review" || !t?.id || (t.status !== "machine_translated" && t.status !== "pending_review")) return;
    const text = edited?.[i];
    reviews.push({
      id: t.id,
      outcome: options.outcome,
      ...(options.outcome === "approved" && text !== undefined && normalize(text) !== normalize(t.text) ? { text } : {}),
      ...(options.reviewer ? { reviewer: options.reviewer } : {}),
    });
  });
  return reviews;
}
