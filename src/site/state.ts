/**
 * The one place that decides a segment's state in a language (spec "Segment translation
 * states"): missing, then stale, then attention, then review, then ok. A translation in
 * review (or held back) whose source changed counts as stale. Stale is never stored: it is
 * a translation whose source fingerprint differs from the segment's.
 *
 * `t` is the translations row (LEFT JOINed, so possibly NULL) and `s` the segments row.
 */
export function stateSql(t = "t", s = "s"): string {
  return `(CASE
    WHEN ${t}.status IS NULL OR ${t}.status = 'missing' THEN 'missing'
    WHEN ${t}.source_fingerprint <> ${s}.fingerprint THEN 'stale'
    WHEN ${t}.status = 'attention' THEN 'attention'
    WHEN ${t}.status = 'review' THEN 'review'
    ELSE 'ok' END)`;
}
