/**
 * Reading the dashboard's plain HTML forms and path parameters. A form is at most 64 KB and
 * 200 fields (FORM_LIMITS), checked on the raw bytes before anything parses them (a 413 naming
 * the limit); the two uploads (glossary CSV, TMX) read with `upload: true` keep their own limits.
 */
import { ApiError } from "../errors";
import type { DashContext } from "./auth";

export type Form = Record<string, string | File | (string | File)[]>;

export const FORM_LIMITS = { bytes: 65_536, fields: 200 } as const;

const tooLarge = () => new ApiError(413, `The form is larger than ${FORM_LIMITS.bytes / 1024} KB, so it was refused. Go back and send less.`);
const tooMany = (max: number) => new ApiError(413, `The form has more than ${max} fields, so it was refused. Go back and send fewer.`);

/** The body's bytes, refused as soon as they pass the limit (a declared length first, then what arrives). */
async function boundedBytes(c: DashContext): Promise<Uint8Array> {
  const declared = Number(c.req.header("content-length") ?? "0");
  if (declared > FORM_LIMITS.bytes) throw tooLarge();
  const body = c.req.raw.body;
  if (!body) return new Uint8Array();
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > FORM_LIMITS.bytes) {
      await reader.cancel();
      throw tooLarge();
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return bytes;
}

/** How many fields the raw body holds, counted without parsing it (separators in a urlencoded body, boundaries in a multipart one). */
function fieldCount(text: string, type: string): number {
  const boundary = /boundary="?([^";]+)"?/i.exec(type)?.[1];
  if (/^multipart\/form-data/i.test(type) && boundary) return Math.max(0, text.split(`--${boundary}`).length - 2);
  return text ? text.split("&").length : 0;
}

const read = new WeakMap<Request, Promise<Form>>();

/**
 * The form's fields (a repeated name gives an array). Reads the body once: a second call answers
 * the same. `fields`: a higher count for a form that lists many ids (billing's covered sites).
 */
export function form(c: DashContext, opts: { upload?: boolean; fields?: number } = {}): Promise<Form> {
  let parsed = read.get(c.req.raw);
  if (!parsed) {
    parsed = opts.upload ? c.req.parseBody({ all: true }) : limitedForm(c, opts.fields ?? FORM_LIMITS.fields);
    read.set(c.req.raw, parsed);
  }
  return parsed;
}

async function limitedForm(c: DashContext, maxFields: number): Promise<Form> {
  const type = c.req.header("content-type") ?? "";
  const bytes = await boundedBytes(c);
  const text = new TextDecoder().decode(bytes);
  if (fieldCount(text, type) > maxFields) throw tooMany(maxFields);
  let data: FormData | URLSearchParams;
  if (/^multipart\/form-data/i.test(type)) data = await new Response(bytes, { headers: { "content-type": type } }).formData();
  else if (/^application\/x-www-form-urlencoded/i.test(type)) data = new URLSearchParams(text);
  else return {};
  const out: Form = {};
  for (const [name, value] of data.entries()) {
    const prior = out[name];
    out[name] = prior === undefined ? value : Array.isArray(prior) ? [...prior, value] : [prior, value];
  }
  return out;
}

/** A field's first value as text ("" when absent or a file). */
export const str = (f: Form, name: string) => {
  const v = f[name];
  const first = Array.isArray(v) ? v[0] : v;
  return typeof first === "string" ? first : "";
};

/** Every text value of a repeated field (checkboxes). */
export const strs = (f: Form, name: string) => {
  const v = f[name];
  return (Array.isArray(v) ? v : v === undefined ? [] : [v]).filter((x): x is string => typeof x === "string");
};

/** A positive id from a path or form, or -1 (which matches nothing). */
export const id = (value: string | undefined) => {
  const n = Number(value);
  return Number.isSafeInteger(n) && n > 0 ? n : -1;
};
