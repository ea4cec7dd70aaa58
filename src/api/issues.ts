import type { z } from "@hono/zod-openapi";

type Issue = z.core.$ZodIssue;

/** `segments[3].key` from a zod path. */
export function formatPath(path: readonly PropertyKey[], root?: string): string {
  let out = root ?? "";
  for (const part of path) {
    if (typeof part === "number") out += `[${part}]`;
    else out += out ? `.${String(part)}` : String(part);
  }
  return out || "body";
}

function unit(origin: string, n: number | bigint): string {
  if (origin === "string") return n === 1 ? "character" : "characters";
  if (origin === "array" || origin === "set") return n === 1 ? "item" : "items";
  return "";
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let v = input;
  for (const part of path) {
    if (v === null || typeof v !== "object") return undefined;
    v = (v as Record<PropertyKey, unknown>)[part];
  }
  return v;
}

/** The rule an issue broke, in plain language. `input` is the validated value, to tell "missing" from "wrong". */
export function describeIssue(issue: Issue, input?: unknown): string {
  if (input !== undefined && issue.path.length && (issue.code === "invalid_type" || issue.code === "invalid_value" || issue.code === "invalid_union")) {
    if (valueAt(input, issue.path) === undefined) return "is required";
  }
  switch (issue.code) {
    case "invalid_type":
      if (issue.input === undefined && issue.message.includes("received undefined")) return "is required";
      return `must be ${issue.expected === "int" ? "an integer" : `of type ${issue.expected}`}`;
    case "too_big": {
      if (issue.origin === "number" || issue.origin === "int") return `must be at most ${issue.maximum}`;
      return `must have at most ${issue.maximum} ${unit(issue.origin, issue.maximum)}`.trimEnd();
    }
    case "too_small": {
      if (issue.origin === "number" || issue.origin === "int") return `must be at least ${issue.minimum}`;
      return `must have at least ${issue.minimum} ${unit(issue.origin, issue.minimum)}`.trimEnd();
    }
    case "invalid_format":
      return issue.format === "regex" && issue.pattern ? `must match the pattern ${issue.pattern}` : `must be a valid ${issue.format}`;
    case "invalid_value":
      return `must be one of ${issue.values.map((v) => JSON.stringify(v)).join(", ")}`;
    case "unrecognized_keys":
      return `has unknown fields ${issue.keys.join(", ")}`;
    case "invalid_union":
      return "does not match any allowed shape";
    default:
      return issue.message;
  }
}

/** The `detail` of a 422: names the first broken field and its rule, then how many more there are. */
export function validationDetail(error: { issues: readonly Issue[] }, root?: string, input?: unknown): string {
  const [first, ...rest] = error.issues;
  if (!first) return "The request is not valid.";
  const more = rest.length ? ` (and ${rest.length} more problem${rest.length === 1 ? "" : "s"})` : "";
  return `${formatPath(first.path, root)} ${describeIssue(first, input)}${more}`;
}
