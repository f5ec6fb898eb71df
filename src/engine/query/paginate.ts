// page and per_page (SPEC.md 4.2, 8; DESIGN.md 3.5): page below 1 becomes 1, a per_page that is
// not a positive integer falls back to the default, and is capped at maxPerPage.
import type { Input } from './input.js';

export interface Page {
  readonly page: number;
  readonly perPage: number;
  readonly offset: number;
}

// Keeps offset = (page - 1) * perPage an exact integer that every engine accepts.
const MAX_PAGE = 10_000_000;

// A JSON 2.5 is no more an integer than the query string's "2.5": both fall back.
function integerOf(value: unknown): number | null {
  if (typeof value === 'number') return Number.isInteger(value) ? value : null;
  if (typeof value === 'string' && /^\s*-?\d+\s*$/.test(value)) return Number.parseInt(value, 10);
  return null;
}

export function parsePage(input: Input, perPageDefault: number, maxPerPage: number): Page {
  const page = Math.min(Math.max(integerOf(input.page) ?? 1, 1), MAX_PAGE);
  const requested = integerOf(input.per_page);
  const perPage =
    requested !== null && requested >= 1 ? Math.min(requested, maxPerPage) : perPageDefault;
  return { page, perPage, offset: (page - 1) * perPage };
}
