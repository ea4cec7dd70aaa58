/**
 * Lets waiting requests (and I/O) in: the next turn of the event loop. The job's steps
 * (jobs/invocation.ts says why `scheduler.wait(0)`) and the memory's long imports take one
 * between two pieces of work, so the object answers while they run.
 */
export const nextTurn = (): Promise<void> => scheduler.wait(0);
