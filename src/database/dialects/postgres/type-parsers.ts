// How a value in PostgreSQL's text form becomes a JavaScript value, for results and for the
// values that childRows carries as text: pg's own parsers, but int8 (ids, counts) as a number.

import pg from 'pg';

const INT8 = 20;
const parseInt8 = (value: string): number => Number(value);

export function typeParser(oid: number, format?: string): (value: string) => unknown {
  return oid === INT8 ? parseInt8 : pg.types.getTypeParser(oid, format as 'text');
}
