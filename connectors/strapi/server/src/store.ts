// The plugin's persisted state, in two hidden content types of its own (so it lives in the
// project's database, survives restarts and is written in the same place as the content):
// - `task`: the queue of work for the service (push a unit, delete it, report a review),
//   coalesced by name (`push:<unit>`, `delete:<unit>`, `review:<unit>:<language>`): a second
//   change of a document before the next pass only updates its one task. A task leaves the
//   queue once the service has taken it; a failed one stays, with its error and a later `due`.
// - `unit`: per unit, the segments of its last push (keys and texts), the `previous` its next
//   push aligns keys with.
// - `draft`: per unit and target locale, what the plugin last wrote into the locale's draft and
//   the open conflicts with an editor's text (drafts.ts).
import type { DraftRecord } from "./drafts";
import type { Previous } from "./segments";

export type TaskKind = "push" | "delete" | "review";

export interface Task {
  id: number;
  name: string;
  kind: TaskKind;
  unit: string;
  contentType: string;
  entry: string;
  payload: Record<string, unknown> | null;
  attempts: number;
  lastError: string | null;
  due: string | Date;
  version: number;
}

export interface UnitRow {
  id: number;
  unit: string;
  contentType: string;
  entry: string;
  segments: (Previous & { field?: string })[];
}

const hidden = { "content-manager": { visible: false }, "content-type-builder": { visible: false } };

export const contentTypes = {
  task: {
    schema: {
      kind: "collectionType",
      collectionName: "transync_tasks",
      info: { singularName: "task", pluralName: "tasks", displayName: "Transync task" },
      options: { draftAndPublish: false },
      pluginOptions: hidden,
      attributes: {
        name: { type: "string", required: true, unique: true },
        kind: { type: "string", required: true },
        unit: { type: "string", required: true },
        contentType: { type: "string", required: true },
        entry: { type: "string", required: true },
        payload: { type: "json" },
        attempts: { type: "integer", default: 0 },
        lastError: { type: "text" },
        due: { type: "datetime" },
        version: { type: "integer", default: 1 },
      },
    },
  },
  unit: {
    schema: {
      kind: "collectionType",
      collectionName: "transync_units",
      info: { singularName: "unit", pluralName: "units", displayName: "Transync unit" },
      options: { draftAndPublish: false },
      pluginOptions: hidden,
      attributes: {
        unit: { type: "string", required: true, unique: true },
        contentType: { type: "string", required: true },
        entry: { type: "string", required: true },
        segments: { type: "json" },
      },
    },
  },
  draft: {
    schema: {
      kind: "collectionType",
      collectionName: "transync_drafts",
      info: { singularName: "draft", pluralName: "drafts", displayName: "Transync draft" },
      options: { draftAndPublish: false },
      pluginOptions: hidden,
      attributes: {
        name: { type: "string", required: true, unique: true },
        unit: { type: "string", required: true },
        locale: { type: "string", required: true },
        record: { type: "json" },
        conflicts: { type: "integer", default: 0 },
      },
    },
  },
};

const TASK = "plugin::transync.task";
const UNIT = "plugin::transync.unit";
const DRAFT = "plugin::transync.draft";
/** Retry waits of a task the service refused: 2 s, doubling, at most 10 minutes. */
const retryDelayMs = (attempts: number) => Math.min(2000 * 2 ** (attempts - 1), 600_000);

// biome-ignore lint/suspicious/noExplicitAny: Strapi's query engine is typed per content type, which this plugin's own types are not.
type Strapi = any;

export class Store {
  constructor(private readonly strapi: Strapi) {}

  private tasks() {
    return this.strapi.db.query(TASK);
  }
  private units() {
    return this.strapi.db.query(UNIT);
  }

