// Records of another resource that name this one (metadata `related`: a template's import
// logs), read-only on the form, newest first.
import { useEffect, useId, useState } from 'preact/hooks';
import type { RelatedMeta, ResourceMeta } from '../../../src/engine/description/metadata-types.js';
import { get } from '../lib/api.js';
import { Link } from '../lib/router.js';
import { RecordTable, type Row } from './record-table.js';

const SHOWN = 20;

export function RelatedRecords(props: { related: RelatedMeta; meta: ResourceMeta; id: string }) {
  const { related, meta, id } = props;
  const headingId = useId();
  const [rows, setRows] = useState<Row[] | null>(null);
  const [total, setTotal] = useState(0);
  const newest = ['created_at', meta.key].find((c) => meta.list.sortable.includes(c));

  useEffect(() => {
    const search = new URLSearchParams({
      filters: JSON.stringify({ [related.field]: { '=': id } }),
      per_page: String(SHOWN),
    });
    if (newest) {
      search.set('sort', newest);
      search.set('direction', 'desc');
    }
    get<{ data: Row[]; meta: { total: number } }>(`${meta.path}?${search}`).then(
      (answer) => {
        setRows(answer.data);
        setTotal(answer.meta.total);
      },
      () => setRows([]),
    );
  }, [meta.path, related.field, id]);

  return (
    <section class="detail" aria-labelledby={headingId}>
      <h2 id={headingId}>{related.label}</h2>
      <RecordTable meta={meta} rows={rows} caption={`${related.label}, newest first`} />
      {total > SHOWN ? (
        <p>
          {SHOWN} of {total} shown.{' '}
          <Link href={`/admin/r/${meta.name}?f.${related.field}=${encodeURIComponent(id)}`}>
            All {related.label.toLowerCase()}
          </Link>
        </p>
      ) : null}
    </section>
  );
}
