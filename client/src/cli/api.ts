// The few calls the CLI makes, over fetch: JSON in and out, 429 and 5xx retried (Retry-After
// honoured, else back-off), any other failure thrown as an ApiError with the service's `detail`.
import type { components } from "../schema.js";

export type Schemas = components["schemas"];

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
    readonly code?: string,
    readonly estimate?: unknown,
  ) {
    super(`${status}: ${detail}`);
  }
}

export interface Api {
  call<T>(method: string, path: string, body?: unknown): Promise<T>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function createApi(url: string, key: string, { attempts = 5 } = {}): Api {
  const base = url.replace(/\/+$/, "");
  return {
    async call<T>(method: string, path: string, body?: unknown): Promise<T> {
      for (let attempt = 1; ; attempt++) {
        let res: Response;
        try {
          res = await fetch(`${base}${path}`, {
            method,
            headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
            body: body === undefined ? undefined : JSON.stringify(body),
          });
        } catch (e) {
          if (attempt >= attempts) throw new ApiError(0, `cannot reach ${base}: ${(e as Error).message}`);
          await sleep(500 * 2 ** attempt);
          continue;
        }
        if ((res.status === 429 || res.status >= 500) && attempt < attempts) {
          const after = Number(res.headers.get("retry-after"));
          await sleep(Number.isFinite(after) && after > 0 ? after * 1000 : 500 * 2 ** attempt);
          continue;
        }
        if (res.status === 204) return undefined as T;
        const text = await res.text();
        let json: Record<string, unknown> | undefined;
        try {
          json = text ? JSON.parse(text) : undefined;
        } catch {}
        if (!res.ok) {
          const detail = typeof json?.detail === "string" ? json.detail : text.slice(0, 300) || res.statusText;
          throw new ApiError(res.status, detail, typeof json?.code === "string" ? json.code : undefined, json?.estimate);
        }
        return json as T;
      }
    },
  };
}
