/** The service's clock. Tests move it (for example across a month boundary); production never does. */
let offsetMs = 0;
let fixed: Date | undefined;

export function now(): Date {
  return fixed ? new Date(fixed) : new Date(Date.now() + offsetMs);
}

/** Test hook: pin the clock to a date, or pass undefined to release it. */
export function setClock(date: Date | undefined) {
  fixed = date;
  offsetMs = 0;
}
