// /admin/r/<resource>: the list of any resource, from its metadata alone (issue 18 item 3):
// the filter bar of the searchable fields with their operators, sortable headers, pagination
// with the page size and the total, all of it in the address (bookmarks, the back button).
import { useEffect, useRef, useState } from 'preact/hooks';
import type { FilterMeta, ResourceMeta } from '../../../src/engine/description/metadata-types.js';
import { Alert } from '../components/alert.js';
import { LookupPicker } from '../components/lookup-picker.js';
import { RecordTable } from '../components/record-table.js';
import { takeFlash } from '../lib/flash.js';
import {
  apiQuery,
  type FilterValue,
  type ListState,
  needsValue,
  operatorChoices,
  readListState,
  writeListState,
} from '../lib/list-params.js';
import { Link, navigate, useLocation } from '../lib/router.js';
import { useTitle } from '../lib/title.js';
import { useLiveList } from '../lib/use-live-list.js';
import { ResourceScreen } from './resource-screen.js';

export function ListScreen({ name }: { name: string }) {
  return (
    <ResourceScreen name={name} action="list">
      {(meta) => <ResourceList meta={meta} />}
    </ResourceScreen>
  );
}

function FilterInput(props: {
  filter: FilterMeta;
  id: string;
  value: FilterValue;
  onChange: (value: FilterValue, apply: boolean) => void;
}) {
  const { filter, id, value, onChange } = props;
  if (!needsValue(value.operator)) return null;
  const set = (text: string, apply = false) => onChange({ ...value, value: text }, apply);
  switch (filter.input) {
    case 'choice':
      // `in` / `not in`: several choices (the address keeps them comma-separated).
      if (value.operator === 'in' || value.operator === 'not in') {
        const chosen = new Set(value.value.split(',').filter(Boolean));
        return (
          <select
            id={id}
            multiple
            size={Math.min(4, filter.choices?.length ?? 1)}
            onChange={(e) =>
              set([...e.currentTarget.selectedOptions].map((o) => o.value).join(','), true)
            }
          >
            {(filter.choices ?? []).map((c) => (
              <option key={c.value} value={c.value} selected={chosen.has(c.value)}>
                {c.label}
              </option>
            ))}
          </select>
        );
      }
      return (
        <select id={id} value={value.value} onChange={(e) => set(e.currentTarget.value, true)}>
          <option value="">Any</option>
          {(filter.choices ?? []).map((c) => (
            <option key={c.value} value={c.value}>
              {c.label}
            </option>
          ))}
        </select>
      );
    case 'reference':
      return filter.reference && (value.operator === '=' || value.operator === '!=') ? (
        <LookupPicker
          id={id}
          lookup={filter.reference.lookup}
          value={value.value}
          onChange={(picked) => set(picked, true)}
        />
      ) : (
        <input id={id} value={value.value} onInput={(e) => set(e.currentTarget.value)} />
      );
    case 'number':
      return (
        <input
          id={id}
          inputMode="numeric"
          value={value.value}
          onInput={(e) => set(e.currentTarget.value)}
        />
      );
    case 'datetime':
      return (
        <input
          id={id}
          type="datetime-local"
          value={value.value}
          onInput={(e) => set(e.currentTarget.value)}
        />
      );
    default:
      return (
        <input
          id={id}
          type="search"
          value={value.value}
          onInput={(e) => set(e.currentTarget.value)}
        />
      );
  }
}

function ResourceList({ meta }: { meta: ResourceMeta }) {
  const place = useLocation();
  useTitle(meta.label);
  const state = readListState(place.search, meta.list);
  const stateKey = writeListState(state, meta.list);
  const area = useRef<HTMLDivElement>(null);
  const live = useLiveList(meta, apiQuery(state, meta.list), area);
  const { answer, error, loading } = live;
  const [draft, setDraft] = useState(state.filters);
  const [notice] = useState(() => takeFlash());

  // The address changed (a filter applied, the back button): the bar shows what is listed.
  useEffect(() => setDraft(state.filters), [stateKey]);

  const go = (next: ListState) =>
    navigate(`/admin/r/${meta.name}${writeListState(next, meta.list)}`);
  const apply = (filters: ListState['filters']) => go({ ...state, filters, page: 1 });
  const filterValue = (filter: FilterMeta): FilterValue =>
    draft[filter.name] ?? { operator: filter.default_operator, value: '' };
  const change = (filter: FilterMeta, value: FilterValue, now: boolean) => {
    const next = { ...draft, [filter.name]: value };
    setDraft(next);
    if (now) apply(next);
  };
  const sortBy = (column: string) =>
    go({
      ...state,
      sort: column,
      direction: state.sort === column && state.direction === 'asc' ? 'desc' : 'asc',
      page: 1,
    });

  const total = answer?.meta.total ?? 0;
  const lastPage = answer?.meta.last_page ?? 1;
  const filtered = Object.keys(state.filters).length > 0;

  return (
    <section>
      <div class="toolbar">
        <h1 tabIndex={-1}>{meta.label}</h1>
        {meta.allowed.includes('update') ? (
          <Link href={`/admin/r/${meta.name}/deleted`}>Deleted {meta.label.toLowerCase()}</Link>
        ) : null}
        {meta.allowed.includes('create') ? (
          <button
            type="button"
            class="primary"
            onClick={() => navigate(`/admin/r/${meta.name}/new`)}
          >
            New
          </button>
        ) : null}
      </div>

      {meta.list.filters.length > 0 ? (
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
      ) : null}

      {notice ? (
        <p role="status" class="notice">
          {notice}
        </p>
      ) : null}
      <Alert message={error} />
      <div ref={area}>
        {live.offered > 0 ? (
          <div class="live-bar">
            <span>{`${live.offered} new ${live.offered === 1 ? 'change' : 'changes'}`}</span>
            <button type="button" onClick={live.showOffer}>
              Show changes
            </button>
          </div>
        ) : null}
        <RecordTable
          meta={meta}
          caption={meta.label}
          rows={answer?.data ?? null}
          busy={loading}
          marks={live.marks}
          sorting={{ sort: state.sort, direction: state.direction, onSort: sortBy }}
        />
      </div>
      <div class="pager">
        <button
          type="button"
          disabled={state.page <= 1}
          onClick={() => go({ ...state, page: state.page - 1 })}
        >
          Previous page
        </button>
        <span role="status">
          {loading
            ? 'Loading…'
            : `Page ${answer?.meta.current_page ?? state.page} of ${lastPage} · ${total} ${total === 1 ? 'record' : 'records'}`}
        </span>
        <button
          type="button"
          disabled={state.page >= lastPage}
          onClick={() => go({ ...state, page: state.page + 1 })}
        >
          Next page
        </button>
        <label>
          Rows per page
          <select
            value={String(state.perPage)}
            onChange={(e) => go({ ...state, perPage: Number(e.currentTarget.value), page: 1 })}
          >
            {[...new Set([...meta.list.page_sizes, state.perPage])]
              .sort((a, b) => a - b)
              .map((size) => (
                <option key={size} value={String(size)}>
                  {size}
                </option>
              ))}
          </select>
        </label>
      </div>
    </section>
  );
}
