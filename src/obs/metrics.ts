/**
 * Analytics Engine data points (docs/decisions.md "Operating the service"; docs/ops/observability.md):
 * one per event worth counting, in a fixed layout so the on-call SQL stays simple —
 * index: the organization id; blobs: event, engine, code, status, version; doubles: count, characters, ms.
 * The version (the Worker version that wrote the point) lets a gradual deployment compare its two
 * versions' error rates (scripts/rollout.mjs).
 * `writeDataPoint` is never awaited and never throws into the work it measures.
 */
import { type Level, type LogFields, log, logContext } from "./log";

/** What takes data points: the METRICS binding, or a recorder in tests. */
export type MetricsSink = Pick<AnalyticsEngineDataset, "writeDataPoint">;

export interface DataPoint {
  org_id?: number | string;
  engine?: string;
  code?: string | number;
  status?: string | number;
  count?: number;
  characters?: number;
  ms?: number;
  /** The Worker version that wrote the point (the VERSION binding's id). */
  version?: string;
}

const num = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? v : 0);

export function point(sink: MetricsSink | undefined, event: string, p: DataPoint): void {
  if (!sink) return;
  try {
    sink.writeDataPoint({
      indexes: [String(p.org_id ?? logContext().org_id ?? "")],
      blobs: [event, p.engine ?? "", p.code === undefined ? "" : String(p.code), p.status === undefined ? "" : String(p.status), p.version ?? ""],
      doubles: [p.count === undefined ? 1 : num(p.count), num(p.characters), num(p.ms)],
    });
  } catch {
    // A metric is never worth failing the work it describes.
  }
}

/**
 * An event: its log line, and its data point with the figures the line carries (`count` defaults
 * to 1, `characters` and `ms` to 0). `env` is anything holding the METRICS binding.
 */
export function record(env: { METRICS?: MetricsSink; VERSION?: { id?: string } } | undefined, level: Level, event: string, fields: LogFields = {}): void {
  log(level, event, fields);
  point(env?.METRICS, event, {
    org_id: fields.org_id,
    engine: fields.engine,
    code: fields.code,
    status: fields.status,
    count: typeof fields.count === "number" ? fields.count : undefined,
    characters: typeof fields.characters === "number" ? fields.characters : undefined,
    ms: fields.ms,
    version: env?.VERSION?.id,
  });
}
