/**
 * The one logger (docs/decisions.md "Operating the service"): one JSON object per line, with fixed keys an
 * on-call engineer can query in Workers Logs. A line is an event (`http.request`, `job.finished` …)
 * with the ids it concerns, never a sentence, and never a key, token, secret, password, mail body
 * or segment text (a key's prefix at most).
 *
 * The context of the work under way (the request id, the site) is held in an AsyncLocalStorage
 * (`withLogContext`): the Worker opens it per request, the site object per call (its caller's
 * request id comes along, src/site/stub.ts) and per alarm, so every line written inside carries it.
 */
import { AsyncLocalStorage } from "node:async_hooks";

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

const context = new AsyncLocalStorage<LogFields>();

/** Runs `fn` with `fields` added to the context every line inside it carries (and passes on to the site object). */
export function withLogContext<T>(fields: LogFields, fn: () => T): T {
  return context.run({ ...context.getStore(), ...defined(fields) }, fn);
}

/** The current context (empty outside any): what the site stub hands the object with each call. */
export function logContext(): LogFields {
  return { ...context.getStore() };
}

/** Adds fields to the current context once they are known (the site after authentication). */
export function addLogContext(fields: LogFields): void {
  const store = context.getStore();
  if (store) Object.assign(store, defined(fields));
}

const defined = (fields: LogFields) => Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));

/**
 * A key that slipped into a line (an error message quoting a header, a URL) keeps its prefix only:
 * the last guard behind the rule that no line carries a key.
 */
const KEY_IN_TEXT = /(tsk_[0-9A-Za-z]{6})[0-9A-Za-z]{32}/g;

export function log(level: Level, event: string, fields: LogFields = {}): void {
  const line: Record<string, unknown> = { level, event };
  for (const [name, value] of Object.entries({ ...context.getStore(), ...fields })) if (value !== undefined) line[name] = value;
  CONSOLE[level](JSON.stringify(line).replace(KEY_IN_TEXT, "$1…"));
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
