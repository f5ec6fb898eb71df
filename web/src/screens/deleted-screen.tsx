// /admin/r/<resource>/deleted: the records deleted and not restored since (DESIGN.md 3.11),
// newest delete first, who deleted each and when, and Restore, confirmed in the native <dialog>:
// the record comes back with its id and detail rows, and its form opens.
import type { ResourceMeta } from '../../../src/engine/description/metadata-types.js';
import { Alert } from '../components/alert.js';
import { RestoreDialog, ShowOlder } from '../components/past-pages.js';
import { exchange } from '../lib/api.js';
import type { Change } from '../lib/change-feed.js';
import { deletedPath, recordPath, restorePath } from '../lib/endpoints.js';
import { setFlash } from '../lib/flash.js';
import { formatDate } from '../lib/format.js';
import type { RecordBody } from '../lib/record-read.js';
import { Link, navigate } from '../lib/router.js';
import { useTitle } from '../lib/title.js';
import { usePastPages } from '../lib/use-past-pages.js';
import { ResourceScreen } from './resource-screen.js';

interface Deleted {
  readonly id: string | number;
  readonly seq: number;
  readonly at: string;
  readonly actor: Change['actor'];
  readonly restore_seq: number | null;
  readonly record: RecordBody | null;
}

export function DeletedScreen({ name }: { name: string }) {
  return (
    <ResourceScreen name={name} action="list">
      {(meta) => <DeletedRecords meta={meta} />}
    </ResourceScreen>
  );
}

function titleOf(meta: ResourceMeta, item: Deleted): string {
  const named = meta.title_fields
    .map((f) => item.record?.[f])
    .filter((v) => v !== null && v !== undefined && v !== '');
  return named.length > 0 ? named.join(' · ') : `#${item.id}`;
}

function DeletedRecords({ meta }: { meta: ResourceMeta }) {
  const heading = `Deleted ${meta.label.toLowerCase()}`;
  useTitle(heading);
  const pages = usePastPages<Deleted>(
    deletedPath(meta.path),
    'The deleted records could not be read.',
  );
  const { items, names, error } = pages;
  const canRestore = meta.allowed.includes('update');

  const restore = async (item: Deleted) => {
    await exchange('POST', restorePath(recordPath(meta, item.id), item.restore_seq), {});
    setFlash(`${meta.singular_label} restored.`);
    navigate(`/admin/r/${meta.name}/${encodeURIComponent(String(item.id))}`, { force: true });
  };

  return (
    <section>
      <div class="toolbar">
        <h1 tabIndex={-1}>{heading}</h1>
        <Link href={`/admin/r/${meta.name}`}>Back to {meta.label.toLowerCase()}</Link>
      </div>
      <Alert message={error} />
      {items === null ? (
        <p role="status" class="loading">
          Loading…
        </p>
      ) : items.length === 0 ? (
        <p>Nothing deleted is kept.</p>
      ) : (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">{meta.singular_label}</th>
                <th scope="col">Deleted</th>
                <th scope="col">By</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {items.map((item) => (
                <tr key={item.seq}>
                  <td>{titleOf(meta, item)}</td>
                  <td>
                    <time dateTime={item.at}>{formatDate(item.at)}</time>
                  </td>
                  <td>{names[item.seq] ?? '…'}</td>
                  <td>
                    {canRestore && item.restore_seq !== null ? (
                      <button
                        type="button"
                        aria-label={`Restore ${titleOf(meta, item)}`}
                        onClick={() => pages.confirm(item)}
                      >
                        Restore
                      </button>
                    ) : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <ShowOlder older={pages.older} />
      <RestoreDialog
        pages={pages}
        title={`Restore this ${meta.singular_label.toLowerCase()}?`}
        restore={restore}
        failure="The record could not be restored."
      >
        {pages.confirming ? titleOf(meta, pages.confirming) : ''} comes back with its id
        {meta.details.length > 0
          ? ` and its ${meta.details.map((d) => d.label.toLowerCase()).join(' and ')}`
          : ''}
        , as it was before it was deleted.
      </RestoreDialog>
    </section>
  );
}
