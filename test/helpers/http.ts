// Outbound HTTP in tests: MSW request handlers answered through `getResponse` behind a spy on
// globalThis.fetch (msw/node cannot intercept inside workerd). Every request is recorded; a
// request no handler matches fails the test, even when the code under test swallows the error.
import { getResponse, type RequestHandler } from "msw";
import { onTestFinished, vi } from "vitest";

export interface RecordedRequest {
  method: string;
  url: URL;
  headers: Headers;
  /** The body as text ("" when none). */
  body: string;
  /** The body parsed as JSON. */
  json<T = any>(): T;
}

export interface FetchMock {
  /** Every request made, in order (unmatched ones included). */
  requests: RecordedRequest[];
  /** Requests no handler answered. */
  unhandled: RecordedRequest[];
  /** Adds handlers in front of the current ones (they win). */
  use(...handlers: RequestHandler[]): void;
}

/**
 * Routes fetch() through the given handlers for the rest of the current test. The spy is
 * removed when the test finishes, and the test fails if any request went unanswered.
 */
export function mockFetch(handlers: RequestHandler[]): FetchMock {
  const active = [...handlers];
  const requests: RecordedRequest[] = [];
  const unhandled: RecordedRequest[] = [];

  const spy = vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
    const request = new Request(input as RequestInfo, init);
    const body = request.body ? await request.clone().text() : "";
    const recorded: RecordedRequest = {
      method: request.method,
      url: new URL(request.url),
      headers: new Headers(request.headers),
      body,
      json: () => JSON.parse(body),
    };
    requests.push(recorded);
    const response = await getResponse(active, request);
    if (!response) {
      unhandled.push(recorded);
      throw new Error(`Unmocked request: ${request.method} ${request.url}`);
    }
    // HttpResponse.error() stands for a network failure: real fetch() rejects with a TypeError.
    if (response.type === "error" || response.status === 0) throw new TypeError("Network connection lost.");
    return response;
  });

  onTestFinished(() => {
    spy.mockRestore();
    if (unhandled.length > 0) {
      throw new Error(`Unmocked requests: ${unhandled.map((r) => `${r.method} ${r.url.origin}${r.url.pathname}`).join(", ")}`);
    }
  });

  return {
    requests,
    unhandled,
    use: (...more) => active.unshift(...more),
  };
}
