// A list's pager: previous and next page, where the list is and how many records it has, and
// the page size.
import type { ResourceMeta } from '../../../src/engine/description/metadata-types.js';
import type { ListState } from '../lib/list-params.js';

export function Pager(props: {
  readonly meta: ResourceMeta;
  readonly state: ListState;
  readonly loading: boolean;
  /** The page the answer is (null: by cursor, not counted), its last page and total. */
  readonly currentPage: number | null | undefined;
  readonly lastPage: number;
  readonly total: number;
  readonly go: (next: ListState) => void;
}) {
  const { meta, state, loading, currentPage, lastPage, total, go } = props;
  return (
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
          : `Page ${currentPage ?? state.page} of ${lastPage} · ${total} ${total === 1 ? 'record' : 'records'}`}
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
  );
}
