// /admin/r/<resource>: the list of any resource, from its metadata alone (issue 18 item 3):
// the filter bar of the searchable fields with their operators, sortable headers, pagination
// with the page size and the total, all of it in the address (bookmarks, the back button).
import { useEffect, useRef, useState } from 'preact/hooks';
import type { FilterMeta, ResourceMeta } from '../../../src/engine/description/metadata-types.js';
import { Alert } from '../components/alert.js';
import { FilterBar } from '../components/filter-bar.js';
import { Pager } from '../components/pager.js';
import { RecordTable } from '../components/record-table.js';
import { takeFlash } from '../lib/flash.js';
import {
  apiQuery,
  type FilterValue,
  type ListState,
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
        <FilterBar meta={meta} draft={draft} filtered={filtered} change={change} apply={apply} />
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
      <Pager
        meta={meta}
        state={state}
        loading={loading}
        currentPage={answer?.meta.current_page}
        lastPage={lastPage}
        total={total}
        go={go}
      />
    </section>
  );
}
