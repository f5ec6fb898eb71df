// A reference model of what the import-template list answers (SPEC.md 4.2, DESIGN.md 3.5):
// which rows a filter selects and in which order a sort puts them, on the engine under test.
// Text is compared by code point on every engine (SQLite's binary collation, PostgreSQL test
// databases in the C.UTF-8 collation, MariaDB/MySQL tables in utf8mb4_bin: see
// src/database/migrations/column-types.ts); MariaDB/MySQL also pad with spaces (PAD SPACE).
import { testEngine } from './engines.js';

/** The filter operators of DESIGN.md 3.5. */
export const OPERATORS = [
  '=',
  '!=',
  '<',
  '<=',
  '>',
  '>=',
  'like',
  'not like',
  'in',
  'not in',
  'null',
] as const;
export type Operator = (typeof OPERATORS)[number];

export type Cell = string | number | null;
export type Cells = Record<string, Cell>;

/** LIKE as the spec reads it: % any run, _ one character, case-insensitive (DESIGN 3.5). */
export function likes(value: string, pattern: string): boolean {
  const source = [...pattern.toLowerCase()]
    .map((ch) => (ch === '%' ? '.*' : ch === '_' ? '.' : ch.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${source}$`, 'su').test(value.toLowerCase());
}

// MariaDB/MySQL compare text in a PAD SPACE collation (utf8mb4_bin): =, <, >, IN and ORDER BY
// ignore trailing spaces ('' = ' '), LIKE does not (docs/database-engines.md "Database engines"). With no character
// below the space in these values, that is comparing with trailing spaces removed.
export const comparable = (x: unknown): unknown =>
  testEngine === 'mysql' && typeof x === 'string' ? x.replace(/ +$/, '') : x;

/** Code point order (UTF-8 byte order), not JavaScript's UTF-16 code unit order. */
export function compareCodePoints(a: string, b: string): number {
  const x = [...a];
  const y = [...b];
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = x[i]!.codePointAt(0)! - y[i]!.codePointAt(0)!;
    if (d !== 0) return d < 0 ? -1 : 1;
  }
  return x.length === y.length ? 0 : x.length < y.length ? -1 : 1;
}

/** Two non-null cells of one column, in the database's order (text by code point, padded on MySQL). */
export function compareCells(a: string | number, b: string | number): number {
  if (typeof a === 'number' || typeof b === 'number') {
    // An integer column against a number, or against digits (an integer column compares numerically).
    const [x, y] = [Number(a), Number(b)];
    return x === y ? 0 : x < y ? -1 : 1;
  }
  return compareCodePoints(String(comparable(String(a))), String(comparable(String(b))));
}

/** One condition under SQL's rules: a null column satisfies only `null: true` (and an empty `not in`). */
export function holds(value: Cell, op: string, operand: unknown): boolean {
  if (op === 'null') return operand === true ? value === null : value !== null;
  if (op === 'not in' && Array.isArray(operand) && operand.length === 0) return true;
  if (value === null) return false;
  const same = (o: unknown) => compareCells(value, o as string | number) === 0;
  const order = () => compareCells(value, operand as string | number);
  switch (op) {
    case '=':
      return same(operand);
    case '!=':
      return !same(operand);
    case '<':
      return order() < 0;
    case '<=':
      return order() <= 0;
    case '>':
      return order() > 0;
    case '>=':
      return order() >= 0;
    case 'like':
      return likes(String(value), String(operand));
    case 'not like':
      return !likes(String(value), String(operand));
    case 'in':
      return (operand as unknown[]).some(same);
    case 'not in':
      return !(operand as unknown[]).some(same);
  }
  throw new Error(`no reference for ${op}`);
}

export interface Ordering {
  readonly column: string;
  readonly direction: 'asc' | 'desc';
}

/**
 * `rows` as a list sorted by `order` answers them: nulls sort low (first ascending, last
 * descending), and the id breaks ties in the same direction (src/engine/actions/list.ts).
 */
export function sortRows<T extends { id: number }>(
  rows: readonly T[],
  order: Ordering,
  cell: (row: T, column: string) => Cell,
): T[] {
  const sign = order.direction === 'desc' ? -1 : 1;
  return [...rows].sort((a, b) => {
    const x = cell(a, order.column);
    const y = cell(b, order.column);
    const byValue = x === null ? (y === null ? 0 : -1) : y === null ? 1 : compareCells(x, y);
    return sign * (byValue !== 0 ? byValue : a.id - b.id);
  });
}
