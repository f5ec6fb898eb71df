// What svc's own benchmark (run.mjs) and the shared harness's adapter (harness-adapter.mjs) both
// send, written once so that they measure the same requests: L2's filters and U1's body. A
// `<<name>>` placeholder is filled in per request; a number's stands unquoted in a JSON body.

/** JSON with its `"<<name>>"` strings unquoted: numeric placeholders. */
export const withPlaceholders = (value) => JSON.stringify(value).replace(/"<<(\w+)>>"/g, '<<$1>>');

/** L2's filters query parameter: active templates whose title contains "ab". */
export const L2_FILTERS = encodeURIComponent(
  JSON.stringify({ active: { '=': 'Y' }, title: { like: '%ab%' } }),
);

/**
 * U1: a template's description and detail rows changed (one row of each relation kept, one
 * changed, one added; svc's rows are objects, a bare id `{"id": <id>}` keeps a row as it is).
 */
export const U1_BODY = withPlaceholders({
  description: 'updated by the benchmark, visit <<k>>',
  groups: [
    { id: '<<g_keep>>' },
    { id: '<<g_chg_id>>', group_id: '<<g_val>>' },
    { group_id: '<<g_add>>' },
  ],
  users: [
    { id: '<<u_keep>>' },
    { id: '<<u_chg_id>>', user_id: '<<u_val>>' },
    { user_id: '<<u_add>>' },
  ],
});
