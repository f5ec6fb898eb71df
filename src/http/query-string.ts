// Query strings: `filters[col][op]=v` needs qs's nesting; plain ones take the faster parser.
import querystring from 'node:querystring';
import qs from 'qs';

export function parseQueryString(raw: string): Record<string, unknown> {
  if (raw.includes('[') || raw.includes('%5B') || raw.includes('%5b')) {
    return qs.parse(raw, {
      depth: 4,
      arrayLimit: 1000,
      parameterLimit: 1000,
      allowPrototypes: false,
    });
  }
  return { ...querystring.parse(raw) };
}
