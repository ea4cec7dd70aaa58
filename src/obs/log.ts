/**
 * The one logger (docs/decisions.md "The house: operations, seams, tests"): one JSON object per line, with fixed keys an
 * on-call engineer can query in Workers Logs. A line is an event (`http.request`, `job.finished` …)
 * with the ids it concerns, never a sentence, and never a key, token, secret, password, mail body
 * or segment text (a key's prefix at most).
 */
export type Level = "debug" | "info" | "warn" | "error";

/** The context a line may carry. Only these keys and the event's own figures are logged. */
export type LogFields = {
  request_id?: string;
  site_id?: number | string;
  org_id?: number | string;
  job_id?: number | string;
  key_prefix?: string;
  method?: string;
  route?: string;
  status?: number | string;
  ms?: number;
  engine?: string;
  code?: string | number;
  version?: string;
  [figure: string]: unknown;
};

/** Where lines go; tests hand in a recorder (test/helpers). */
export type LogSink = (line: string) => void;

const CONSOLE: Record<Level, LogSink> = {
  debug: (line) => console.debug(line),
  info: (line) => console.log(line),
  warn: (line) => console.warn(line),
  error: (line) => console.error(line),
};

/** Drivers quote bound parameters in their messages (a key's hash, customer text): cut them off. */
export function redactError(err: unknown, max = 300): string {
  return String(err)
    .replace(/params:.*$/gms, "params: [redacted]")
    .slice(0, max);
}

export function log(level: Level, event: string, fields: LogFields = {}): void {
  const line: Record<string, unknown> = { level, event };
  for (const [name, value] of Object.entries(fields)) if (value !== undefined) line[name] = value;
  CONSOLE[level](JSON.stringify(line));
}

/** A logger that adds the same context (request id, site, job) to every line it writes. */
export type Logger = {
  readonly fields: LogFields;
  debug(event: string, fields?: LogFields): void;
  info(event: string, fields?: LogFields): void;
  warn(event: string, fields?: LogFields): void;
  error(event: string, fields?: LogFields): void;
  with(fields: LogFields): Logger;
};

export function logger(context: LogFields = {}): Logger {
  const at = (level: Level) => (event: string, fields?: LogFields) => log(level, event, { ...context, ...fields });
  return {
    fields: context,
    debug: at("debug"),
    info: at("info"),
    warn: at("warn"),
    error: at("error"),
    with: (fields) => logger({ ...context, ...fields }),
  };
}