  /** Queues (or refreshes) one task; a push replaces a queued delete of the same unit and the other way round. */
  async enqueue(kind: TaskKind, unit: string, contentType: string, entry: string, payload: Record<string, unknown> | null = null, language?: string): Promise<void> {
    const name = kind === "review" ? `review:${unit}:${language}` : `${kind}:${unit}`;
    if (kind === "push") await this.tasks().deleteMany({ where: { name: `delete:${unit}` } });
    if (kind === "delete") await this.tasks().deleteMany({ where: { name: `push:${unit}` } });
    const existing = await this.tasks().findOne({ where: { name } });
    const data = { kind, unit, contentType, entry, payload, attempts: 0, lastError: null, due: new Date() };
    if (existing) await this.tasks().update({ where: { id: existing.id }, data: { ...data, version: (existing.version ?? 1) + 1 } });
    else await this.tasks().create({ data: { name, ...data, version: 1 } });
  }

  /** Tasks of these kinds that are due, oldest first. */
  due(kinds: TaskKind[], limit = 500): Promise<Task[]> {
    return this.tasks().findMany({ where: { kind: { $in: kinds }, due: { $lte: new Date() } }, orderBy: { id: "asc" }, limit });
  }

  /** Removes a task the service has taken, unless it changed since it was read (then the newer change stays queued). */
  async done(task: Task): Promise<void> {
    await this.tasks().deleteMany({ where: { id: task.id, version: task.version } });
  }

  /** Keeps a task for later, with its error. */
  async failed(task: Task, error: string): Promise<void> {
    const attempts = task.attempts + 1;
    await this.tasks().updateMany({
      where: { id: task.id, version: task.version },
      data: { attempts, lastError: error.slice(0, 1000), due: new Date(Date.now() + retryDelayMs(attempts)) },
    });
  }

  /** Every queued task (for the status route). */
  all(): Promise<Task[]> {
    return this.tasks().findMany({ orderBy: { id: "asc" }, limit: 1000 });
  }

  unit(unit: string): Promise<UnitRow | null> {
    return this.units().findOne({ where: { unit } });
  }

  async saveUnit(unit: string, contentType: string, entry: string, segments: UnitRow["segments"]): Promise<void> {
    const existing = await this.unit(unit);
    if (existing) await this.units().update({ where: { id: existing.id }, data: { segments } });
    else await this.units().create({ data: { unit, contentType, entry, segments } });
  }

  async removeUnit(unit: string): Promise<void> {
    await this.units().deleteMany({ where: { unit } });
    await this.strapi.db.query(DRAFT).deleteMany({ where: { unit } });
  }

  /** Queued tasks of one unit. */
  tasksOf(unit: string): Promise<Task[]> {
    return this.tasks().findMany({ where: { unit }, orderBy: { id: "asc" } });
  }

  async draft(unit: string, locale: string): Promise<DraftRecord | null> {
    return (await this.strapi.db.query(DRAFT).findOne({ where: { name: `${unit}|${locale}` } }))?.record ?? null;
  }

  /** The draft records of a unit, by locale. */
  async drafts(unit: string): Promise<Map<string, DraftRecord>> {
    const rows: { locale: string; record: DraftRecord }[] = await this.strapi.db.query(DRAFT).findMany({ where: { unit } });
    return new Map(rows.map((r) => [r.locale, r.record]));
  }

  /** Every open conflict, by unit and locale (for the Transync page). */
  async allConflicts(limit = 200): Promise<{ unit: string; locale: string; count: number }[]> {
    const rows: { unit: string; locale: string; conflicts: number }[] = await this.strapi.db
      .query(DRAFT)
      .findMany({ where: { conflicts: { $gt: 0 } }, select: ["unit", "locale", "conflicts"], orderBy: { id: "asc" }, limit });
    return rows.map((r) => ({ unit: r.unit, locale: r.locale, count: r.conflicts }));
  }

  async saveDraft(unit: string, locale: string, record: DraftRecord | null): Promise<void> {
    const name = `${unit}|${locale}`;
    const q = this.strapi.db.query(DRAFT);
    if (!record) {
      await q.deleteMany({ where: { name } });
      return;
    }
    const existing = await q.findOne({ where: { name } });
    const data = { record, conflicts: record.conflicts.length };
    if (existing) await q.update({ where: { id: existing.id }, data });
    else await q.create({ data: { name, unit, locale, ...data } });
  }
}
