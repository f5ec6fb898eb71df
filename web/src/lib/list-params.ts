// A list's state lives in the address (STYLE.md example 18): `f.<field>` and `op.<field>` for the
// filters, `sort`, `direction`, `page`, `per_page`. Pure functions from the address to the state,
// back, and to the API's own query (DESIGN.md 3.5: `filters` as a JSON object).
import type { FilterMeta, ListMeta } from '../../../src/engine/description/metadata-types.js';

export interface FilterValue {
  readonly operator: string;
  readonly value: string;
}

export interface ListState {
  readonly filters: Readonly<Record<string, FilterValue>>;
  readonly sort: string | null;
  readonly direction: 'asc' | 'desc';
  readonly page: number;
  readonly perPage: number;
}

/** `null` with operand false: offered as an operator of its own ("is not empty"). */
export const NOT_NULL = 'not null';

const positive = (text: string | null, fallback: number) => {
  const n = Number(text);
  return Number.isInteger(n) && n > 0 ? n : fallback;
};

export function readListState(search: URLSearchParams, list: ListMeta): ListState {
  const filters: Record<string, FilterValue> = {};
  for (const filter of list.filters) {
    const value = search.get(`f.${filter.name}`) ?? '';
    const operator = search.get(`op.${filter.name}`) ?? filter.default_operator;
    if (value !== '' || operator === 'null' || operator === NOT_NULL)
      filters[filter.name] = { operator, value };
  }
  const sort = search.get('sort');
  return {
    filters,
    sort: sort && list.sortable.includes(sort) ? sort : (list.default_order?.column ?? null),
    direction:
      search.get('direction') === 'desc' || (!sort && list.default_order?.direction === 'desc')
        ? 'desc'
        : 'asc',
    page: positive(search.get('page'), 1),
    perPage: Math.min(positive(search.get('per_page'), list.per_page), list.max_per_page),
  };
}

export function writeListState(state: ListState, list: ListMeta): string {
  const search = new URLSearchParams();
  for (const filter of list.filters) {
    const value = state.filters[filter.name];
    if (!value) continue;
    if (value.value !== '') search.set(`f.${filter.name}`, value.value);
    if (value.operator !== filter.default_operator) search.set(`op.${filter.name}`, value.operator);
  }
  const byDefault =
    list.default_order?.column === state.sort && list.default_order?.direction === state.direction;
  if (state.sort && !byDefault) {
    search.set('sort', state.sort);
    search.set('direction', state.direction);
  }
  if (state.page > 1) search.set('page', String(state.page));
  if (state.perPage !== list.per_page) search.set('per_page', String(state.perPage));
  const text = search.toString();
  return text === '' ? '' : `?${text}`;
}

/** One filter as the API takes it: `{operator: operand}`. */
function operand(filter: FilterMeta, { operator, value }: FilterValue): [string, unknown] {
  if (operator === 'null') return ['null', true];
  if (operator === NOT_NULL) return ['null', false];
  if (operator === 'in' || operator === 'not in')
    return [
      operator,
      value
        .split(',')
        .map((v) => v.trim())
        .filter((v) => v !== ''),
    ];
  // `like` without a wildcard means "contains", as a person means it.
  if ((operator === 'like' || operator === 'not like') && !/[%_]/.test(value))
    return [operator, `%${value}%`];
  if (filter.input === 'datetime' && value !== '') {
    const date = new Date(value);
    if (!Number.isNaN(date.getTime())) return [operator, date.toISOString()];
  }
  return [operator, value];
}

export function apiQuery(state: ListState, list: ListMeta): string {
  const search = new URLSearchParams();
  const filters: Record<string, Record<string, unknown>> = {};
  for (const filter of list.filters) {
    const value = state.filters[filter.name];
    if (!value) continue;
    const [operator, argument] = operand(filter, value);
    filters[filter.name] = { [operator]: argument };
  }
  if (Object.keys(filters).length > 0) search.set('filters', JSON.stringify(filters));
  if (state.sort) {
    search.set('sort', state.sort);
    search.set('direction', state.direction);
  }
  search.set('page', String(state.page));
  search.set('per_page', String(state.perPage));
  return `?${search.toString()}`;
}

const OPERATOR_LABELS: Record<string, string> = {
  like: 'contains',
  'not like': 'does not contain',
  '=': 'is',
  '!=': 'is not',
  '<': 'less than',
  '<=': 'at most',
  '>': 'greater than',
  '>=': 'at least',
  in: 'is one of',
  'not in': 'is none of',
  null: 'is empty',
  [NOT_NULL]: 'is not empty',
};

/** The operators a filter offers, with words for them ("is not empty" for null:false). */
export function operatorChoices(filter: FilterMeta): { value: string; label: string }[] {
  const operators = filter.operators.includes('null')
    ? [...filter.operators, NOT_NULL]
    : [...filter.operators];
  return operators.map((value) => ({ value, label: OPERATOR_LABELS[value] ?? value }));
}

export const needsValue = (operator: string) => operator !== 'null' && operator !== NOT_NULL;
