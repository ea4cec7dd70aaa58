/**
 * The service's clock, handed to the code that reads the time (the Worker's app, the site
 * object, the operations as an `at` argument). Production's is the system clock; tests build
 * the code with their own (test/worker.ts): there is no setter to move it.
 */
export type Clock = () => Date;

export const systemClock: Clock = () => new Date();
