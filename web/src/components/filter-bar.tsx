// The filter bar of a list: one row per searchable field, its operator and its value; a choice
// or a picked reference applies at once, typed values with Apply filters.
import type { FilterMeta, ResourceMeta } from '../../../src/engine/description/metadata-types.js';
import {
  type FilterValue,
  type ListState,
  needsValue,
  operatorChoices,
} from '../lib/list-params.js';
import { FilterInput } from './filter-input.js';

export function FilterBar(props: {
  readonly meta: ResourceMeta;
  /** The filters as typed, not yet applied. */
  readonly draft: ListState['filters'];
  /** Whether the list shown is filtered (Clear filters). */
  readonly filtered: boolean;
  readonly change: (filter: FilterMeta, value: FilterValue, now: boolean) => void;
  readonly apply: (filters: ListState['filters']) => void;
}) {
  const { meta, draft, filtered, change, apply } = props;
  const filterValue = (filter: FilterMeta): FilterValue =>
    draft[filter.name] ?? { operator: filter.default_operator, value: '' };
  return (
    <form
      class="filters"
      aria-label={`Filter ${meta.label.toLowerCase()}`}
      onSubmit={(event) => {
        event.preventDefault();
        apply(draft);
      }}
    >
      {meta.list.filters.map((filter) => {
        const id = `filter-${meta.name}-${filter.name}`;
        const value = filterValue(filter);
        return (
          <div class="filter" key={filter.name}>
            <label for={id}>{filter.label}</label>
            <div class="filter-row">
              <select
                class="operator"
                aria-label={`${filter.label} operator`}
                value={value.operator}
                onChange={(e) =>
                  change(
                    filter,
                    { ...value, operator: e.currentTarget.value },
                    !needsValue(e.currentTarget.value) || value.value !== '',
                  )
                }
              >
                {operatorChoices(filter).map((o) => (
                  <option key={o.value} value={o.value}>
                    {o.label}
                  </option>
                ))}
              </select>
              <FilterInput
                filter={filter}
                id={id}
                value={value}
                onChange={(v, now) => change(filter, v, now)}
              />
            </div>
          </div>
        );
      })}
      <button type="submit">Apply filters</button>
      {filtered ? (
        <button type="button" onClick={() => apply({})}>
          Clear filters
        </button>
      ) : null}
    </form>
  );
}
