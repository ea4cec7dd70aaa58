/** Result ids as the API shows them: opaque `r_<n>` over the results table's row id. */
export const resultId = (n: number) => `r_${n}`;

export function parseResultId(id: string): number | undefined {
  const m = /^r_([1-9][0-9]{0,15})$/.exec(id);
  const n = m ? Number(m[1]) : NaN;
  return Number.isSafeInteger(n) ? n : undefined;
}
