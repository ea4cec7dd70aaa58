/**
 * Infrastructure faults (D1, R2, the object's storage) as the job runner sees them: they are
 * not the job's fault, so they back off and re-arm the alarm and never count towards
 * abandoning a job. Anything else that throws out of a slice is a bug, counted per job.
 */

/** The innermost cause's message: a query builder's wrapper names the query, the platform's error says what failed. */
function rootMessage(err: unknown): string {
  let e = err;
  while (e instanceof Error && e.cause instanceof Error) e = e.cause;
  return e instanceof Error ? e.message : String(e);
}

/** A control-plane or storage call failed; `what` says which, for the log. */
export class InfrastructureError extends Error {
  constructor(
    readonly what: string,
    override readonly cause: unknown,
  ) {
    super(`${what}: ${rootMessage(cause)}`);
    this.name = "InfrastructureError";
  }
}

/** Runs a call to D1 or R2; any failure becomes an InfrastructureError. */
export async function infra<T>(what: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    throw err instanceof InfrastructureError ? err : new InfrastructureError(what, err);
  }
}

/**
 * Whether an error is an infrastructure fault: one raised through `infra()`, or a platform
 * error the runtime marks as retryable (Durable Object storage resets, overloaded I/O).
 */
export function isInfrastructure(err: unknown): boolean {
  if (err instanceof InfrastructureError) return true;
  return typeof err === "object" && err !== null && (err as { retryable?: unknown }).retryable === true;
}

/** Wait before the alarm tries again after `failures` faults in a row: 2 s doubling, at most 5 min, ±20 %. */
export function backoffMs(failures: number, random: () => number = Math.random): number {
  const raw = Math.min(300_000, 2_000 * 2 ** Math.max(0, failures - 1));
  return Math.round(raw * (0.8 + 0.4 * random()));
}
