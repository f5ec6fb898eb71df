// count=estimated above its threshold on SQLite (issue 21): SQLite's planner keeps no row
// estimate it would tell (sqlite_stat1 holds a table's size as of the last ANALYZE, and nothing
// about a LIKE), so there is none: the engine extrapolates instead (the share of matches among
// the newest rows times the table's key span, read by the bounded count's own statement; see
// engine/actions/list-total.ts).
export const estimateCount = null;
